package cli

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Commit is the commit storbench was built from, set at build time with
// -ldflags "-X github.com/storbench/storbench/internal/cli.Commit=<sha>".
// Without it, the commit Go stamped into the binary (vcs.revision) is used.
var Commit = ""

// BuildInfo is what `storbench version` tells about this binary.
type BuildInfo struct {
	Version string `json:"version"`
	// Commit is absent when the build recorded none.
	Commit string `json:"commit,omitempty"`
	Go     string `json:"go"`
	OS     string `json:"os"`
	Arch   string `json:"arch"`
	// CGO says the binary links C code: false for the static release
	// builds.
	CGO  bool `json:"cgo"`
	Race bool `json:"race"`
	// S3RawSyscalls says the lean S3 path reads and writes its sockets with
	// raw system calls (Linux on amd64 and arm64); elsewhere it uses
	// net.Conn.
	S3RawSyscalls bool `json:"s3_raw_syscalls"`
}

// readBuildInfo describes the running binary.
func readBuildInfo() BuildInfo {
	b := BuildInfo{
		Version: version(), Commit: Commit, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH,
		// The build constraint of internal/engine/s3/rawio_linux.go.
		S3RawSyscalls: runtime.GOOS == "linux" && (runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64"),
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "CGO_ENABLED":
			b.CGO = s.Value == "1"
		case "-race":
			b.Race = s.Value == "true"
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if b.Commit == "" && rev != "" {
		b.Commit = rev
		if dirty {
			b.Commit += "-dirty"
		}
	}
	return b
}

func onOff(v bool) string {
	if v {
		return "on"
	}
	return "off"
}

func newVersionCommand(st *State) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version [--json]",
		Short: "Print storbench's version and commit, Go's version and the build's features",
		Long: `Prints one line each: storbench's version, the commit it was built from, the
Go version that built it, the platform, and the build's features (cgo, the race
detector, and whether the lean S3 path uses raw system calls). --json prints
the same as one JSON object.`,
		Example: `  storbench version
  storbench version --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVersion(st, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

func runVersion(st *State, asJSON bool) error {
	b := readBuildInfo()
	if asJSON {
		enc := json.NewEncoder(st.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(b)
	}
	commit := b.Commit
	if commit == "" {
		commit = "unknown"
	}
	fmt.Fprintf(st.Stdout, "storbench %s\n", b.Version)
	fmt.Fprintf(st.Stdout, "commit: %s\n", commit)
	fmt.Fprintf(st.Stdout, "go: %s\n", b.Go)
	fmt.Fprintf(st.Stdout, "platform: %s/%s\n", b.OS, b.Arch)
	fmt.Fprintf(st.Stdout, "cgo: %s\n", onOff(b.CGO))
	fmt.Fprintf(st.Stdout, "race detector: %s\n", onOff(b.Race))
	fmt.Fprintf(st.Stdout, "s3 raw syscalls: %s\n", onOff(b.S3RawSyscalls))
	return nil
}
