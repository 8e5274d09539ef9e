package main

import (
	"runtime/debug"
	"strings"
)

// version is set at release time with
// `go build -ldflags "-X main.version=v1.2.3" ./cmd/rewind`; otherwise the
// build information Go records in the binary says what it is.
var version = ""

// versionString is what `rewind --version` prints after "rewind ".
func versionString() string {
	info, ok := debug.ReadBuildInfo()
	return describeBuild(version, info, ok)
}

// describeBuild: the -ldflags version, else the module version (set by
// `go install …@v1.2.3`), else "devel"; then the VCS revision, its date and
// whether the tree had local changes, when Go recorded them.
func describeBuild(override string, info *debug.BuildInfo, ok bool) string {
	v := override
	if v == "" && ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = info.Main.Version
	}
	if v == "" {
		v = "devel"
	}
	if !ok {
		return v
	}
	var rev, at string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	var extra []string
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if dirty {
			rev += "-dirty"
		}
		extra = append(extra, rev)
	}
	if at != "" {
		extra = append(extra, at)
	}
	extra = append(extra, info.GoVersion)
	return v + " (" + strings.Join(extra, ", ") + ")"
}
