package fio

import "time"

// How storbench asks fio for its status while a phase runs. fio's own
// --status-interval timer prints the status every second whatever the
// last one cost: its status thread holds fio's statistics lock (stat_sem)
// while it collects every running job's figures, formats them and writes
// them to storbench's pipe, and on a starved machine one status can take
// longer than the interval, so the next begins as soon as the last ends
// and the lock is almost never free. A job that ends waits for that lock
// (fio 3.33 backend.c thread_main: a trylock every millisecond, 5,000
// times) and, not getting it, fails with "fio seems to be stuck grabbing
// stat_sem, forcibly exiting" (err=35), and the phase with it. storbench
// asks instead (SIGUSR1, which fio answers with the very status its
// timer prints: the same JSON object), about once a second, never while
// an answer is awaited, and after each answer waits at least as long as
// that answer took: the lock is free at least half the time, however
// slow the machine.

// statusEvery is how often fio is asked for its status when answers come
// at once.
const statusEvery = time.Second

// askStatus asks fio for its status from now until stop or exited is
// closed. ready says fio answers SIGUSR1 (its handler is set: before, the
// signal's default action would end fio); ask sends the signal; answered
// hears that a status was read and taken in.
func askStatus(ready func() bool, ask func() error, answered, stop, exited <-chan struct{}) {
	t := time.NewTimer(statusEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-stop:
			return
		case <-exited:
			return
		}
		if !ready() {
			t.Reset(statusEvery / 10)
			continue
		}
		select { // an answer not asked for (fio's last output) is no answer
		case <-answered:
		default:
		}
		sent := time.Now()
		if ask() != nil {
			return
		}
		select {
		case <-answered:
		case <-stop:
			return
		case <-exited:
			return
		}
		took := time.Since(sent)
		t.Reset(max(statusEvery-took, took))
	}
}
