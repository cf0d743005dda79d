package testutil

import (
	"testing"
	"time"
)

// A second taker waits while the lock is held and gets it once released.
func TestMachineLockIsExclusive(t *testing.T) {
	name := "storbench-lock-test-" + t.Name()
	unlock, err := MachineLock(name, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := MachineLock(name, 300*time.Millisecond); err == nil {
		t.Fatal("the lock was taken twice")
	}
	got := make(chan error, 1)
	go func() {
		u, err := MachineLock(name, time.Minute)
		if err == nil {
			u()
		}
		got <- err
	}()
	unlock()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the lock was not taken within 30 s of its release")
	}
}
