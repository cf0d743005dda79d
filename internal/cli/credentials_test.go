package cli

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/s3test"
)

// Keys belong to the run they were given to: two runs in one process at
// the same time, one with a user's keys and one with a secret key that is
// wrong, each get their own outcome. (With keys kept in process-global
// state, the last run to start lent its keys to the other.)
func TestConcurrentRunsKeepTheirKeys(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{IAM: true})
	const ak, sk = "AKsbConcurrentA1", "SKsbConcurrentSecretA1"
	if err := srv.CreateUser(ak, sk, "admin"); err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		err error
		out string
	}
	runs := map[string][]string{
		"right": {"--bucket", "keysright", "--access-key", ak, "--secret-key", sk},
		"wrong": {"--bucket", "keyswrong", "--access-key", ak, "--secret-key", "SKsbNotTheSecretOfA1"},
	}
	got := map[string]outcome{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, keys := range runs {
		wg.Go(func() {
			st, out := testState()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			args := append([]string{"s3", "put", "--host", srv.Endpoint, "--obj.size", "4KiB", "--concurrent", "2",
				"--duration", "2s", "--results", t.TempDir()}, keys...)
			err := Execute(ctx, st, args)
			mu.Lock()
			got[name] = outcome{err, out.String()}
			mu.Unlock()
		})
	}
	wg.Wait()
	if r := got["right"]; r.err != nil || !strings.Contains(r.out, "completed") {
		t.Errorf("the run with the right keys: %v\n%s", r.err, r.out)
	}
	if w := got["wrong"]; ExitCode(w.err) == ExitOK || !strings.Contains(w.err.Error()+w.out, "SignatureDoesNotMatch") && !strings.Contains(strings.ToLower(w.err.Error()+w.out), "signature") {
		t.Errorf("the run with the wrong secret key: exit %d (%v), want it refused by the server\n%s", ExitCode(w.err), w.err, w.out)
	}
}
