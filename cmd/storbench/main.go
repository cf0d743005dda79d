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
// process at once, exit 130, saying what that leaves.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			cancel(fmt.Errorf("%s signal received", s))
		case <-done:
			return
		}
		select {
		case s := <-sigs:
			fmt.Fprintf(os.Stderr, "\nstorbench: a second signal (%s): ending at once; what the cleanup had not removed yet stays (files under DIR/storbench/<run id>, objects under storbench/<run id>/), and the results folder keeps what was written\n", sigName(s))
			os.Exit(exit.Interrupted)
		case <-done:
		}
	}()
	return ctx, func() {
		close(done)
		signal.Stop(sigs)
		cancel(nil)
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
