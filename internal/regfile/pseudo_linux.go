package regfile

import (
	"os"
	"syscall"
)

// pseudoFS names the kernel filesystems whose files stat as regular but are
// made up by the kernel as they are read: a read may block until something
// happens (/proc/kmsg, tracefs's trace_pipe) or never end.
var pseudoFS = map[int64]string{
	0x9fa0:     "proc",
	0x62656572: "sysfs",
	0x64626720: "debugfs",
	0x74726163: "tracefs",
	0x73636673: "securityfs",
	0x27e0eb:   "cgroup",
	0x63677270: "cgroup2",
	0x62656570: "configfs",
	0xcafe4a11: "bpf",
	0x6165676c: "pstore",
	0xde5e81e4: "efivarfs",
}

// pseudoKind names the kernel pseudo-filesystem f is on, or "".
func pseudoKind(f *os.File) string {
	rc, err := f.SyscallConn()
	if err != nil {
		return ""
	}
	var st syscall.Statfs_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.Fstatfs(int(fd), &st) }); err != nil || serr != nil {
		return ""
	}
	if name, ok := pseudoFS[int64(st.Type)]; ok {
		return "a file of the kernel's " + name + " filesystem"
	}
	return ""
}
