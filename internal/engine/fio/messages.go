package fio

import (
	"fmt"
	"regexp"
	"strings"
	"syscall"

	"github.com/storbench/storbench/internal/cpuload"
)

// What storbench says when fio fails: fio's own lines picked out of its
// output, kept short.

// fioMessage picks fio's own words out of its stderr: the lines that say what
// went wrong, joined on one line.
func fioMessage(stderr string, err error) string {
	if m := errorLines(strings.Split(stderr, "\n")); m != "" {
		return m
	}
	if s := strings.TrimSpace(stderr); s != "" {
		return firstLine(s)
	}
	return err.Error()
}

// failure says why a fio run failed, in fio's words: its error lines from
// stderr and from stdout (where fio's job processes print theirs, among the
// JSON), and the errno of the first failed job from the JSON when those lines
// do not already say it. err (fio's exit status) is the last resort.
func failure(stderr string, stdoutOther []string, job string, errno int, err error) string {
	msg := errorLines(append(strings.Split(stderr, "\n"), stdoutOther...))
	if errno != 0 {
		reason := syscall.Errno(errno).Error()
		switch {
		case msg == "":
			msg = reason
		case !strings.Contains(strings.ToLower(msg), strings.ToLower(reason)):
			msg += "; " + reason
		}
		msg = "job " + job + ": " + msg
	}
	if msg == "" {
		if s := strings.TrimSpace(stderr); s != "" {
			return firstLine(s)
		}
		if err == nil {
			return "fio reported an error"
		}
		return err.Error()
	}
	return msg
}

// pidLine is fio's per-process error line: "fio: pid=123, err=28/file:
// filesetup.c:240, func=write, error=No space left on device".
var pidLine = regexp.MustCompile(`^fio: pid=\d+, err=\d+/[^,]*, func=([^,]*), error=(.*)$`)

// errorLines joins, on one line, up to three distinct lines of fio's that
// say what went wrong, each without the "fio: " prefix, a per-process error
// line shortened to "func: error".
func errorLines(lines []string) string {
	var picked []string
	seen := map[string]bool{}
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if m := pidLine.FindStringSubmatch(l); m != nil {
			l = m[1] + ": " + m[2]
		} else if !strings.Contains(l, "fio:") && !strings.HasPrefix(l, "verify:") && !strings.Contains(l, "verify failed") && !strings.Contains(strings.ToLower(l), "error") && !strings.Contains(l, "bad option") {
			continue
		}
		l = strings.TrimPrefix(l, "fio: ")
		if l == "" || seen[l] {
			continue
		}
		seen[l] = true
		picked = append(picked, l)
		if len(picked) == 3 {
			break
		}
	}
	return strings.Join(picked, "; ")
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// statSemLine is what fio says when a job that ended could not take fio's
// statistics lock (stat_sem) in 5,000 tries a millisecond apart: the lock
// was held all that time by fio's status thread, which a starved machine
// runs slowly (status.go). The job fails with EDEADLK (err=35).
const statSemLine = "stuck grabbing stat_sem"

// gaveUpStarved says, in short, that fio gave up for want of CPU ("" when
// it did not): its stat_sem line, on standard error or among the lines of
// its standard output.
func gaveUpStarved(stderr string, stdoutOther []string, errno int) string {
	if !strings.Contains(stderr, statSemLine) && !strings.Contains(strings.Join(stdoutOther, "\n"), statSemLine) {
		return ""
	}
	if errno == 0 {
		errno = int(syscall.EDEADLK)
	}
	return fmt.Sprintf("fio gave up: %q (err=%d)", "fio seems to be "+statSemLine, errno)
}

// starvedMessage words fio's giving up (said) for the user: the cause is
// the machine's CPU, with the load it saw, not the storage.
func starvedMessage(said string) string {
	load := ""
	if perCPU, cpus, ok := cpuload.Now(); ok {
		load = fmt.Sprintf(" at a load average of %.1f per CPU (%d CPUs)", perCPU, cpus)
	}
	return "this host's CPU was starved" + load + ": fio's jobs could not take fio's statistics lock, which its status thread held for want of CPU (" + said + "); the storage did not fail, and the phase's figures are not kept"
}
