package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/ripple-data/ripple/internal/dbt"
)

// VersionInfo is what `ripple --version` and `ripple version` print.
type VersionInfo struct {
	// Version is -ldflags' Version when set, else the module version
	// (`go install ...@v1.2.3` records it; a local build says "(devel)").
	Version string `json:"version"`
	// Commit is the VCS revision the binary was built from, when recorded.
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// ManifestVersions are the dbt manifest schema versions Ripple reads.
	ManifestVersions string `json:"dbt_manifest_versions"`
	GoVersion        string `json:"go_version,omitempty"`
}

func versionInfo() VersionInfo {
	v := VersionInfo{Version: Version, ManifestVersions: fmt.Sprintf("v%d–v%d", dbt.MinManifestVersion, dbt.MaxManifestVersion)}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.GoVersion = bi.GoVersion
	if v.Version == "dev" && bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// versionLine is the one line of `ripple --version`.
func versionLine() string {
	v := versionInfo()
	s := v.Version
	if v.Commit != "" {
		c := v.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		s += " (commit " + c
		if v.Modified {
			s += ", modified"
		}
		s += ")"
	}
	return s + "; reads dbt manifests " + v.ManifestVersions
}
