package fio

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// statusText is one of fio's outputs as --status-interval prints it: an
// object opened and closed by a brace alone on its line, fio's time
// (timestamp_ms) and a job's cumulative writes.
func statusText(t *testing.T, tsMs int64, ios uint64) string {
	t.Helper()
	b, err := json.MarshalIndent(map[string]any{"fio version": "fio-3.33", "timestamp_ms": tsMs,
		"jobs": []map[string]any{{"jobname": "w", "write": map[string]any{"total_ios": ios, "io_bytes": ios << 16}}}}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// A starved agent reads fio's statuses late: here all of them at once,
// 20 s after the phase began, the last after fio's end (issue 37). Each
// status holds fio's counts at fio's own time (timestamp_ms), so each
// interval of the series ends there: every interval is at the job's 64
// ops/s and the last ends at fio's end, inside the job's window. Before,
// an interval ended when the agent read its status: the first held 52
// operations over 20 s, the rest none over a few microseconds, and the
// last lay after fio's end, outside the job's window, where the report
// drew its second at 0 ops/s (TestReportDrawsTheClientInChromium: "point
// 5 of 6 is 0.00x the median") and its operations went missing from the
// chart's sum (TestFioJobsWithoutGroupReporting: 224 of 1536).
func TestSeriesAtFioStatusTimes(t *testing.T) {
	began := time.Now().Add(-20 * time.Second).Truncate(time.Millisecond)
	t0 := began.UnixMilli()
	// fio's statuses about every second at 64 writes a second, and its
	// final output when the job ended, 5.01 s in.
	marks := []struct {
		ms  int64
		ios uint64
	}{{810, 52}, {1817, 117}, {2829, 181}, {3817, 245}, {4841, 310}, {5010, 320}}
	var text strings.Builder
	for _, m := range marks {
		text.WriteString(statusText(t, t0+m.ms, m.ios))
	}
	f := &fioRun{stdout: io.NopCloser(strings.NewReader(text.String())), stderr: &stderrLog{}, res: &engine.HostResult{}}
	f.begun.Store(&begin{at: began})
	(&prepared{}).follow(f)
	if f.splitErr != nil {
		t.Fatal(f.splitErr)
	}
	series := f.res.Series
	if len(series) != len(marks) {
		t.Fatalf("%d intervals in the series, want one per status (%d): %+v", len(series), len(marks), series)
	}
	var n uint64
	for _, s := range series {
		n += s.Ops
		from, to := float64(s.StartNs-began.UnixNano())/1e9, float64(s.EndNs-began.UnixNano())/1e9
		if rate := float64(s.Ops) / (to - from); to <= from || rate < 0.85*64 || rate > 1.15*64 {
			t.Errorf("%d writes in [%.3f, %.3f) s after the phase began: %.1f ops/s, the job wrote 64 a second", s.Ops, from, to, rate)
		}
	}
	if end := series[len(series)-1].EndNs; n != 320 || end != (t0+5010)*1e6 {
		t.Errorf("%d writes, the last at %.3f s after the phase began; want 320, the last at fio's end, 5.010 s", n, float64(end-began.UnixNano())/1e9)
	}
}

// fio's running status copies a job's io_bytes before it reads its
// total_ios, so a status's bytes may lag its operations (seen: 309 of 312
// writes' bytes, numjobs=2, bs=64k); the final output agrees. The bytes
// then catch up in an interval that may hold no new operation, and the
// series keeps them: its bytes add up to the job's. Before, an interval
// without a new operation was dropped with its bytes, and a report's
// throughput chart added up to 682 of 706 writes' bytes
// (TestFioJobsWithoutGroupReporting/numjobs=2/charts).
func TestLaggingBytesKeptInTheSeries(t *testing.T) {
	out := func(ios, writesOfBytes uint64) *Output {
		return &Output{Jobs: []JobOut{{Name: "w", Write: DirOut{TotalIOs: ios, IOBytes: writesOfBytes << 16}}}}
	}
	var p perSecond
	p.add(out(312, 309), 0, 1e9)
	p.add(out(312, 312), 1e9, 2e9) // the final output: no new write, 3 writes' bytes
	series, _ := p.result(out(312, 312))
	var ops, bytes uint64
	for _, s := range series {
		ops, bytes = ops+s.Ops, bytes+s.Bytes
	}
	if ops != 312 || bytes != 312<<16 {
		t.Errorf("the series holds %d writes and %d writes' bytes; want 312 and 312", ops, bytes>>16)
	}
}

// A job that did nothing for an interval between two that did (its fio
// starved, or the storage stalled) stalled in that time: the interval
// stays in the series with no operation, so that the second's rate is
// over the time the job ran, not only the time it made progress (a middle
// second of 233 writes had 256.8 ops/s, 0.09 s of stall left out).
// Intervals after a job's last operation are its end, not a stall.
func TestStallInsideAJobKeepsItsTime(t *testing.T) {
	out := func(ios uint64) *Output {
		return &Output{Jobs: []JobOut{{Name: "w", Write: DirOut{TotalIOs: ios, IOBytes: ios << 12}}}}
	}
	var p perSecond
	p.add(out(100), 0, 1e9)
	p.add(out(100), 1e9, 15e8) // nothing done: a stall
	p.add(out(150), 15e8, 2e9)
	p.add(out(150), 2e9, 3e9) // the job had ended
	series, _ := p.result(out(150))
	var covered int64
	var ops uint64
	for _, s := range series {
		covered += s.EndNs - s.StartNs
		ops += s.Ops
	}
	if covered != 2e9 || ops != 150 {
		t.Errorf("the series covers %.1f s with %d writes; want 2.0 s (the stall in, the end out) and 150", float64(covered)/1e9, ops)
	}
}
