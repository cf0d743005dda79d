package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/safetext"
	"github.com/storbench/storbench/internal/units"
)

// S3EndpointsFile is the raw file in which the s3 engine leaves per-endpoint
// statistics (endpoint -> []record.OpStats) when it used several endpoints.
// It equals s3.EndpointsFile; a test keeps them equal.
const S3EndpointsFile = "s3-endpoints.json"

// S3Text writes an s3 phase the way warp prints a benchmark: per operation
// the average MiB/s and obj/s over the measured window, the fastest, median
// and slowest 1-second segments, request time and time to first byte from
// the merged histograms, per endpoint figures when there were several, and
// errors by kind. Timestamps are printed in loc (nil: UTC).
func S3Text(w io.Writer, ps *results.PhaseSummary, hosts []*model.HostResult, loc *time.Location) {
	ps, hosts = safetext.Copy(ps), safetext.Copy(hosts)

	if loc == nil {
		loc = time.UTC
	}
	if ps.Status != results.StatusCompleted && ps.Error != "" {
		fmt.Fprintf(w, "%s: %s\n", ps.Status, ps.Error)
	}
	if len(ps.LostHosts) > 0 {
		fmt.Fprintf(w, "lost hosts: %s\n", strings.Join(ps.LostHosts, ", "))
	}
	series, endpoints, meta := s3HostData(hosts)
	var total uint64
	for _, o := range ps.Ops {
		total += o.Ops
	}
	for _, o := range ps.Ops {
		fmt.Fprintln(w, "----------------------------------------")
		head := fmt.Sprintf("Operation: %s (%d requests", o.Op, o.Ops)
		if len(ps.Ops) > 1 && total > 0 {
			head += fmt.Sprintf(", %.1f%% of operations", 100*float64(o.Ops)/float64(total))
		}
		head += ")."
		if c := meta["concurrent"]; c != "" {
			head += " Concurrency: " + c + "."
		}
		if len(ps.Hosts) > 1 {
			head += fmt.Sprintf(" Clients: %d.", len(ps.Hosts))
		}
		fmt.Fprintln(w, head)
		fmt.Fprintf(w, "* Average: %s (%s)\n", figRates(o.BwBytesPerS, o.OpsPerS, "obj/s"), seconds(o.DurationS))
		if seg, ok := analyze.Segments(series, o.Op, time.Second); ok {
			fmt.Fprintf(w, "\nThroughput, split into %d x 1s:\n", seg.N)
			for _, s := range []struct {
				name string
				seg  analyze.Segment
			}{{"Fastest", seg.Fastest}, {"50% Median", seg.Median}, {"Slowest", seg.Slowest}} {
				fmt.Fprintf(w, " * %s: %s (starting %s)\n", s.name, rates(s.seg.BytesPerS(), s.seg.OpsPerS()),
					time.Unix(0, s.seg.StartNs).In(loc).Format("15:04:05 MST"))
			}
		}
		if o.Ops > 0 {
			fmt.Fprintf(w, "\nRequests considered: %d:\n", o.Ops)
			if o.Lat == nil {
				fmt.Fprintf(w, " * %s\n", notRecorded(ps.TextFormats()))
			} else {
				fmt.Fprintf(w, " * %s\n", latLine(*o.Lat))
			}
			if o.TTFB != nil {
				fmt.Fprintf(w, " * First byte: %s\n", latLine(*o.TTFB))
			}
		}
		s3BySize(w, o)
		if len(endpoints) > 1 {
			s3ByEndpoint(w, o.Op, endpoints)
		}
		if o.Errors > 0 {
			fmt.Fprintf(w, "\nErrors: %d (%s)\n", o.Errors, s3kinds(o.ErrorKinds))
		}
	}
	if sz := meta["obj_sizes"]; sz != "" {
		fmt.Fprintf(w, "\nObject sizes: %s; a ranged GET counts in its object's size class.\n", sz)
	}
	if d := meta["dropped_starts"]; d != "" && d != "0" {
		fmt.Fprintf(w, "\nOpen loop at %s requests/s: %s scheduled starts were dropped (the client could not keep up; latency counts from the scheduled start)\n", meta["rate_ops_per_s"], d)
	}
	if by := meta["stopped_by"]; by == model.StoppedByAutoterm {
		fmt.Fprintln(w, "\nStopped by --autoterm: throughput was stable. Compare medians, not averages, across autoterminated runs.")
	}
}

// s3HostData gathers the hosts' per-second series, their per-endpoint
// figures (combined across hosts) and their notes.
func s3HostData(hosts []*model.HostResult) ([]record.Second, map[string][]record.OpStats, map[string]string) {
	var series []record.Second
	endpoints := map[string][]record.OpStats{}
	meta := map[string]string{}
	for _, h := range hosts {
		if h == nil {
			continue
		}
		series = append(series, h.Series...)
		if b := h.Raw[S3EndpointsFile]; len(b) > 0 {
			var per map[string][]record.OpStats
			if json.Unmarshal(b, &per) == nil {
				for ep, ops := range per {
					endpoints[ep] = record.CombineAll(endpoints[ep], ops)
				}
			}
		}
		for k, v := range h.Meta {
			meta[k] = v
		}
	}
	return series, endpoints, meta
}

// s3BySize writes an operation's figures per object size class.
func s3BySize(w io.Writer, o results.OpSummary) {
	if len(o.BySize) == 0 {
		return
	}
	fmt.Fprintln(w, "\nThroughput by object size:")
	for _, c := range o.BySize {
		fmt.Fprintf(w, " * %s: %s, %d requests", c.Size.Label, figRates(c.BwBytesPerS, c.OpsPerS, "obj/s"), c.Ops)
		if o.Ops > 0 {
			fmt.Fprintf(w, " (%.1f%%)", 100*float64(c.Ops)/float64(o.Ops))
		}
		if c.Errors > 0 {
			fmt.Fprintf(w, ", %d errors", c.Errors)
		}
		fmt.Fprintln(w)
		if c.Lat != nil {
			fmt.Fprintf(w, "     - %s\n", latLine(*c.Lat))
		}
		if c.TTFB != nil {
			fmt.Fprintf(w, "     - First byte: %s\n", latLine(*c.TTFB))
		}
	}
}

// s3ByEndpoint writes operation op's figures per endpoint.
func s3ByEndpoint(w io.Writer, op string, endpoints map[string][]record.OpStats) {
	fmt.Fprintln(w, "\nThroughput by endpoint:")
	eps := make([]string, 0, len(endpoints))
	for ep := range endpoints {
		eps = append(eps, ep)
	}
	sort.Strings(eps)
	for _, ep := range eps {
		for _, eo := range endpoints[ep] {
			if eo.Op != op {
				continue
			}
			s := results.Op(eo)
			fmt.Fprintf(w, " * %s: %s, %d requests", ep, figRates(s.BwBytesPerS, s.OpsPerS, "obj/s"), s.Ops)
			if s.Errors > 0 {
				fmt.Fprintf(w, ", %d errors", s.Errors)
			}
			fmt.Fprintln(w)
			if s.Lat != nil {
				fmt.Fprintf(w, "     - %s\n", latLine(*s.Lat))
			}
		}
	}
}

// rates prints "94.10 MiB/s, 9866.97 obj/s" (obj/s alone when no data moved).
func rates(bytesPerS, opsPerS float64) string {
	if bytesPerS <= 0 {
		return fmt.Sprintf("%.2f obj/s", opsPerS)
	}
	return fmt.Sprintf("%.2f MiB/s, %.2f obj/s", bytesPerS/(1<<20), opsPerS)
}

func seconds(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond).String()
}

func latLine(l results.LatencySummary) string {
	return fmt.Sprintf("Avg: %s, 50%%: %s, 90%%: %s, 99%%: %s, 99.9%%: %s, Fastest: %s, Slowest: %s, StdDev: %s",
		units.Latency(l.MeanNs), s3lat(l.P50Ns), s3lat(l.P90Ns), s3lat(l.P99Ns), s3lat(l.P999Ns), s3lat(l.MinNs), s3lat(l.MaxNs), units.Latency(l.StddevNs))
}

func s3lat(ns int64) string { return units.Latency(float64(ns)) }

func s3kinds(m map[string]uint64) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if m[ks[i]] != m[ks[j]] {
			return m[ks[i]] > m[ks[j]]
		}
		return ks[i] < ks[j]
	})
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = fmt.Sprintf("%s: %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
