package analyze

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

const warpFixture = "testdata/warp-get-v1.4.1.csv.zst"

// warpReport is what warp analyze printed for one operation.
type warpReport struct {
	reqs       int
	mibPerS    float64
	objPerS    float64
	skipped    bool
	sawAverage bool
}

// readWarpAnalysis parses the figures out of the text warp analyze printed.
func readWarpAnalysis(t *testing.T, path string) map[string]*warpReport {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	report := regexp.MustCompile(`^\s*Report: (\S+) \((\d+) reqs\)`)
	average := regexp.MustCompile(`^\s*\* Average: ([0-9.]+) MiB/s, ([0-9.]+) obj/s`)
	skipping := regexp.MustCompile(`^\s*Skipping (\S+) too few samples`)
	out := map[string]*warpReport{}
	var cur *warpReport
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if m := report.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[2])
			cur = &warpReport{reqs: n}
			out[m[1]] = cur
		}
		if m := average.FindStringSubmatch(l); m != nil && cur != nil && !cur.sawAverage {
			cur.mibPerS, _ = strconv.ParseFloat(m[1], 64)
			cur.objPerS, _ = strconv.ParseFloat(m[2], 64)
			cur.sawAverage = true
		}
		if m := skipping.FindStringSubmatch(l); m != nil {
			out[m[1]] = &warpReport{skipped: true}
			cur = nil
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no operation found", path)
	}
	return out
}

// warpObjects reads --objects from the warp command line recorded at the
// end of a warp file: how many objects its preparation uploaded.
func warpObjects(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := zstd.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	re := regexp.MustCompile(`^# .*--objects=(\d+)`)
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			n, _ := strconv.Atoi(m[1])
			return n
		}
	}
	t.Fatalf("%s: no --objects in its command line", path)
	return 0
}

func within(got, want, pct float64) bool {
	return math.Abs(got-want) <= pct/100*math.Abs(want)
}

// A file recorded by warp v1.4.1, analysed by storbench, gives the figures
// warp analyze printed for it: per operation the request count and the
// average throughput, and no average where warp had too few samples.
func TestWarpFileMatchesWarpAnalyze(t *testing.T) {
	want := readWarpAnalysis(t, "testdata/warp-get-v1.4.1.analyze.txt")
	a, err := Analyze(warpFixture, Options{Segment: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if a.Kind != "warp" || len(a.Phases) != 1 {
		t.Fatalf("kind %q, %d phases", a.Kind, len(a.Phases))
	}
	got := map[string]OpAnalysis{}
	for _, o := range a.Phases[0].Ops {
		got[o.Op] = o
	}
	for op, w := range want {
		o, ok := got[op]
		if !ok {
			t.Errorf("%s: warp reports it, storbench does not", op)
			continue
		}
		if w.skipped {
			// warp printed no figures: storbench prints no rate either,
			// and counts the preparation's uploads.
			if o.BwBytesPerS != nil || o.OpsPerS != nil {
				t.Errorf("%s: warp had too few samples for an average, storbench gives %v B/s, %v ops/s", op, *o.BwBytesPerS, *o.OpsPerS)
			}
			if n := warpObjects(t, warpFixture); o.Requests != uint64(n) {
				t.Errorf("%s: %d requests, want the %d objects warp prepared", op, o.Requests, n)
			}
			continue
		}
		t.Logf("%s: storbench %d requests, %.4f MiB/s, %.2f ops/s over %s; warp %d reqs, %.2f MiB/s, %.2f obj/s",
			op, o.Requests, *o.BwBytesPerS/(1<<20), *o.OpsPerS, time.Duration(o.Window.DurationS*1e9), w.reqs, w.mibPerS, w.objPerS)
		if !within(float64(o.Requests), float64(w.reqs), 0.5) {
			t.Errorf("%s: %d requests, warp counted %d", op, o.Requests, w.reqs)
		}
		if o.OpsPerS == nil || !within(*o.OpsPerS, w.objPerS, 0.5) {
			t.Errorf("%s: %v ops/s, warp's average is %.2f obj/s", op, o.OpsPerS, w.objPerS)
		}
		if o.BwBytesPerS == nil || !within(*o.BwBytesPerS/(1<<20), w.mibPerS, 0.5) {
			t.Errorf("%s: %v B/s, warp's average is %.2f MiB/s", op, o.BwBytesPerS, w.mibPerS)
		}
	}
	for op := range got {
		if want[op] == nil {
			t.Errorf("%s: storbench reports it, warp does not", op)
		}
	}
}

// warpHeaderLine is the header warp v1.4 writes.
const warpHeaderLine = "idx\tthread\top\tclient_id\tn_objects\tbytes\tendpoint\tfile\terror\tstart\tfirst_byte\tend\tduration_ns\tcat"

var warpBase = time.Date(2026, 11, 22, 22, 40, 0, 0, time.UTC)

// wreq is one request of a synthetic warp file; times are offsets from
// warpBase, fb < 0 for none.
type wreq struct {
	thread          int
	op, client, ep  string
	errText         string
	start, fb, end  time.Duration
	bytes           int
	quoteEP, rawErr bool
}

func (r wreq) line(i int) string {
	ts := func(d time.Duration) string { return warpBase.Add(d).Format(time.RFC3339Nano) }
	fb := ""
	if r.fb >= 0 {
		fb = ts(r.fb)
	}
	ep, errText := r.ep, r.errText
	if r.quoteEP {
		ep = `"` + ep + `"`
	}
	if errText != "" && !r.rawErr {
		errText = `"` + strings.ReplaceAll(errText, `"`, `""`) + `"`
	}
	client := r.client
	if client == "" {
		client = "cl1"
	}
	return strings.Join([]string{strconv.Itoa(i), strconv.Itoa(r.thread), r.op, client, "1", strconv.Itoa(r.bytes), ep,
		"obj/" + strconv.Itoa(i), errText, ts(r.start), fb, ts(r.end), strconv.FormatInt(int64(r.end-r.start), 10), "0"}, "\t")
}

func warpText(reqs []wreq) string {
	var sb strings.Builder
	sb.WriteString(warpHeaderLine + "\n")
	for i, r := range reqs {
		sb.WriteString(r.line(i) + "\n")
	}
	sb.WriteString("# warp get --concurrent=2 --duration=10s\n")
	return sb.String()
}

// writeFile writes text to name in a temporary directory, zstd-compressed
// when compress is set.
func writeFile(t *testing.T, name, text string, compress bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	b := []byte(text)
	if compress {
		b = writeZstd(t, text).Bytes()
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// steady returns back-to-back requests of one thread, each d long, from
// `from` to `to`.
func steady(thread int, op string, from, to, d time.Duration, bytes int) []wreq {
	var out []wreq
	for s := from; s+d <= to; s += d {
		out = append(out, wreq{thread: thread, op: op, ep: "http://127.0.0.1:9000", start: s, fb: s + d/2, end: s + d, bytes: bytes})
	}
	return out
}

func opByName(t *testing.T, a *Analysis, name string) OpAnalysis {
	t.Helper()
	for _, o := range a.Phases[0].Ops {
		if o.Op == name {
			return o
		}
	}
	t.Fatalf("no operation %q in %+v", name, a.Phases[0].Ops)
	return OpAnalysis{}
}

// The window of a warp file is warp's cut (whole seconds, two dropped at
// each end) within the time every thread ran. Thread 0 runs 1 s requests
// from 0.5 s to 9.5 s; thread 1 starts late, 3.2 s to 9.2 s. Every thread
// ran from 4.2 s (thread 1's first end) to 8.2 s (thread 1's last start);
// warp's cut is 2 s (the first start's second, 0, plus 2) to 8 s (the last
// end's second, 9, plus 1, minus 2). The window is 4.2 s to 8.0 s: thread
// 0 did 0.3 + 3 + 0.5 requests in it, thread 1 3 + 0.8: 7.6 requests of
// 1000 B in 3.8 s.
func TestWarpWindowByHand(t *testing.T) {
	reqs := append(steady(0, "GET", 500*time.Millisecond, 9500*time.Millisecond, time.Second, 1000),
		steady(1, "GET", 3200*time.Millisecond, 9200*time.Millisecond, time.Second, 1000)...)
	a, err := Analyze(writeFile(t, "late.csv.zst", warpText(reqs), true), Options{Segment: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	o := opByName(t, a, "GET")
	ws, we := warpBase.Add(4200*time.Millisecond).UnixNano(), warpBase.Add(8*time.Second).UnixNano()
	if o.Window.StartNs != ws || o.Window.EndNs != we {
		t.Fatalf("window %v to %v, want 4.2 s to 8.0 s", time.Duration(o.Window.StartNs-warpBase.UnixNano()), time.Duration(o.Window.EndNs-warpBase.UnixNano()))
	}
	if !near(o.Ops, 7.6) || !near(o.Bytes, 7600) || o.OpsPerS == nil || !near(*o.OpsPerS, 2) || o.BwBytesPerS == nil || !near(*o.BwBytesPerS, 2000) {
		t.Errorf("ops %v bytes %v, %v ops/s %v B/s; want 7.6, 7600, 2, 2000", o.Ops, o.Bytes, o.OpsPerS, o.BwBytesPerS)
	}
	// Latency covers every request (9 + 6), as warp's does.
	if o.Requests != 15 || o.Lat == nil || o.Lat.P50Ns < 990_000_000 || o.Lat.P50Ns > 1_010_000_000 {
		t.Errorf("requests %d, latency %+v; want 15 of 1 s", o.Requests, o.Lat)
	}
	if o.TTFB == nil || o.TTFB.P50Ns < 495_000_000 || o.TTFB.P50Ns > 505_000_000 {
		t.Errorf("first byte %+v, want 0.5 s", o.TTFB)
	}

	// Both threads from the start: warp's cut alone, 2 s to 8 s.
	reqs = append(steady(0, "GET", 500*time.Millisecond, 9500*time.Millisecond, time.Second, 1000),
		steady(1, "GET", 600*time.Millisecond, 9600*time.Millisecond, time.Second, 1000)...)
	a, err = Analyze(writeFile(t, "both.csv.zst", warpText(reqs), true), Options{Segment: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	o = opByName(t, a, "GET")
	if o.Window.StartNs != warpBase.Add(2*time.Second).UnixNano() || o.Window.EndNs != warpBase.Add(8*time.Second).UnixNano() {
		t.Errorf("window %+v, want 2 s to 8 s", o.Window)
	}
	if o.Segments == nil || o.Segments.N != 6 {
		t.Errorf("segments %+v, want 6 whole seconds", o.Segments)
	}

	// Requests in 5 seconds (0 to 4) leave 1 s after the cut: too few, no
	// rate (warp says "too few samples"), the requests still counted.
	reqs = steady(0, "PUT", 100*time.Millisecond, 4100*time.Millisecond, 800*time.Millisecond, 1000)
	a, err = Analyze(writeFile(t, "short.csv.zst", warpText(reqs), true), Options{Segment: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	o = opByName(t, a, "PUT")
	if o.OpsPerS != nil || o.BwBytesPerS != nil || o.Requests != 5 || o.Ops != 5 || o.Bytes != 5000 {
		t.Errorf("too short: %v ops/s, %v B/s, %d requests, %v ops; want no rate and 5 requests", o.OpsPerS, o.BwBytesPerS, o.Requests, o.Ops)
	}
	if notes := strings.Join(a.Phases[0].Notes, "\n"); !strings.Contains(notes, "PUT") || !strings.Contains(notes, "too few samples") {
		t.Errorf("no note says why PUT has no rate: %q", notes)
	}
}

// Lines out of time order (a file sorted by end, or concatenated) give the
// same figures: the analysis does not depend on the order of lines.
func TestWarpLinesOutOfOrder(t *testing.T) {
	reqs := append(steady(0, "GET", 500*time.Millisecond, 9500*time.Millisecond, 700*time.Millisecond, 4096),
		steady(1, "GET", 600*time.Millisecond, 9600*time.Millisecond, 900*time.Millisecond, 4096)...)
	sorted := warpText(reqs)
	rev := append([]wreq(nil), reqs...)
	slices.Reverse(rev)
	a1, err := Analyze(writeFile(t, "sorted.csv.zst", sorted, true), Options{Segment: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	a2, err := Analyze(writeFile(t, "reversed.csv.zst", warpText(rev), true), Options{Segment: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	o1, o2 := opByName(t, a1, "GET"), opByName(t, a2, "GET")
	if o1.Window != o2.Window || !near(o1.Ops, o2.Ops) || !near(o1.Bytes, o2.Bytes) || !near(*o1.OpsPerS, *o2.OpsPerS) ||
		o1.Requests != o2.Requests || o1.Lat.P50Ns != o2.Lat.P50Ns || o1.Lat.MaxNs != o2.Lat.MaxNs || !near(o1.Lat.MeanNs, o2.Lat.MeanNs) ||
		o1.TTFB.P99Ns != o2.TTFB.P99Ns {
		t.Errorf("figures depend on line order:\n%+v\n%+v", o1, o2)
	}
}

// Operations warp has that storbench does not (iceberg, multipart parts)
// and names never seen are analysed under their own names.
func TestWarpUnknownOpsKept(t *testing.T) {
	reqs := append(steady(0, "TABLE_GET", 0, 10*time.Second, 500*time.Millisecond, 0),
		steady(1, "Frobnicate.v2", 0, 10*time.Second, 250*time.Millisecond, 100)...)
	a, err := Analyze(writeFile(t, "ice.csv.zst", warpText(reqs), true), Options{Segment: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tg, fr := opByName(t, a, "TABLE_GET"), opByName(t, a, "Frobnicate.v2")
	if tg.OpsPerS == nil || !near(*tg.OpsPerS, 2) || tg.BwBytesPerS != nil {
		t.Errorf("TABLE_GET: %v ops/s, %v B/s; want 2 ops/s and no byte rate", tg.OpsPerS, tg.BwBytesPerS)
	}
	if fr.OpsPerS == nil || !near(*fr.OpsPerS, 4) || fr.BwBytesPerS == nil || !near(*fr.BwBytesPerS, 400) {
		t.Errorf("Frobnicate.v2: %v ops/s, %v B/s; want 4 and 400", fr.OpsPerS, fr.BwBytesPerS)
	}
}

// warp quotes error texts and endpoints holding a tab, a quote or a
// newline; a quoted newline continues the request on the next line.
func TestWarpQuotedFields(t *testing.T) {
	reqs := steady(0, "GET", 0, 10*time.Second, time.Second, 10)
	reqs[3].errText = "GET \"obj/3\":\t503 Slow Down\nretry later"
	reqs[5].quoteEP = true
	reqs[6].errText = "timeout"
	text := warpText(reqs)
	if strings.Count(text, "\n") != len(reqs)+3 { // header, comment, and the quoted newline
		t.Fatalf("the file does not hold a quoted newline:\n%s", text)
	}
	a, err := Analyze(writeFile(t, "quoted.csv.zst", text, true), Options{Segment: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	o := opByName(t, a, "GET")
	if a.Requests != uint64(len(reqs)) || o.Requests != uint64(len(reqs))-2 {
		t.Errorf("%d requests read, %d succeeded; want %d and %d", a.Requests, o.Requests, len(reqs), len(reqs)-2)
	}
	if o.ErrorKinds[reqs[3].errText] != 1 || o.ErrorKinds["timeout"] != 1 {
		t.Errorf("error kinds %v", o.ErrorKinds)
	}
	if len(a.Phases[0].Hosts) != 1 || a.Phases[0].Hosts[0] != "http://127.0.0.1:9000" {
		t.Errorf("a quoted endpoint is another host: %q", a.Phases[0].Hosts)
	}
}

// The format is told by the first line, not the file's name; a file
// need not be compressed.
func TestWarpFormatByContent(t *testing.T) {
	reqs := steady(0, "GET", 0, 10*time.Second, time.Second, 10)
	for _, c := range []struct {
		name, text string
		compress   bool
		kind       string
	}{
		{"warp.tsv.zst", warpText(reqs), true, "warp"},
		{"warp-plain.txt", warpText(reqs), false, "warp"},
		{"storbench.csv.zst", header + "\nGET\t0\th1:9000\t1000000000\t100\t1000\t4096\t\n", true, "benchdata"},
	} {
		a, err := Analyze(writeFile(t, c.name, c.text, c.compress), Options{Segment: time.Second})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if a.Kind != c.kind {
			t.Errorf("%s read as %s, want %s", c.name, a.Kind, c.kind)
		}
	}
}

// Bad files: one error, naming the file and saying what is wrong.
func TestWarpBadInput(t *testing.T) {
	fixture, err := os.ReadFile(warpFixture)
	if err != nil {
		t.Fatal(err)
	}
	good := steady(0, "GET", 0, 10*time.Second, time.Second, 10)
	backwards := append([]wreq(nil), good...)
	backwards[2].end = backwards[2].start - time.Millisecond
	early := append([]wreq(nil), good...)
	early[4].fb = early[4].start - time.Millisecond
	for _, c := range []struct {
		name    string
		content []byte
		want    string
	}{
		{"truncated.csv.zst", fixture[:len(fixture)/2], "cut short"},
		{"header.csv.zst", writeZstd(t, "idx\tthread\top\tclient_id\tbytes\n0\t1\tGET\tx\t10\n").Bytes(), ErrNotRequests.Error()},
		{"comma.csv.zst", writeZstd(t, strings.ReplaceAll(warpText(good), "\t", ",")).Bytes(), ErrNotRequests.Error()},
		{"empty.csv.zst", nil, "empty file"},
		{"empty-zstd.csv.zst", writeZstd(t, "").Bytes(), "empty file"},
		{"backwards.csv.zst", writeZstd(t, warpText(backwards)).Bytes(), "line 4: the request ends"},
		{"firstbyte.csv.zst", writeZstd(t, warpText(early)).Bytes(), "line 6: the first byte"},
		{"short-line.csv.zst", writeZstd(t, warpHeaderLine+"\n0\t1\tGET\n").Bytes(), "line 2: 3 fields, the header has 14"},
		{"time.csv.zst", writeZstd(t, strings.Replace(warpText(good), "2026-11-22T22:40:03Z", "yesterday", 1)).Bytes(), `line 4: end "yesterday" is not an RFC 3339 time`},
		{"unclosed.csv.zst", writeZstd(t, strings.Replace(warpText(good), "\t\t2026", "\t\"oops\t2026", 1)).Bytes(), "line 2: a quoted field is never closed"},
	} {
		path := filepath.Join(t.TempDir(), c.name)
		if err := os.WriteFile(path, c.content, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Analyze(path, Options{Segment: time.Second})
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, path) || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%s: %q does not name the file and say %q on one line", c.name, msg, c.want)
		}
	}
}

// Times as warp writes them, in UTC or with the offset of the local zone,
// read to the nanosecond, after a time of the same minute (the parser's
// remembered minute) or of another.
func FuzzParseRFC3339(f *testing.F) {
	f.Add(int64(1795473601959836505), int16(0), int64(1))
	f.Add(int64(1795473601000000000), int16(60), int64(-61e9))
	f.Add(int64(951782400000000001), int16(-330), int64(3e9)) // 2000-02-29
	f.Add(int64(-1), int16(0), int64(0))
	f.Fuzz(func(t *testing.T, ns int64, offMin int16, before int64) {
		zone := time.FixedZone("", int(offMin%(24*60))*60)
		tm := time.Unix(0, ns).In(zone)
		prev := time.Unix(0, ns-before%(120e9)).In(zone)
		if tm.Year() < 0 || tm.Year() > 9999 || prev.Year() < 0 || prev.Year() > 9999 {
			return
		}
		var p timeParser
		if got, ok := p.parse([]byte(prev.Format(time.RFC3339Nano))); !ok || got != prev.UnixNano() {
			t.Fatalf("%s: got %d, %v; want %d", prev.Format(time.RFC3339Nano), got, ok, prev.UnixNano())
		}
		s := tm.Format(time.RFC3339Nano)
		got, ok := p.parse([]byte(s))
		if !ok || got != ns {
			t.Fatalf("%s after %s: got %d, %v; want %d", s, prev.Format(time.RFC3339Nano), got, ok, ns)
		}
	})
}

// What parseRFC3339 accepts, time.Parse reads the same; it refuses what
// is not a time.
func FuzzParseRFC3339Text(f *testing.F) {
	for _, s := range []string{"2026-11-22T22:40:01.959836505Z", "2026-02-29T00:00:00Z", "2024-02-29T23:59:59.5+01:00",
		"2026-11-22T22:40:01.Z", "2026-13-01T00:00:00Z", "2026-11-22 22:40:01Z", "yesterday", "2026-11-22T22:40:01.1234567891Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseRFC3339([]byte(s))
		if !ok {
			return
		}
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatalf("%q: read as %d, time.Parse refuses it: %v", s, got, err)
		}
		if tm.UnixNano() != got {
			t.Fatalf("%q: %d, time.Parse %d", s, got, tm.UnixNano())
		}
	})
}

func TestParseRFC3339Refuses(t *testing.T) {
	for _, s := range []string{"", "2026-11-22T22:40:01", "2026-02-29T00:00:00Z", "2026-11-22T24:00:00Z", "2026-11-22T22:40:01.Z",
		"2026-11-22T22:40:01.1234567891Z", "2026-11-22T22:40:01+0100", "2026-11-22T22:40:01 ", "２026-11-22T22:40:01Z"} {
		if v, ok := parseRFC3339([]byte(s)); ok {
			t.Errorf("%q read as %d", s, v)
		}
	}
}

// Scanning a warp file allocates nothing per request (run with -benchmem:
// 0 allocs/op, one op being one request line).
func BenchmarkWarpScan(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(warpHeaderLine + "\n")
	for i := range b.N {
		s := time.Duration(i) * time.Millisecond
		r := wreq{thread: i % 16, op: "GET", ep: "http://10.0.0.1:9000", start: s, fb: s + 900*time.Microsecond, end: s + time.Millisecond, bytes: 4096}
		buf.WriteString(r.line(i) + "\n")
	}
	b.ReportAllocs()
	b.SetBytes(int64(buf.Len() / max(b.N, 1)))
	b.ResetTimer()
	var sum int64
	n, err := scanTSV(&buf, func(l *benchLine) { sum += l.lat })
	if err != nil || n != uint64(b.N) {
		b.Fatalf("%d lines, %v", n, err)
	}
}

// warp's error texts name the object, so every one can differ: the kinds
// kept stay few (each cut to a kind's length), the rest counted as one,
// and no error is lost.
func TestWarpErrorKindsBounded(t *testing.T) {
	reqs := steady(0, "GET", 0, 10*time.Second, 50*time.Millisecond, 10)
	for i := range reqs {
		reqs[i].errText = "GET obj/" + strconv.Itoa(i) + ": " + strings.Repeat("x", 300)
	}
	a, err := Analyze(writeFile(t, "errors.csv.zst", warpText(reqs), true), Options{Segment: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	o := opByName(t, a, "GET")
	var total uint64
	for k, n := range o.ErrorKinds {
		total += n
		if len(k) > maxErrorKind {
			t.Errorf("kind of %d bytes kept", len(k))
		}
	}
	if len(o.ErrorKinds) > maxErrorKinds+1 || o.ErrorKinds[otherErrors] == 0 || total != uint64(len(reqs)) {
		t.Errorf("%d kinds, %d other, %d errors in all; want at most %d kinds and all %d errors", len(o.ErrorKinds), o.ErrorKinds[otherErrors], total, maxErrorKinds+1, len(reqs))
	}
}
