package fio

import (
	"testing"
	"time"
)

// A status fio prints on either side of a pause's edges puts no
// operation inside the pause: fio printed one 5 ms after the pause began
// (its jobs stop a moment later) and the next 0.5 s after the pause's end.
// The first interval's operations were all done before the pause, the
// second's all after it. Before, the first was spread over its whole
// interval (the pause not yet ended) and the second over the rest of the
// pause too (the pause began before it): a paused second had operations.
func TestPauseEdgeStatuses(t *testing.T) {
	sec := int64(time.Second)
	p0, p1 := 10*sec, 12*sec
	var r prepared
	var s perSecond
	status := func(ios uint64) *Output {
		return &Output{Jobs: []JobOut{{Name: "j", Read: DirOut{TotalIOs: ios, IOBytes: ios * 4096}}}}
	}
	r.addSeconds(&s, status(100), 9*sec, p0-5*sec/1000)
	r.pausedFrom.Store(p0)
	r.addSeconds(&s, status(200), p0-5*sec/1000, p0+5*sec/1000)
	r.pausedTo.Store(p1)
	r.addSeconds(&s, status(300), p0+5*sec/1000, p1+sec/2)
	r.addSeconds(&s, status(400), p1+sec/2, p1+3*sec/2)
	var n uint64
	for _, x := range s.secs {
		n += x.Ops
		if x.EndNs > p0 && x.StartNs < p1 {
			t.Errorf("%d operations in [%.3f, %.3f) s, inside the pause [10, 12) s", x.Ops, float64(x.StartNs)/1e9, float64(x.EndNs)/1e9)
		}
	}
	if n != 400 {
		t.Errorf("%d operations in the series, want 400", n)
	}
}

// A status whose interval holds the whole pause shares its operations
// between the parts before and after it, by their lengths, and each
// part moves its operations' bytes (4 KiB reads here), whatever the
// status's bytes, which lag its operations, said.
func TestPauseInsideOneStatus(t *testing.T) {
	sec := int64(time.Second)
	var r prepared
	var s perSecond
	r.pausedFrom.Store(10 * sec)
	r.pausedTo.Store(12 * sec)
	status := &Output{Jobs: []JobOut{{Name: "j", Read: DirOut{TotalIOs: 100, IOBytes: 91 * 4096}}}}
	r.addSeconds(&s, status, 9*sec, 14*sec)
	if len(s.secs) != 2 || s.secs[0].Ops != 33 || s.secs[0].EndNs != 10*sec || s.secs[1].Ops != 67 || s.secs[1].StartNs != 12*sec {
		t.Errorf("series %+v, want 33 operations in [9, 10) s and 67 in [12, 14) s", s.secs)
	}
	series, _ := s.result(&Output{Jobs: []JobOut{{Name: "j", Read: DirOut{TotalIOs: 100, IOBytes: 100 * 4096}}}})
	for _, x := range series {
		if x.Bytes != x.Ops*4096 {
			t.Errorf("[%.0f, %.0f) s: %d reads of 4 KiB, %d bytes", float64(x.StartNs)/1e9, float64(x.EndNs)/1e9, x.Ops, x.Bytes)
		}
	}
}
