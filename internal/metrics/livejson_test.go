package metrics

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// The live stream's lines are written by hand; they are what
// encoding/json writes of the same LiveLine, byte for byte.
func TestLiveJSONAsEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"", "GET", "h1:7000", "a<b>&c", "tab\tnew\nline\x01", "\xff\xfe bytes", "line\u2028sep", `quote " back \`, "ünïcødé"}
	floats := []float64{0, 1, -1, 0.5, 1e-7, 9.99e-7, 1e-6, 123.456, 1e20, 1e21, 5e-324, math.MaxFloat64, 1 << 53, 2.5e9}
	pick := func() float64 {
		if rng.IntN(3) == 0 {
			return rng.Float64() * math.Pow(10, float64(rng.IntN(40)-20))
		}
		return floats[rng.IntN(len(floats))]
	}
	pct := func() *int64 {
		if rng.IntN(3) == 0 {
			return nil
		}
		v := rng.Int64N(1 << 40)
		return &v
	}
	figures := func() LiveFigures {
		return LiveFigures{OpsPerS: pick(), BytesPerS: pick(), Errors: rng.Uint64() >> rng.IntN(64), P50Ns: pct(), P99Ns: pct(), P999Ns: pct()}
	}
	zones := []*time.Location{time.UTC, time.FixedZone("x", -7*3600-1800), time.Local}
	quote := func(s string) []byte { b, _ := json.Marshal(s); return b }
	for i := range 2000 {
		line := LiveLine{
			Time:  time.Unix(rng.Int64N(4e9), rng.Int64N(1e9)*int64(rng.IntN(2))).In(zones[rng.IntN(len(zones))]),
			Run:   names[rng.IntN(len(names))],
			Phase: names[rng.IntN(len(names))],
			Host:  names[rng.IntN(len(names))],
			Total: rng.IntN(2) == 0, Hosts: rng.IntN(3) * rng.IntN(100),
			Stage: names[rng.IntN(len(names))], ElapsedS: pick(), LiveFigures: figures(),
		}
		if n := rng.IntN(4); n > 0 {
			line.Ops = []LiveOp{}
			for range n - 1 {
				line.Ops = append(line.Ops, LiveOp{Op: names[rng.IntN(len(names))], LiveFigures: figures()})
			}
		}
		want, err := json.Marshal(&line)
		if err != nil {
			t.Fatal(err)
		}
		if got := line.appendJSON(nil, quote); string(got) != string(want) {
			t.Fatalf("line %d:\n got %s\nwant %s", i, got, want)
		}
	}
	if got := string(appendJSONFloat(nil, math.NaN())); got != "null" {
		t.Errorf("NaN is written %s, want null", got)
	}
}
