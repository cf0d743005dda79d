package results

import (
	"math"
	"testing"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
)

// Issue 20: a fio phase on three hosts that did not run at the same time,
// as seen on real clients. Each host wrote 100 MB in 100 operations:
//
//	host a: 0.00 s to 1.00 s (fio's own 100 MB/s)
//	host b: 0.30 s to 1.50 s (fio's own 83.3 MB/s)
//	host c: 0.45 s to 1.45 s (fio's own 100 MB/s)
//
// By hand, IOR's rule: 300 MB over 1.50 s (first start to last end) =
// 200 MB/s, 200 op/s; the sum of the hosts' rates (283.3 MB/s) is not it.
// First host done (a, at 1.00 s): a 100 MB, b 0.70/1.20 x 100 = 58.33 MB,
// c 0.55/1.00 x 100 = 55 MB, 213.33 MB over 1.00 s. Last host done: 300 MB
// over 1.50 s. Start skew: 0.45 s. Each host keeps fio's own figures.
func TestFioTotalsFollowIORRule(t *testing.T) {
	const s = int64(1e9)
	t0 := int64(1_700_000_000) * s
	host := func(name string, start, end float64) *model.HostResult {
		st, en := t0+int64(start*1e9), t0+int64(end*1e9)
		return &model.HostResult{Host: name, Ops: []record.OpStats{{
			Op: "write", Ops: 100, Bytes: 100e6, StartNs: st, EndNs: en,
			ReportedBwBytesPerS: 100e6 / (end - start), ReportedOpsPerS: 100 / (end - start),
		}}}
	}
	hosts := []*model.HostResult{host("a", 0, 1), host("b", 0.3, 1.5), host("c", 0.45, 1.45)}
	ps := BuildPhase("ior-easy-write", model.EngineFio, nil, hosts)
	if len(ps.Ops) != 1 {
		t.Fatalf("ops %+v", ps.Ops)
	}
	tot := ps.Ops[0]
	within := func(what string, got *float64, want float64) {
		t.Helper()
		if got == nil || math.Abs(*got-want) > 1e-6*want {
			t.Errorf("%s: %v, want %.6g", what, show(got), want)
		}
	}
	within("total bandwidth (all bytes over first start to last end)", tot.BwBytesPerS, 200e6)
	within("total op/s", tot.OpsPerS, 200)
	if tot.DurationS != 1.5 || tot.Bytes != 300e6 {
		t.Errorf("total %d bytes over %.3f s, want 300 MB over 1.5 s", tot.Bytes, tot.DurationS)
	}
	if tot.Rule != RuleFirstStartLastEnd {
		t.Errorf("rule %q, want %q", tot.Rule, RuleFirstStartLastEnd)
	}
	if tot.FirstDone == nil || tot.LastDone == nil {
		t.Fatalf("no stonewall figures: first done %+v, last done %+v", tot.FirstDone, tot.LastDone)
	}
	within("first host done: bandwidth", tot.FirstDone.BwBytesPerS, 213.333333e6)
	within("first host done: op/s", tot.FirstDone.OpsPerS, 213.333333)
	within("first host done: seconds", &tot.FirstDone.DurationS, 1.0)
	within("last host done: bandwidth", tot.LastDone.BwBytesPerS, 200e6)
	within("last host done: seconds", &tot.LastDone.DurationS, 1.5)
	within("start skew", ps.StartSkewS, 0.45)
	for i, h := range ps.PerHost {
		o := h.Ops[0]
		within("host "+h.Host+" bandwidth (fio's own)", o.BwBytesPerS, hosts[i].Ops[0].ReportedBwBytesPerS)
		if o.Bytes != 100e6 || o.DurationS <= 0 {
			t.Errorf("host %s: %d bytes over %.3f s", h.Host, o.Bytes, o.DurationS)
		}
	}
	if h := ps.PerHost[1]; h.StartNs != t0+3e8 {
		t.Errorf("host b started at %d, want %d", h.StartNs, t0+3e8)
	}

	// One host: the total is fio's own figure, exactly, and no stonewall.
	one := BuildPhase("one", model.EngineFio, nil, hosts[1:2])
	within("one host's total (fio's own)", one.Ops[0].BwBytesPerS, 100e6/1.2)
	if one.Ops[0].Rule != RuleEngine || one.Ops[0].FirstDone != nil || one.StartSkewS != nil {
		t.Errorf("one host: rule %q, first done %+v, skew %v", one.Ops[0].Rule, one.Ops[0].FirstDone, show(one.StartSkewS))
	}
}

func show(v *float64) any {
	if v == nil {
		return "absent"
	}
	return *v
}
