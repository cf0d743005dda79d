package main

import (
	"context"
	"os"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// secondSignal takes the same signal again within sameSignalWindow of the
// first for the first one's echo (timeout(1) sends it to storbench and
// then to its process group), and anything else for a second signal: a
// different signal at once, the same one past the window.
func TestSecondSignalIgnoresTheFirstOnesEcho(t *testing.T) {
	type sent struct {
		after time.Duration // since the previous one
		sig   os.Signal
	}
	for _, tc := range []struct {
		name   string
		sent   []sent
		second os.Signal // nil: none
	}{
		{"SIGINT twice at once", []sent{{0, syscall.SIGINT}, {0, syscall.SIGINT}}, nil},
		{"SIGTERM twice at once", []sent{{0, syscall.SIGTERM}, {0, syscall.SIGTERM}}, nil},
		{"SIGINT again just within the window", []sent{{0, syscall.SIGINT}, {sameSignalWindow - time.Millisecond, syscall.SIGINT}}, nil},
		{"SIGINT echoed, then again past the window", []sent{{0, syscall.SIGINT}, {time.Millisecond, syscall.SIGINT}, {sameSignalWindow, syscall.SIGINT}}, syscall.SIGINT},
		{"SIGINT again past the window", []sent{{0, syscall.SIGINT}, {sameSignalWindow + time.Millisecond, syscall.SIGINT}}, syscall.SIGINT},
		{"SIGINT then SIGTERM at once", []sent{{0, syscall.SIGINT}, {0, syscall.SIGTERM}}, syscall.SIGTERM},
		{"SIGINT again 2 s later", []sent{{0, syscall.SIGINT}, {2 * time.Second, syscall.SIGINT}}, syscall.SIGINT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sigs, done := make(chan os.Signal, 4), make(chan struct{})
				ctx, cancel := context.WithCancelCause(context.Background())
				var got os.Signal
				returned := make(chan struct{})
				go func() { got = secondSignal(sigs, done, cancel); close(returned) }()
				for _, s := range tc.sent {
					time.Sleep(s.after)
					sigs <- s.sig
					synctest.Wait()
				}
				if ctx.Err() == nil {
					t.Fatal("the first signal did not end the context")
				}
				if want := tc.sent[0].sig.String() + " signal received"; context.Cause(ctx).Error() != want {
					t.Errorf("cause %q, want %q", context.Cause(ctx), want)
				}
				time.Sleep(time.Hour) // nothing more comes
				close(done)
				<-returned
				if got != tc.second {
					t.Errorf("second signal %v, want %v", got, tc.second)
				}
			})
		})
	}
}
