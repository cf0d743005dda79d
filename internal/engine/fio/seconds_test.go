package fio

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
)

// followed is what follow makes of fio's outputs text, read after a phase
// that began at began (jf: the job file, or nil).
func followed(t *testing.T, began time.Time, text string, jf *JobFile) *engine.HostResult {
	t.Helper()
	f := &fioRun{stdout: io.NopCloser(strings.NewReader(text)), stderr: &stderrLog{}, res: &engine.HostResult{}, ran: ran{jf: jf}}
	f.begun.Store(&begin{at: began})
	(&prepared{}).follow(f)
	if f.splitErr != nil {
		t.Fatal(f.splitErr)
	}
	return f.res
}

// atRate fails t for each interval of series not at rate ops/s (within
// 15%), and returns their operations.
func atRate(t *testing.T, series []record.Second, began time.Time, rate float64) uint64 {
	t.Helper()
	var n uint64
	for _, s := range series {
		n += s.Ops
		from, to := float64(s.StartNs-began.UnixNano())/1e9, float64(s.EndNs-began.UnixNano())/1e9
		if r := float64(s.Ops) / (to - from); to <= from || r < 0.85*rate || r > 1.15*rate {
			t.Errorf("%d writes in [%.3f, %.3f) s after the phase began: %.1f ops/s, the jobs wrote %g a second", s.Ops, from, to, r, rate)
		}
	}
	return n
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
	marks := []struct{ ms, ios int64 }{{810, 52}, {1817, 117}, {2829, 181}, {3817, 245}, {4841, 310}, {5010, 320}}
	var text strings.Builder
	for _, m := range marks {
		text.WriteString(fioStatus(t, t0+m.ms, [2]int64{m.ios, 0}))
	}
	series := followed(t, began, text.String(), nil).Series
	if len(series) != len(marks) {
		t.Fatalf("%d intervals in the series, want one per status (%d): %+v", len(series), len(marks), series)
	}
	n := atRate(t, series, began, 64)
	if end := series[len(series)-1].EndNs; n != 320 || end != (t0+5010)*1e6 {
		t.Errorf("%d writes, the last at %.3f s after the phase began; want 320, the last at fio's end, 5.010 s", n, float64(end-began.UnixNano())/1e9)
	}
}

// fio's running status copies a job's io_bytes before it reads its
// total_ios, so a status's bytes may lag its operations (seen: 309 of 312
// writes' bytes, numjobs=2, bs=64k); the final output agrees. The bytes
// then catch up in an interval that may hold no new operation, and the
// series keeps them (its bytes follow its operations, from the final
// output's): its bytes add up to the job's. Before, an interval
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

// jobsAt is one of fio's outputs: each job's cumulative writes and the
// writes its io_bytes held (64 KiB each).
func jobsAt(counts ...[2]uint64) *Output {
	o := &Output{}
	for _, c := range counts {
		o.Jobs = append(o.Jobs, JobOut{Name: "w", Write: DirOut{TotalIOs: c[0], IOBytes: c[1] << 16}})
	}
	return o
}

// laggingRuns are fio's statuses every second, the final output last, of
// 4 jobs writing 64 KiB at 4 MiB/s whose bytes lag their operations: the
// first run niced beside two busy loops, the second as in make test.
var laggingRuns = []struct {
	name string
	outs []*Output
}{
	{"niced fio", []*Output{
		jobsAt([2]uint64{32, 22}, [2]uint64{32, 23}, [2]uint64{34, 22}, [2]uint64{34, 22}),
		jobsAt([2]uint64{89, 87}, [2]uint64{90, 87}, [2]uint64{89, 87}, [2]uint64{90, 87}),
		jobsAt([2]uint64{152, 151}, [2]uint64{152, 151}, [2]uint64{152, 151}, [2]uint64{152, 151}),
		jobsAt([2]uint64{216, 215}, [2]uint64{216, 215}, [2]uint64{216, 215}, [2]uint64{216, 215}),
		jobsAt([2]uint64{280, 279}, [2]uint64{280, 279}, [2]uint64{280, 279}, [2]uint64{280, 279}),
		jobsAt([2]uint64{344, 343}, [2]uint64{344, 343}, [2]uint64{344, 343}, [2]uint64{344, 343}),
		jobsAt([2]uint64{384, 384}, [2]uint64{384, 384}, [2]uint64{384, 384}, [2]uint64{384, 384}),
	}},
	{"make test", []*Output{
		jobsAt([2]uint64{64, 63}, [2]uint64{64, 63}, [2]uint64{64, 63}, [2]uint64{64, 63}),
		jobsAt([2]uint64{128, 127}, [2]uint64{128, 127}, [2]uint64{128, 127}, [2]uint64{128, 127}),
		jobsAt([2]uint64{192, 159}, [2]uint64{192, 159}, [2]uint64{192, 159}, [2]uint64{193, 160}),
		jobsAt([2]uint64{213, 213}, [2]uint64{213, 213}, [2]uint64{214, 214}, [2]uint64{214, 214}),
	}},
}

// fio's running status copies every job's io_bytes, then prints each
// job's total_ios as it is by then: the bytes lag the operations by the
// time between (measured, numjobs=4, bs=64k, rate=4m: 1 write a job in
// nearly every status, up to 4 beside two busy loops, up to 12 with fio
// niced beside them; unthrottled 4k writes, up to 13,545), and the final
// output agrees. An interval's bytes are its operations' bytes: the
// difference of two statuses' bytes was off by the change in the lag, so
// a short last second after a lagging status was drawn at 2.54x the
// median throughput while its operations were right
// (TestFioJobsWithoutGroupReporting/numjobs=4/charts in make test: 85
// writes at 258.9 ops/s over 0.33 s). The statuses here are fio's, the
// first run niced beside two busy loops; the second as in make test,
// its last status's bytes copied about half a second (33 writes a job)
// before its operations were read.
func TestIntervalBytesFollowItsOperations(t *testing.T) {
	for _, tc := range laggingRuns {
		t.Run(tc.name, func(t *testing.T) {
			var p perSecond
			for k, o := range tc.outs {
				p.add(o, int64(k)*1e9, int64(k+1)*1e9)
			}
			final := tc.outs[len(tc.outs)-1]
			series, _ := p.result(final)
			var ops, bytes, want uint64
			for _, s := range series {
				ops, bytes = ops+s.Ops, bytes+s.Bytes
				if s.Bytes != s.Ops<<16 {
					t.Errorf("[%.0f, %.0f) s: %d writes of 64 KiB, %.2f writes' bytes", float64(s.StartNs)/1e9, float64(s.EndNs)/1e9, s.Ops, float64(s.Bytes)/(1<<16))
				}
			}
			for _, j := range final.Jobs {
				want += j.Write.IOBytes
			}
			if bytes != want {
				t.Errorf("the series holds %d bytes in %d writes; fio's final output %d", bytes, ops, want)
			}
		})
	}
}

// A job of several block sizes (bsrange, bssplit) has no size an
// operation: its intervals' bytes are their operations at the job's mean
// size (its final io_bytes over total_ios), so a status's lag does not
// move bytes from one interval to the next, and they still add up to
// fio's. Operations before fio reset its figures (ramp_time) have the
// job's size too, and the intervals after add up to the final output's
// bytes, which counts only those.
func TestIntervalBytesOfMixedSizesAndAfterRamp(t *testing.T) {
	out := func(ios, bytes uint64) *Output {
		return &Output{Jobs: []JobOut{{Name: "w", Write: DirOut{TotalIOs: ios, IOBytes: bytes}}}}
	}
	t.Run("mixed sizes", func(t *testing.T) {
		var p perSecond
		p.add(out(64, 63*40000), 0, 1e9)
		p.add(out(128, 97*40000), 1e9, 2e9) // lags 31 operations
		p.add(out(150, 150*40000+123), 2e9, 23e8)
		series, _ := p.result(out(150, 150*40000+123))
		var bytes uint64
		for _, s := range series {
			bytes += s.Bytes
			if per := float64(s.Bytes) / float64(s.Ops); per < 40000 || per > 40001 {
				t.Errorf("[%.1f, %.1f) s: %d operations of %.1f bytes; the job's are 40,000.8 on average", float64(s.StartNs)/1e9, float64(s.EndNs)/1e9, s.Ops, per)
			}
		}
		if bytes != 150*40000+123 {
			t.Errorf("the series holds %d bytes, fio's final output %d", bytes, 150*40000+123)
		}
	})
	t.Run("ramp_time", func(t *testing.T) {
		var p perSecond
		p.add(out(100, 100<<16), 0, 1e9)
		p.add(out(30, 29<<16), 1e9, 2e9) // fio reset its figures
		p.add(out(94, 94<<16), 2e9, 3e9)
		series, _ := p.result(out(94, 94<<16))
		var after uint64
		for _, s := range series {
			if s.Bytes != s.Ops<<16 {
				t.Errorf("[%.0f, %.0f) s: %d writes of 64 KiB, %.2f writes' bytes", float64(s.StartNs)/1e9, float64(s.EndNs)/1e9, s.Ops, float64(s.Bytes)/(1<<16))
			}
			if s.StartNs >= 1e9 {
				after += s.Bytes
			}
		}
		if after != 94<<16 {
			t.Errorf("the series after the reset holds %d writes' bytes, fio's final output 94", after>>16)
		}
	})
}

// fioStatus is one of fio's outputs as --status-interval prints it (an
// object opened and closed by a brace alone on its line), at fio's time
// tsMs (timestamp_ms), with each job's cumulative writes (64 KiB and 1 ms
// each) and its job_runtime (ms since the job's start; in the final
// output, how long the job ran; 0: not given).
func fioStatus(t *testing.T, tsMs int64, jobs ...[2]int64) string {
	t.Helper()
	var js []map[string]any
	for _, j := range jobs {
		js = append(js, map[string]any{"jobname": "w", "job_runtime": j[1],
			"write": map[string]any{"total_ios": j[0], "io_bytes": j[0] << 16, "runtime": j[1],
				"clat_ns": map[string]any{"N": j[0], "mean": 1e6, "bins": map[string]int64{"1000000": j[0]}}}})
	}
	b, err := json.MarshalIndent(map[string]any{"fio version": "fio-3.33", "timestamp_ms": tsMs, "jobs": js}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// fio stamps its final output when its main process has reaped the jobs
// and prints, which a starved machine does late: the jobs here, two
// writing 32 a second each, ended 5.01 s in, and fio printed 0.9 s later.
// The last interval ends when the jobs ended (each job's start, its
// status's time less its job_runtime, plus the job_runtime of the final
// output), so its second is at the jobs' rate. Before, it ended at the
// final output's stamp, and the report drew its 10 writes over 1.06 s,
// 0.15x the median (TestFioJobsWithoutGroupReporting/numjobs=2/charts in
// make test: "point 6 of 7 is 0.23x the median", 10 writes at 28.9 ops/s
// after six seconds of 128).
func TestLastIntervalEndsWhenTheJobsEnded(t *testing.T) {
	began := time.Now().Add(-20 * time.Second).Truncate(time.Millisecond)
	t0 := began.UnixMilli()
	var text strings.Builder
	// Both jobs passed the gate 10 and 12 ms after it opened.
	for _, m := range [][3]int64{{810, 26, 26}, {1817, 58, 58}, {2829, 90, 90}, {3817, 122, 122}, {4841, 155, 155}} {
		text.WriteString(fioStatus(t, t0+m[0], [2]int64{m[1], m[0] - 10}, [2]int64{m[2], m[0] - 12}))
	}
	text.WriteString(fioStatus(t, t0+5900, [2]int64{160, 5000}, [2]int64{160, 4998}))
	res := followed(t, began, text.String(), nil)
	series := res.Series
	n := atRate(t, series, began, 64)
	if end := series[len(series)-1].EndNs; n != 320 || end != (t0+5010)*1e6 {
		t.Errorf("%d writes, the last at %.3f s after the phase began; want 320, the last when the jobs ended, 5.010 s", n, float64(end-began.UnixNano())/1e9)
	}
	lat, err := record.DecodeLatSeconds(res.LatencySeconds)
	if err != nil || len(lat) != len(series) {
		t.Fatalf("%d latency intervals (%v), want %d", len(lat), err, len(series))
	}
	for _, l := range lat {
		if l.EndNs > (t0+5010)*1e6 {
			t.Errorf("a latency interval ends %.3f s after the phase began, after the jobs ended", float64(l.EndNs-began.UnixNano())/1e9)
		}
	}
}

// With ramp_time fio counts a job's runtime again from the ramp's end, so
// a status in the ramp gives the job's start a ramp too early, and for a
// job that came to the gate late which statuses those were is not known:
// the last interval is left ending at the final output, never cut to an
// end a ramp too early. Here a job ramped 2 s and wrote 3 s after; a
// status in its ramp would end it at 3.01 s, before its last writes.
func TestRampedJobsKeepTheirLastInterval(t *testing.T) {
	jf, err := ParseJobFile("r.fio", "[w]\nrw=write\nramp_time=2\nruntime=3\ntime_based=1\n")
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now().Add(-20 * time.Second).Truncate(time.Millisecond)
	t0 := began.UnixMilli()
	var text strings.Builder
	text.WriteString(fioStatus(t, t0+1000, [2]int64{64, 990}))   // in the ramp: since the job's start
	text.WriteString(fioStatus(t, t0+3000, [2]int64{64, 990}))   // after it: since the ramp's end
	text.WriteString(fioStatus(t, t0+5200, [2]int64{192, 3000})) // the final output, the job ended 5.01 s in
	series := followed(t, began, text.String(), jf).Series
	if len(series) == 0 || series[len(series)-1].EndNs != (t0+5200)*1e6 {
		t.Errorf("series %+v: want the last interval to end at the final output, 5.2 s in", series)
	}
}
