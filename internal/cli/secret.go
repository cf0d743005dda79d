package cli

import (
	"strings"

	"github.com/storbench/storbench/internal/catalog"
)

// secretFlags are the flags whose values are secrets. S3 access keys count:
// the s3 engine blanks them with the secret keys wherever a phase is written
// down. Token files, credentials files and TLS keys are given by path, and
// their contents are never recorded.
var secretFlags = []string{"access-key", "secret-key"}

// redactedValue replaces a secret wherever a command line is recorded.
const redactedValue = "REDACTED"

// redactArgs returns a copy of a command line with the value of every
// secret flag replaced, in both forms pflag reads ("--secret-key S" and
// "--secret-key=S"). Everything that records or prints a command line (run.json,
// and from it report.html and --git-commit messages) takes it from here.
func redactArgs(args []string) []string {
	out := append([]string(nil), args...)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if a == "--" {
			break // the rest are arguments, not flags
		}
		// A catalog URL keeps its user and host; its password goes.
		if a == "--catalog" && i+1 < len(out) {
			out[i+1] = catalog.RedactURL(out[i+1])
			i++
			continue
		}
		if v, ok := strings.CutPrefix(a, "--catalog="); ok {
			out[i] = "--catalog=" + catalog.RedactURL(v)
			continue
		}
		for _, f := range secretFlags {
			if a == "--"+f {
				if i+1 < len(out) {
					out[i+1] = redactedValue
					i++
				}
				break
			}
			if strings.HasPrefix(a, "--"+f+"=") {
				out[i] = "--" + f + "=" + redactedValue
				break
			}
		}
	}
	return out
}

// recordedArgs is the command line as run.json records it: secrets redacted.
func (st *State) recordedArgs() []string { return redactArgs(st.Args) }
