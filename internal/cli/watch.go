package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/metrics"
	"github.com/storbench/storbench/internal/run"
)

// WatchOptions are the flags of run, fio, md and s3 that let a run be
// watched while it runs, and say what the command prints.
type WatchOptions struct {
	// MetricsListen serves the controller's metrics there ("" : none).
	MetricsListen string
	// Live is the file the live stream goes to ("-": stdout).
	Live string
	// JSON prints summary.json to stdout at the end, and nothing else
	// there.
	JSON bool
	// Quiet prints only errors.
	Quiet bool
	// Format prints the run at the end as the field's tool named prints
	// it (mdtest, ior), on stdout, and the text on stderr.
	Format string
	// Catalog is where the run is indexed, and its labels.
	Catalog RunCatalogOptions
	// Limits are limits on figures, PHASE/OP/FIGURE<VALUE (--limit): a
	// figure that crosses one ends the run with exit 4.
	Limits []string
}

// AddFlags registers the options' flags.
func (o *WatchOptions) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&o.MetricsListen, "metrics-listen", "", "serve Prometheus metrics of every host under /metrics at this address while the run runs (a bare :PORT is loopback; another address needs --token-file, sent as a bearer token)")
	f.StringVar(&o.Live, "live", "", "write one JSON line per second per host and one for the total to this file (- for stdout), for tail -f or a program")
	f.BoolVar(&o.JSON, "json", false, "print the run's summary.json to stdout at the end (the text goes to stderr)")
	f.BoolVarP(&o.Quiet, "quiet", "q", false, "print only errors")
	o.Catalog.AddFlags(f)
	f.StringArrayVar(&o.Limits, "limit", nil, "a limit a figure must keep, PHASE/OP/FIGURE<VALUE or >VALUE (also <=, >=): randread/read/p99<5ms, md/file-create/rate>20k, seq-read/read/bw>1.5GiB/s; FIGURE one of rate, bw, mean, p50, p99, p99.9, errors; repeat for more. A figure that crosses one, or is not measured, ends the run with exit 4 once every phase ran (docs/limits.md)")
	f.StringVar(&o.Format, "output-format", "", "at the end, print the run to stdout as the tool named prints one, for scripts that parse its text: ior (IOR's report of the fio phases), mdtest (md phases), json or json+ (fio's own JSON, one document per fio phase and host); storbench's own text goes to stderr")
}

// watch is what a run is watched through: its sinks besides the text, and
// what to close when it ends.
type watch struct {
	sinks    []run.Sink
	live     *metrics.Live
	stopHTTP func()
	scrapes  *scrapeClock
}

// start checks the options and opens what they ask for, before any load:
// a metrics port that is taken and a live file that cannot be made are bad
// input.
func (o WatchOptions) start(ctx context.Context, st *State, p run.Plan) (*watch, error) {
	w := &watch{stopHTTP: func() {}}
	if o.Live == "-" && o.JSON {
		return nil, usageErr("--live - and --json both want stdout: give --live a file")
	}
	if err := checkFieldFormat(o.Format); err != nil {
		return nil, err
	}
	if o.Format != "" && (o.JSON || o.Live == "-") {
		return nil, usageErr("--output-format and --json (or --live -) both want stdout: give one")
	}
	if o.Live != "" {
		open, err := liveOpener(st, o.Live)
		if err != nil {
			return nil, err
		}
		w.live = &metrics.Live{Open: open, Now: st.Now}
		w.sinks = append(w.sinks, w.live)
	}
	if o.MetricsListen == "" {
		return w, nil
	}
	token := ""
	if p.Agents.TokenFile != "" {
		t, err := cluster.ReadToken(p.Agents.TokenFile)
		if err == nil {
			err = cluster.CheckToken("--token-file "+p.Agents.TokenFile, t)
		}
		if err != nil {
			return nil, asUsage(err)
		}
		token = t
	}
	ln, need, err := metrics.Listen("--metrics-listen", loopbackPort(o.MetricsListen), token)
	if err != nil {
		return nil, asUsage(err)
	}
	reg := metrics.NewRegistry()
	w.sinks = append(w.sinks, &metrics.Sink{Registry: reg})
	w.scrapes = &scrapeClock{}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = metrics.Serve(sctx, ln, w.scrapes.wrap(metrics.Handler(reg, need)))
	}()
	w.stopHTTP = func() { cancel(); <-done }
	st.logf(1, "metrics on http://%s%s", ln.Addr(), metrics.Path)
	return w, nil
}

// close ends the live stream and, once a scraper has had the run's last
// figures (or waited long enough), the metrics server; an interrupted run
// (ctx ended) does not wait for the scrape.
func (w *watch) close(ctx context.Context, st *State) {
	end := time.Now()
	if w.live != nil {
		if dropped, err := w.live.Close(); err != nil {
			st.logf(0, "warning: --live: %v", err)
		} else if dropped > 0 {
			st.logf(0, "warning: --live: %d lines were dropped: the reader was too slow, or there was none", dropped)
		}
	}
	if w.scrapes != nil && ctx.Err() == nil {
		w.scrapes.awaitOne(st, end)
	}
	w.stopHTTP()
}

// loopbackPort makes a bare :PORT or PORT a loopback address.
func loopbackPort(addr string) string {
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	if strings.HasPrefix(addr, ":") {
		return "127.0.0.1" + addr
	}
	return addr
}

// liveOpener checks the live stream's file and returns what opens it when
// the run starts. Only a new file is made (its folder must exist, and be
// writable), as for --benchdata: an existing file or a symbolic link is
// refused rather than truncated (or written wherever the link leads). A
// FIFO or a character device (a terminal, /dev/null) is written without
// ever blocking the run (metrics.PipeWriter): a FIFO without a reader
// costs lines, counted, not a run that waits for one.
func liveOpener(st *State, file string) (func() (io.WriteCloser, error), error) {
	if file == "-" {
		return func() (io.WriteCloser, error) { return nopCloser{st.Stdout}, nil }, nil
	}
	if fi, err := os.Lstat(file); err == nil {
		switch m := fi.Mode(); {
		case m&os.ModeSymlink != 0:
			return nil, usageErr("--live %s is a symbolic link: give a new file name (storbench writes only files it creates), - for stdout, or a FIFO", file)
		case m.IsDir():
			return nil, usageErr("--live %s is a folder: give a file", file)
		case m.IsRegular():
			return nil, usageErr("--live %s: the file exists; give a new file name (storbench writes only files it creates), - for stdout, or a FIFO", file)
		case m&os.ModeNamedPipe != 0, m&os.ModeCharDevice != 0:
			return func() (io.WriteCloser, error) { return metrics.OpenPipe(file) }, nil
		default:
			return nil, usageErr("--live %s is neither a file storbench can make nor a FIFO: give a new file name, - for stdout, or a FIFO", file)
		}
	}
	dir := filepath.Dir(file)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, usageErr("--live %s: the folder %s does not exist: create it or give another file", file, dir)
	}
	if err := syscall.Access(dir, 2 /* W_OK */); err != nil {
		return nil, usageErr("--live %s: cannot write in %s: %v", file, dir, err)
	}
	return func() (io.WriteCloser, error) {
		// O_EXCL: a file made since the check is not taken over.
		return os.OpenFile(file, os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o644)
	}, nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// textState is the State the text of a run is printed through: stdout,
// or stderr when stdout carries JSON, or nowhere with --quiet.
func (o WatchOptions) textState(st *State) *State {
	out, errw, tty := st.Stdout, st.Stderr, st.TTY
	switch {
	case o.Quiet:
		out, errw, tty = io.Discard, io.Discard, false
	case o.JSON || o.Live == "-" || o.Format != "":
		out, tty = st.Stderr, false
	default:
		return st
	}
	return &State{Stdout: out, Stderr: errw, Getenv: st.Getenv, Now: st.Now, TTY: tty, Args: st.Args, Verbosity: st.Verbosity, Engines: st.Engines}
}

// printJSON writes the run's summary.json to stdout, as the folder has it.
func printJSON(st *State, res *run.Result) error {
	b, err := os.ReadFile(filepath.Join(res.Folder.Path, "summary.json"))
	if err != nil {
		return fmt.Errorf("--json: %v", err)
	}
	_, err = st.Stdout.Write(b)
	return err
}

// scrapeClock notes when the metrics were scraped, so a controller can
// wait for the scrape that takes the run's last figures.
type scrapeClock struct {
	ch chan time.Time
}

// wrap notes each scrape of h at its start: the figures a scrape takes
// are those of when it began, so one that began before the run's end and
// ended after it does not hold the last figures.
func (c *scrapeClock) wrap(h http.Handler) http.Handler {
	c.ch = make(chan time.Time, 1024)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		began := time.Now()
		h.ServeHTTP(w, r)
		select {
		case c.ch <- began:
		default:
		}
	})
}

// maxScrapeWait bounds the wait for a last scrape.
const maxScrapeWait = 60 * time.Second

// awaitOne waits, when something has been scraping, for a scrape after
// end: up to twice the interval seen between the last two (at most
// maxScrapeWait), so the run's final counts reach the scraper.
func (c *scrapeClock) awaitOne(st *State, end time.Time) {
	var last, prev time.Time
	for drained := false; !drained; {
		select {
		case t := <-c.ch:
			prev, last = last, t
		default:
			drained = true
		}
	}
	if prev.IsZero() || last.After(end) {
		return // nobody is watching, or the scraper has the last figures
	}
	wait := min(2*last.Sub(prev), maxScrapeWait)
	st.logf(1, "waiting up to %s for the metrics' last scrape", wait.Round(time.Millisecond))
	select {
	case <-c.ch:
	case <-time.After(wait):
	}
}
