package testutil

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

// Bound is how long a test waits for something that comes within a
// second or two on a quiet machine: long enough for a machine at a load
// of 30 on 2 cores, short enough that a wait that never ends fails the
// test with its own words instead of hanging the package until go test's
// -timeout kills it (20 minutes, with no word of what was awaited).
const Bound = 2 * time.Minute

// Recv waits for a value on ch for at most within and fails the test,
// naming what, when none comes.
func Recv[T any](t testing.TB, ch <-chan T, within time.Duration, what string) T {
	t.Helper()
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("%s: nothing in %v", what, within)
		panic("unreachable")
	}
}

// Ctx is a context that ends after within, or when the test ends: what a
// test runs under it (an engine's run, a process) is stopped in bounded
// time however it hangs.
func Ctx(t testing.TB, within time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), within)
	t.Cleanup(cancel)
	return ctx
}

// Command is exec.Command bounded: the process is killed after Bound, or
// when the test ends, and Wait returns at most 5 s after it ends even when
// a child of its holds its output open.
func Command(t testing.TB, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(Ctx(t, Bound), name, args...)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}
