package s3_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/s3test"
	"github.com/storbench/storbench/internal/testutil"
)

// storbench builds the binary for t.
func storbench(t *testing.T) string {
	t.Helper()
	return testutil.StorbenchBin(t)
}

// What a user sees of a server that takes the benchmark's GETs and never
// answers: `storbench s3 get` ends at the duration plus the grace, says
// the requests timed out at the phase's grace, and exits 1 (every request
// failed: over --max-error-share); what it prepared is cleaned up.
func TestCommandEndsOnHungServer(t *testing.T) {
	srv := s3test.StartT(t, s3test.Options{})
	px := s3test.StartStallProxy(t, srv.Endpoint)
	px.Set(s3test.MuteObjectGets) // uploads and listings pass, GETs hang
	bin := storbench(t)
	res := filepath.Join(t.TempDir(), "results")
	cmd := exec.Command(bin, "s3", "get", "--host", px.Endpoint, "--bucket", "hung", "--obj.size", "4KiB",
		"--objects", "20", "--concurrent", "3", "--duration", "2s", "--grace", "2s", "--results", res)
	cmd.Env = append(os.Environ(), "STORBENCH_ACCESS_KEY="+s3test.AccessKey, "STORBENCH_SECRET_KEY="+s3test.SecretKey)
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	el := time.Since(t0)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	if code != 1 || !strings.Contains(text, "timeout: phase grace") || !strings.Contains(text, "max-error-share") {
		t.Errorf("exit %d, want 1 with the requests cut at the grace named:\n%s", code, text)
	}
	// Preparation and cleanup on a loaded 2-core machine take a few
	// seconds; the measured stage 2s and the grace 2s.
	if el > 15*time.Second {
		t.Errorf("the command took %v", el)
	}
	if ents, _ := os.ReadDir(filepath.Join(srv.Root, "hung")); len(ents) != 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("left in the bucket: %v", names)
	}
}
