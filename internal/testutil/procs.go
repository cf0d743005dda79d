package testutil

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ProcMark returns an environment entry (KEY=VALUE) unique to this call:
// given to the processes a test starts, it is inherited by everything
// they start in turn, so that Marked finds every process of theirs,
// however deep and whoever its parent is now. Its name does not begin
// with STORBENCH_, which storbench keeps from fio.
func ProcMark() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "TEST_PROCS_MARK=" + hex.EncodeToString(b)
}

// Marked lists the live processes whose environment holds mark (zombies,
// which hold nothing and which a PID 1 that does not reap leaves for
// good, are left out), each as "pid (state, parent) command line".
func Marked(mark string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append([]byte{0}, env...), []byte("\x00"+mark+"\x00")) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 2 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, e.Name()+": ("+f[0]+", parent "+f[1]+") "+strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " ")))
	}
	return out
}

// WaitMarked waits until at least n live processes hold mark and each of
// the words is in the command line of one of them, and fails t when that
// is not so within limit.
func WaitMarked(t testing.TB, mark string, n int, limit time.Duration, words ...string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		procs := Marked(mark)
		all := strings.Join(procs, "\n")
		ok := len(procs) >= n
		for _, w := range words {
			ok = ok && strings.Contains(all, w)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("within %v, not %d processes with %v: %v", limit, n, words, procs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// NoneMarkedWithin fails t when a live process but those of pids except
// still holds mark limit after since (polled until then), saying which
// and how long they lived on, and kills them. A limit above 0 is
// stretched by four times the longest wake-up lateness of this process
// seen while it waits (Lateness), at most by Bound: ending a process
// takes a few wake-ups of others (its supervisor's on SIGCHLD, its own to
// die of SIGKILL, its reaper's), each as late as this machine's are, so a
// loaded machine gets that much longer and a quiet one keeps the limit. A
// process left for good outlives any of it.
func NoneMarkedWithin(t testing.TB, mark string, since time.Time, limit time.Duration, except ...int) {
	t.Helper()
	marked := func() []string {
		var out []string
		for _, p := range Marked(mark) {
			pid, _ := strconv.Atoi(strings.SplitN(p, ":", 2)[0])
			if !slices.Contains(except, pid) {
				out = append(out, p)
			}
		}
		return out
	}
	var late *Lateness
	bound := func() time.Duration { return limit }
	if limit > 0 {
		late = StartLateness()
		defer late.Stop()
		bound = func() time.Duration { return limit + min(4*late.Max(), Bound) }
	}
	// A passing wait says its bound, for a reader of go test -v, and
	// when the look that found none began (at: on a loaded machine,
	// reading every process's environment takes a while).
	passed := func(at time.Duration) {
		t.Helper()
		if late != nil {
			t.Logf("a look begun %v after found none, within %v (%v and 4 wake-ups %v late)", at.Round(time.Millisecond),
				bound().Round(time.Millisecond), limit, late.Max().Round(time.Millisecond))
		}
	}
	for at := time.Since(since); at < bound(); at = time.Since(since) {
		if len(marked()) == 0 {
			passed(at)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	at := time.Since(since)
	left := marked()
	if len(left) == 0 {
		passed(at)
		return
	}
	waited := bound()
	// How long they do live says whether they were slow or left for good.
	for len(marked()) > 0 && time.Since(since) < waited+10*time.Second {
		time.Sleep(100 * time.Millisecond)
	}
	why := ""
	if late != nil {
		why = fmt.Sprintf(" (%v and 4 wake-ups %v late)", limit, late.Max().Round(time.Millisecond))
	}
	t.Errorf("%d processes outlived their parent by %v%s: %s (still there %v after: %d)", len(left), waited.Round(time.Millisecond), why,
		strings.Join(left, "; "), time.Since(since).Round(100*time.Millisecond), len(marked()))
	for _, l := range marked() {
		if pid, err := strconv.Atoi(strings.SplitN(l, ":", 2)[0]); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
