package main

import (
	"runtime/debug"
	"strings"
)

// buildVersion is what `recite --version` prints after "recite": the
// module version ("(devel)" when built from a checkout, v1.2.3 when
// installed with go install …@v1.2.3), then the VCS commit (12 hex
// digits) and its date when the build recorded them, "dirty" when the
// work tree had uncommitted changes, and the Go version. ok is the second
// result of debug.ReadBuildInfo; without build info the version is
// "unknown".
func buildVersion(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return "unknown"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	parts := []string{v}
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
	if rev != "" {
		c := "commit " + rev[:min(12, len(rev))]
		if at != "" {
			c += " (" + at + ")"
		}
		if dirty {
			c += " dirty"
		}
		parts = append(parts, c)
	}
	if info.GoVersion != "" {
		parts = append(parts, info.GoVersion)
	}
	return strings.Join(parts, ", ")
}
