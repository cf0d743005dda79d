// Command latsize measures the per-second latency files of results folders
// (hosts/<host>/latency-seconds.zst): for every phase, host and operation,
// the seconds with a histogram, their bins, and the file's compressed
// bytes per operation-second, and what that comes to for an operation
// that runs for an hour on 64 hosts (3600 x 64 operation-seconds).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
)

func main() {
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: latsize RESULTS_FOLDER...")
		os.Exit(2)
	}
	for _, dir := range flag.Args() {
		if err := measure(dir); err != nil {
			fmt.Fprintln(os.Stderr, "latsize:", err)
			os.Exit(1)
		}
	}
}

func measure(dir string) error {
	sum, err := results.ReadSummary(dir)
	if err != nil {
		return err
	}
	for _, p := range sum.Phases {
		for _, h := range p.Hosts {
			b, err := results.ReadHostLatency(dir, p.Dir, h)
			if err != nil {
				return err
			}
			if len(b) == 0 {
				fmt.Printf("%s %s: no per-second latency\n", p.Name, h)
				continue
			}
			secs, err := record.DecodeLatSeconds(b)
			if err != nil {
				return fmt.Errorf("%s: %v", filepath.Join(dir, p.Dir, "hosts", h, record.LatSecondsFile), err)
			}
			type acc struct{ n, bins, ops int }
			by := map[string]*acc{}
			for _, s := range secs {
				a := by[s.Op]
				if a == nil {
					a = &acc{}
					by[s.Op] = a
				}
				a.n++
				a.bins += len(s.Bins)
				a.ops += int(s.Bins.Total())
			}
			ops := make([]string, 0, len(by))
			for op := range by {
				ops = append(ops, op)
			}
			sort.Strings(ops)
			per := float64(len(b)) / float64(len(secs))
			fmt.Printf("%s %s: %d bytes for %d operation-seconds: %.0f B per operation-second, %.0f MB for an operation running 1 h on 64 hosts\n",
				p.Name, h, len(b), len(secs), per, per*3600*64/1e6)
			for _, op := range ops {
				a := by[op]
				fmt.Printf("  %-12s %5d seconds, %6.0f requests and %5.0f bins per second\n", op, a.n, float64(a.ops)/float64(a.n), float64(a.bins)/float64(a.n))
			}
		}
	}
	return nil
}
