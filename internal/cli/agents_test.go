package cli

import (
	"strings"
	"testing"
)

// Remote agents without a token or client certificate are refused before
// anything is contacted.
func TestRemoteNeedsCredentials(t *testing.T) {
	t.Parallel()
	st, out := testState()
	_, err := runMd(t.Context(), st, MdOptions{Dir: t.TempDir(), Items: 1, Iterations: 1, WriteBytes: "0", ReadBytes: "0", Agents: AgentsOptions{Agents: []string{"10.255.255.1:7761"}}}, nil)
	if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "--token-file") {
		t.Fatalf("exit %d: %v\n%s", ExitCode(err), err, out)
	}
}
