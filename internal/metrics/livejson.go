package metrics

import (
	"math"
	"strconv"
	"time"
)

// The --live stream writes a line a second per host and one for the
// total. Its lines are written here as encoding/json would write a
// LiveLine (TestLiveJSONAsEncodingJSON holds the two the same), without
// its reflection: the struct's tags stay the schema.

// appendJSON appends the line as one JSON object; quote returns a name as
// a JSON string.
func (l *LiveLine) appendJSON(b []byte, quote func(string) []byte) []byte {
	b = append(b, `{"time":"`...)
	b = append(l.Time.AppendFormat(b, time.RFC3339Nano), '"')
	b = append(append(b, `,"run":`...), quote(l.Run)...)
	b = append(append(b, `,"phase":`...), quote(l.Phase)...)
	if l.Host != "" {
		b = append(append(b, `,"host":`...), quote(l.Host)...)
	}
	if l.Total {
		b = append(b, `,"total":true`...)
	}
	if l.Hosts != 0 {
		b = strconv.AppendInt(append(b, `,"hosts":`...), int64(l.Hosts), 10)
	}
	if l.Stage != "" {
		b = append(append(b, `,"stage":`...), quote(l.Stage)...)
	}
	b = appendJSONFloat(append(b, `,"elapsed_s":`...), l.ElapsedS)
	b = appendJSONFloat(append(b, `,"interval_s":`...), l.IntervalS)
	b = l.LiveFigures.appendJSON(b)
	if l.Ops == nil {
		return append(b, `,"ops":null}`...)
	}
	b = append(b, `,"ops":[`...)
	for i := range l.Ops {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(b, `{"op":`...), quote(l.Ops[i].Op)...)
		b = append(l.Ops[i].LiveFigures.appendJSON(b), '}')
	}
	return append(b, "]}"...)
}

// appendJSON appends the figures' fields, each after a comma.
func (f *LiveFigures) appendJSON(b []byte) []byte {
	b = strconv.AppendUint(append(b, `,"count":`...), f.Count, 10)
	b = strconv.AppendUint(append(b, `,"bytes":`...), f.Bytes, 10)
	b = appendJSONFloat(append(b, `,"ops_per_s":`...), f.OpsPerS)
	b = appendJSONFloat(append(b, `,"bytes_per_s":`...), f.BytesPerS)
	b = strconv.AppendUint(append(b, `,"errors":`...), f.Errors, 10)
	for _, p := range []struct {
		name string
		v    *int64
	}{{`,"p50_ns":`, f.P50Ns}, {`,"p99_ns":`, f.P99Ns}, {`,"p999_ns":`, f.P999Ns}} {
		if p.v != nil {
			b = strconv.AppendInt(append(b, p.name...), *p.v, 10)
		}
	}
	return b
}

// appendJSONFloat writes v as encoding/json does (exponents only below
// 1e-6 and from 1e21); a figure that is not finite, which JSON cannot
// hold, is null.
func appendJSONFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	format := byte('f')
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, v, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		// e-07 as e-7
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b
}
