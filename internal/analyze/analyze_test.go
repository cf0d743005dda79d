package analyze

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/storbench/storbench/internal/record"
)

const header = "op\tworker\tendpoint\tstart_unix_ns\tttfb_ns\tlatency_ns\tbytes\terror"

func sec(startS int64, ops, bytes uint64) record.Second {
	return record.Second{StartNs: startS * 1e9, EndNs: (startS + 1) * 1e9, Op: "GET", Ops: ops, Bytes: bytes}
}

func TestSegmentsFastestMedianSlowest(t *testing.T) {
	series := []record.Second{
		sec(100, 10, 1000), sec(101, 30, 3000), sec(102, 20, 2000), sec(104, 40, 4000),
		// 103 is missing: nothing ended in it, a stall.
		{StartNs: 105e9, EndNs: 105e9 + 3e8, Op: "GET", Ops: 99, Bytes: 99000}, // partial last second
		{StartNs: 100e9, EndNs: 101e9, Op: "PUT", Ops: 5},
	}
	s, ok := Segments(series, "GET", time.Second)
	if !ok {
		t.Fatal("no segments")
	}
	if s.N != 5 {
		t.Fatalf("N = %d, want 5 (4 measured seconds and one stalled, the partial one left out)", s.N)
	}
	if s.Fastest.Bytes != 4000 || s.Slowest.Bytes != 0 || s.Slowest.StartNs != 103e9 {
		t.Errorf("fastest %+v slowest %+v", s.Fastest, s.Slowest)
	}
	// Sorted by bytes: 4000 3000 2000 1000 0; the median is the middle one.
	if s.Median.Bytes != 2000 || s.Median.BytesPerS() != 2000 || s.Median.OpsPerS() != 20 {
		t.Errorf("median %+v", s.Median)
	}
	if _, ok := Segments(series, "DELETE", time.Second); ok {
		t.Error("segments for an operation that never ran")
	}
}

func TestSegmentsSumHosts(t *testing.T) {
	var series []record.Second
	for h := int64(0); h < 2; h++ {
		off := h * 3e8 // hosts tick at different instants
		for i := int64(0); i < 3; i++ {
			series = append(series, record.Second{StartNs: 10e9 + i*1e9 + off, EndNs: 11e9 + i*1e9 + off, Op: "GET", Ops: uint64(10 * (h + 1))})
		}
	}
	s, ok := Segments(series, "GET", time.Second)
	if !ok || s.Fastest.Ops != 30 || s.Slowest.Ops != 30 {
		t.Fatalf("hosts not summed per segment: %+v", s)
	}
}

func writeZstd(t testing.TB, text string) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := zstd.NewWriter(&buf)
	io.WriteString(zw, text)
	zw.Close()
	return &buf
}

func TestReadBenchDataFigures(t *testing.T) {
	text := header + "\n" +
		"GET\t0\th1:9000\t1000000000\t100\t1000\t4096\t\n" +
		"GET\t1\th2:9000\t1000000500\t200\t2000\t4096\t\n" +
		"GET\t1\th2:9000\t1500000000\t300\t3000\t4096\t\n" +
		"GET\t0\th1:9000\t2000000000\t0\t9000\t0\tconnection refused\n" +
		"PUT\t0\th1:9000\t2500000000\t0\t500000\t65536\t\n"
	bd, err := ReadBenchData(writeZstd(t, text))
	if err != nil {
		t.Fatal(err)
	}
	if bd.Requests != 5 || len(bd.Ops) != 2 {
		t.Fatalf("requests %d ops %d", bd.Requests, len(bd.Ops))
	}
	g := bd.Ops[0]
	if g.Op != "GET" || g.Ops != 3 || g.Bytes != 3*4096 || g.Errors != 1 || g.ErrorKinds["connection refused"] != 1 {
		t.Errorf("GET %+v", g)
	}
	if g.Lat.Stats.Mean != 2000 || g.Lat.Stats.Min != 1000 || g.Lat.Stats.Max != 3000 {
		t.Errorf("latency stats %+v", g.Lat.Stats)
	}
	if p := g.Lat.Bins.Percentile(50); p < 1990 || p > 2010 {
		t.Errorf("p50 %d, want about 2000", p)
	}
	if g.TTFB == nil || g.TTFB.Stats.N != 3 || g.TTFB.Stats.Mean != 200 {
		t.Errorf("ttfb %+v", g.TTFB)
	}
	// The window runs from the first start to the last end, failures included.
	if g.StartNs != 1000000000 || g.EndNs != 2000009000 {
		t.Errorf("window %d..%d", g.StartNs, g.EndNs)
	}
	if len(bd.PerEndpoint) != 2 || bd.PerEndpoint["h2:9000"][0].Ops != 2 || bd.PerEndpoint["h1:9000"][0].Errors != 1 {
		t.Errorf("per endpoint %+v", bd.PerEndpoint)
	}
	if len(bd.Series) != 3 { // GET at s1, GET error at s2, PUT at s2
		t.Errorf("series %+v", bd.Series)
	}
}

func TestReadBenchDataBadInput(t *testing.T) {
	for name, text := range map[string]string{
		"not a benchdata file": "a,b,c\n1,2,3\n",
		"short line":           header + "\nGET\t0\th\t1\t2\n",
		"not a number":         header + "\nGET\t0\th\tx\t0\t1\t1\t\n",
		"empty":                "",
	} {
		if _, err := ReadBenchData(writeZstd(t, text)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// genBenchData writes n request lines, zstd-compressed, to w.
func genBenchData(t testing.TB, w io.Writer, n int) {
	zw, _ := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedFastest))
	bw := bufio.NewWriterSize(zw, 1<<20)
	bw.WriteString(header + "\n")
	var b []byte
	eps := []string{"10.0.0.1:9000", "10.0.0.2:9000", "10.0.0.3:9000"}
	for i := 0; i < n; i++ {
		b = b[:0]
		b = append(b, "GET\t"...)
		b = strconv.AppendInt(b, int64(i%16), 10)
		b = append(b, '\t')
		b = append(b, eps[i%3]...)
		b = append(b, '\t')
		b = strconv.AppendInt(b, 1_700_000_000_000_000_000+int64(i)*100_000, 10)
		b = append(b, "\t150000\t"...)
		b = strconv.AppendInt(b, 200_000+int64(i%1000)*100, 10)
		b = append(b, "\t4096\t\n"...)
		bw.Write(b)
	}
	bw.Flush()
	zw.Close()
}

func TestReadBenchDataStreamsInBoundedMemory(t *testing.T) {
	n := 1_000_000
	if s := os.Getenv("STORBENCH_BENCHDATA_LINES"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	path := t.TempDir() + "/big.tsv.zst"
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	genBenchData(t, f, n)
	f.Close()
	runtime.GC()
	f, _ = os.Open(path)
	defer f.Close()
	done, sampled := make(chan struct{}), make(chan struct{})
	var peak uint64
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		}
	}()
	bd, err := ReadBenchData(f)
	close(done)
	<-sampled
	if err != nil {
		t.Fatal(err)
	}
	if bd.Requests != uint64(n) || bd.Ops[0].Ops != uint64(n) {
		t.Fatalf("read %d requests, want %d", bd.Requests, n)
	}
	if p99 := bd.Ops[0].Lat.Bins.Percentile(99); p99 < 290_000 || p99 > 300_000 {
		t.Errorf("p99 %d ns, want about 299 us", p99)
	}
	// 1e6 requests held in memory would be > 60 MB; streaming stays small.
	if peak > 64<<20 {
		t.Errorf("heap in use peaked at %d MB: not streaming", peak>>20)
	}
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(l, "VmHWM") {
				t.Logf("%d requests: peak heap %d MB, process %s", n, peak>>20, strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:")))
			}
		}
	}
}
