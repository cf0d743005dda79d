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
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	st := cli.NewState(all.Engines())
	// Only storbench writes to the terminal: what libraries log goes
	// where -v shows it.
	log.SetFlags(0)
	log.SetOutput(cli.LibraryLog(st))
	err := cli.Execute(ctx, st, os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "storbench: %v\n", err)
	}
	os.Exit(cli.ExitCode(err))
}
