package engine

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// A run that is killed (SIGKILL of the controller, of an agent, a host
// that lost power) leaves what it had made in DIR/storbench: its run
// directory, the marker that it made DIR/storbench, the pin of its shared
// area. Nothing of the run is left to remove them, and a later run cannot
// tell them from those of a run going on at the same time, from another
// controller, on this host or on another client of a shared file system.
//
// So every process that makes something of run R in DIR holds a lease
// there while it has something to remove: the file
// DIR/storbench/.storbench-live-<R>.<token>, which says which process on
// which machine holds it (machineKey, the boot and PID namespace, and the
// process's pid and start time). It is made before anything of R below
// DIR/storbench and removed after the last of it (a workspace removed or
// kept, a pin taken away). A lease whose process is gone was held by a
// run that was killed: the run is stale when each of its leases is, and a
// later run names what it left (FindStale) and, asked to (--remove-stale),
// removes it (RemoveStale). Only a process on the same machine, in the
// same PID namespace, can see that a process is gone: a lease held
// elsewhere, or unreadable, is never taken for dead, so a run going on
// anywhere is never removed.

// leasePrefix starts the name of a lease file in DIR/storbench.
const leasePrefix = ".storbench-live-"

// lease is this process's lease on one run in one target directory.
type lease struct {
	n    int    // workspaces and pins that hold it
	name string // its file's name in DIR/storbench
}

type leaseKey struct{ dir, runID string }

var leases = struct {
	sync.Mutex
	held  map[leaseKey]*lease
	pins  map[leaseKey]bool // the pins this process holds a lease for
	token string
}{held: map[leaseKey]*lease{}, pins: map[leaseKey]bool{}}

// leaseToken tells this process's leases apart from other processes' in
// one directory; leases.mu is held.
func leaseToken() string {
	if leases.token == "" {
		var b [4]byte
		_, _ = rand.Read(b[:])
		leases.token = strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b[:])
	}
	return leases.token
}

// takeLease takes (or holds once more) this process's lease on runID in
// dir, whose DIR/storbench is open at topfd. A lease that cannot be
// written is no error: the run goes on, and only a later run's notice of
// it, should this one be killed, is lost.
func takeLease(dir, runID string, topfd int) bool {
	leases.Lock()
	defer leases.Unlock()
	k := leaseKey{dir, runID}
	if l := leases.held[k]; l != nil {
		l.n++
		return true
	}
	name := leasePrefix + runID + "." + leaseToken()
	// Written whole under another name, then renamed: a process killed
	// while writing leaves no lease that cannot be read (which FindStale
	// could never judge), only that file (leaseWriting).
	tmp := name + leaseWriting
	fd, err := unix.Openat(topfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return false
	}
	f := os.NewFile(uintptr(fd), tmp)
	_, err = f.WriteString(holderLine())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(topfd, tmp, topfd, name)
	}
	if err != nil {
		_ = unix.Unlinkat(topfd, tmp, 0)
		return false
	}
	leases.held[k] = &lease{n: 1, name: name}
	return true
}

// leaseWriting ends the name of a lease being written.
const leaseWriting = "~"

// dropLease gives up one hold on this process's lease on runID in dir,
// and removes the lease with the last.
func dropLease(dir, runID string) {
	leases.Lock()
	defer leases.Unlock()
	k := leaseKey{dir, runID}
	l := leases.held[k]
	if l == nil {
		return
	}
	if l.n--; l.n > 0 {
		return
	}
	delete(leases.held, k)
	top := levelsOf(dir, "storbench")
	if fd, err := top.open(); err == nil {
		_ = unix.Unlinkat(fd, l.name, 0)
		unix.Close(fd)
	}
}

// pinLease marks a hold on the lease as the pin's, for unpinLease; false
// when the pin holds one already (the caller drops its own).
func pinLease(dir, runID string) bool {
	leases.Lock()
	defer leases.Unlock()
	k := leaseKey{dir, runID}
	if leases.pins[k] {
		return false
	}
	leases.pins[k] = true
	return true
}

// unpinLease drops the hold the pin of runID's shared area on dir has,
// when this process pinned it.
func unpinLease(dir, runID string) {
	leases.Lock()
	k := leaseKey{dir, runID}
	had := leases.pins[k]
	delete(leases.pins, k)
	leases.Unlock()
	if had {
		dropLease(dir, runID)
	}
}

// holder says who holds a lease: written in it, read back by FindStale.
type holder struct {
	machine string // machineKey: boot and PID namespace
	host    string
	pid     int
	start   string // the process's start time, in the kernel's ticks since boot
}

func holderLine() string {
	h, _ := os.Hostname()
	return fmt.Sprintf("machine=%s host=%s pid=%d start=%s\n", machineKey(), h, os.Getpid(), processStart(os.Getpid()))
}

func parseHolder(b []byte) (holder, bool) {
	var h holder
	for _, f := range strings.Fields(string(b)) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "machine":
			h.machine = v
		case "host":
			h.host = v
		case "pid":
			h.pid, _ = strconv.Atoi(v)
		case "start":
			h.start = v
		}
	}
	return h, h.machine != "" && h.pid > 0 && h.start != ""
}

// gone says whether h's process has ended: provably, on this machine and
// in this PID namespace, never for a holder elsewhere (false, with why
// it cannot tell).
func (h holder) gone() (bool, string) {
	if me := machineKey(); me == "" || h.machine != me {
		return false, "held by a process on " + h.host + ", which this host cannot see"
	}
	if s := processStart(h.pid); s == h.start {
		return false, fmt.Sprintf("held by process %d on %s, which is running", h.pid, h.host)
	}
	return true, ""
}
