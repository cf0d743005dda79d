package units

import (
	"encoding/json"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"4k": 4096, "256M": 256 << 20, "1Mi": 1 << 20, "2GiB": 2 << 30, "4096": 4096, "1.5k": 1536} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("%s = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "k", "12Q", "-4k", "1e400"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"0": 0, "5s": 5 * time.Second, "1m30s": 90 * time.Second} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("%s = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "ten", "-5s", "30", "1.5"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestFormat(t *testing.T) {
	cases := map[string]string{
		Bandwidth(9.37 * (1 << 30)): "9.37 GiB/s",
		Latency(237_000):            "237 us",
		Latency(850):                "850 ns",
		Latency(4_554_752):          "4.55 ms",
		Rate(164595.4, "IOPS"):      "164595 IOPS",
		Rate(1_550_000, "ops/s"):    "1.55M ops/s",
	}
	for got, want := range cases {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestJSONSizeAndDuration(t *testing.T) {
	var v struct {
		S Size     `json:"s"`
		D Duration `json:"d"`
	}
	for _, c := range []struct {
		in   string
		s    Size
		d    time.Duration
		fail bool
	}{
		{`{"s": 4096, "d": "30s"}`, 4096, 30 * time.Second, false},
		{`{"d": 30}`, 0, 0, true},
		{`{"d": 0}`, 0, 0, false},
		{`{"s": "4k", "d": "1m"}`, 4096, time.Minute, false},
		{`{"s": "64KiB", "d": "1.5s"}`, 65536, 1500 * time.Millisecond, false},
		{`{"s": "4Q"}`, 0, 0, true},
		{`{"d": "soon"}`, 0, 0, true},
	} {
		v.S, v.D = 0, 0
		err := json.Unmarshal([]byte(c.in), &v)
		if (err != nil) != c.fail || (!c.fail && (v.S != c.s || time.Duration(v.D) != c.d)) {
			t.Errorf("%s: %v %v err=%v", c.in, v.S, time.Duration(v.D), err)
		}
	}
	b, _ := json.Marshal(Duration(90 * time.Second))
	if string(b) != `"1m30s"` {
		t.Errorf("marshal: %s", b)
	}
}

func TestParseFigureValues(t *testing.T) {
	for _, c := range []struct {
		parse func(string) (float64, error)
		in    string
		want  float64
	}{
		{ParseLatency, "5ms", 5e6}, {ParseLatency, "250us", 250e3}, {ParseLatency, "1.5s", 1.5e9}, {ParseLatency, "0ns", 0},
		{ParseRate, "20k", 20e3}, {ParseRate, "1.5M IOPS", 1.5e6}, {ParseRate, "800 ops/s", 800},
		{ParseBandwidth, "1.5GiB/s", 1.5 * (1 << 30)}, {ParseBandwidth, "500 MB/s", 500e6},
		{ParseCount, "0", 0}, {ParseCount, "1k", 1000},
	} {
		if got, err := c.parse(c.in); err != nil || got != c.want {
			t.Errorf("%q = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct {
		parse func(string) (float64, error)
		in    string
	}{
		{ParseLatency, "5"}, {ParseLatency, "-5ms"}, {ParseLatency, "NaN ms"}, {ParseLatency, "5 parsecs"}, {ParseLatency, ""},
		{ParseRate, "5ms"}, {ParseRate, "Inf"}, {ParseRate, "1e400"}, {ParseRate, "0x10"},
		{ParseBandwidth, "5"}, {ParseBandwidth, "1e308 TiB/s"}, {ParseBandwidth, "5ms"},
		{ParseCount, "1.5 GiB/s"},
	} {
		if v, err := c.parse(c.in); err == nil {
			t.Errorf("%q accepted as %v", c.in, v)
		}
	}
}
