//go:build !linux

package regfile

import "os"

// pseudoKind: only Linux's kernel pseudo-filesystems are known.
func pseudoKind(*os.File) string { return "" }
