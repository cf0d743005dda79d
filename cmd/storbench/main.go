// Command storbench measures storage: file bandwidth, IOPS and latency through
// fio, metadata rates, and S3 object rates, from one client or many.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/storbench/storbench/internal/cli"
	"github.com/storbench/storbench/internal/engine/all"
	"github.com/storbench/storbench/internal/exit"
)

func main() {
	ctx, stop := signalContext()
	defer stop()
	st := cli.NewState(all.Engines())
	// Only storbench writes to the terminal: what libraries log goes
	// where -v shows it.
	log.SetFlags(0)
	log.SetOutput(cli.LibraryLog(st))
	err := cli.Execute(ctx, st, os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, cli.ErrorLine(err))
	}
	os.Exit(cli.ExitCode(err))
}

// signalContext is a context that the first SIGINT or SIGTERM ends, with
// the signal as its cause: commands stop their load and waits, and a run
// cleans up (bounded, with a progress line). A second signal ends the
// process at once, exit 130, saying what that leaves; the same signal
// again within sameSignalWindow is the first one's echo, not a second.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		if s := secondSignal(sigs, done, cancel); s != nil {
			fmt.Fprintf(os.Stderr, "\nstorbench: a second signal (%s): ending at once; what the cleanup had not removed yet stays (files under DIR/storbench/<run id>, objects under storbench/<run id>/), and the results folder keeps what was written\n", sigName(s))
			os.Exit(exit.Interrupted)
		}
	}()
	return ctx, func() {
		close(done)
		signal.Stop(sigs)
		cancel(nil)
	}
}

// sameSignalWindow is how soon after the first signal the same signal
// again is taken for the same request. coreutils timeout(1) sends its
// signal to the child and then to the child's process group, so
// storbench, in that group, gets it twice microseconds apart (a loaded
// machine may put a few scheduler time slices, tens of milliseconds,
// between the two); a shell's job control or a supervisor that signals
// the process and its group does the same. A person who means a second
// Ctrl-C presses it after the first one's line ("stopping the load"),
// which takes more than a visual reaction time (about 200-250 ms); only a
// deliberate double tap comes sooner, and it then takes a third press,
// where taking the echo for a second signal would leave the run's files
// and objects behind.
const sameSignalWindow = 250 * time.Millisecond

// secondSignal waits for the first signal and cancels with it as cause,
// then returns the second one: a different signal, or the same one more
// than sameSignalWindow after the first. It returns nil when done closes
// first.
func secondSignal(sigs <-chan os.Signal, done <-chan struct{}, cancel context.CancelCauseFunc) os.Signal {
	var first os.Signal
	select {
	case first = <-sigs:
		cancel(fmt.Errorf("%s signal received", first))
	case <-done:
		return nil
	}
	at := time.Now()
	for {
		select {
		case s := <-sigs:
			if s != first || time.Since(at) > sameSignalWindow {
				return s
			}
		case <-done:
			return nil
		}
	}
}

// sigName is the signal's name as kill(1) gives it.
func sigName(s os.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}
