package report

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// chromiumBinary finds Debian's chromium, installing it when missing and
// possible (root with apt-get); "" when it cannot be had.
func chromiumBinary(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Geteuid() != 0 {
		return ""
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	t.Log("installing chromium (apt-get install -y chromium)")
	if out, err := exec.CommandContext(ctx, "apt-get", "install", "-y", "chromium").CombinedOutput(); err != nil {
		t.Logf("apt-get install chromium: %v\n%s", err, out)
		return ""
	}
	p, _ := exec.LookPath("chromium")
	return p
}

// cdp speaks the DevTools protocol over --remote-debugging-pipe: JSON
// messages separated by NUL bytes, Chromium reading fd 3 and writing fd 4.
type cdp struct {
	w      *os.File
	mu     sync.Mutex
	nextID int
	msgs   chan cdpMsg
	events []cdpMsg
}

type cdpMsg struct {
	ID        int             `json:"id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	Result    json.RawMessage `json:"result"`
	Error     json.RawMessage `json:"error"`
	SessionID string          `json:"sessionId"`
}

func (c *cdp) read(r *os.File) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		b, err := br.ReadBytes(0)
		if err != nil {
			close(c.msgs)
			return
		}
		var m cdpMsg
		if json.Unmarshal(b[:len(b)-1], &m) == nil {
			c.msgs <- m
		}
	}
}

// call sends a command and waits for its answer, keeping events seen.
func (c *cdp) call(ctx context.Context, session, method string, params any, out any) error {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	b, _ := json.Marshal(msg)
	if _, err := c.w.Write(append(b, 0)); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %v", method, ctx.Err())
		case m, ok := <-c.msgs:
			if !ok {
				return fmt.Errorf("%s: chromium closed the pipe", method)
			}
			if m.ID == 0 {
				c.events = append(c.events, m)
				continue
			}
			if m.ID != id {
				continue
			}
			if len(m.Error) > 0 {
				return fmt.Errorf("%s: %s", method, m.Error)
			}
			if out != nil {
				return json.Unmarshal(m.Result, out)
			}
			return nil
		}
	}
}

// waitEvent waits for an event of the given method.
func (c *cdp) waitEvent(ctx context.Context, method string) error {
	for _, e := range c.events {
		if e.Method == method {
			return nil
		}
	}
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %v", method, ctx.Err())
		case m, ok := <-c.msgs:
			if !ok {
				return fmt.Errorf("waiting for %s: chromium closed the pipe", method)
			}
			if m.ID == 0 {
				c.events = append(c.events, m)
				if m.Method == method {
					return nil
				}
			}
		}
	}
}

func artifactDir(t *testing.T) string {
	dir := os.Getenv("STORBENCH_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "storbench-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestHTMLReportInChromium opens the report of each engine's results (the
// s3 one with a comparison), of a synthetic run on 64 hosts, and of results
// written before per-second latency was kept, in headless Chromium: the
// page must load with no request but its own file, no console error or
// exception, every chart must have data points and nothing in a chart may
// be cut off (every text, legend included, inside the chart's box), and
// every phase of a run with per-second latency must have its latency over
// time. A full-page screenshot is kept.
func TestHTMLReportInChromium(t *testing.T) {
	bin := chromiumBinary(t)
	if bin == "" {
		t.Skip("chromium is not installed and could not be installed (apt-get install -y chromium)")
	}
	for _, tc := range []struct {
		name, dir, before string
		perSecond         bool
	}{
		{"fio", "fio-lat", "", true}, {"md", "md-lat", "", true}, {"edges", "edges", "", true}, {"s3-compare", "s3-lat-b", "s3-lat-a", true},
		{"64-hosts", "", "", true}, {"before-per-second", "s3-b", "s3-a", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(resultsDir, tc.dir)
			if tc.dir == "" {
				dir = synthHosts(t, 64, 40)
			}
			before := ""
			if tc.before != "" {
				before = filepath.Join(resultsDir, tc.before)
			}
			page, err := HTMLFolder(dir, before)
			if err != nil {
				t.Fatal(err)
			}
			tmp := t.TempDir()
			file := filepath.Join(tmp, "report.html")
			if err := os.WriteFile(file, page, 0o644); err != nil {
				t.Fatal(err)
			}
			// The default "storbench score" (4k random reads and 1 MiB
			// writes in one mean, tree create/remove as metadata) is not
			// shown, even from results that recorded it.
			if bytes.Contains(page, []byte("storbench score")) {
				t.Error("the report shows the default storbench score")
			}
			shot := filepath.Join(artifactDir(t), "report-"+tc.name+".png")
			checkInChromium(t, bin, file, shot, tc.perSecond)
			t.Logf("screenshot: %s", shot)
		})
	}
}

// edgeCheck lists, for every line over time of a throughput chart (a
// linear axis from 0), the points at a phase's edges (its first two and
// last two) that dip below a quarter of the line's median or spike above
// 2.5 times it: what a second holding two seconds' operations next to one
// holding none, or a partial second's count drawn as a second's, look
// like. (A real last second can be twice as fast: the edges fixture's
// 1 MiB writes end in the page cache at 2x the rate of the seconds
// before, by fio's own counts and latencies.) It also lists every tick label longer than 8 characters.
const edgeCheck = `JSON.stringify((() => {
  const out = {edges: [], ticks: []};
  for (const svg of document.querySelectorAll('svg.chart')) {
    const title = svg.getAttribute('aria-label');
    for (const t of svg.querySelectorAll('text.tk')) {
      if (t.textContent.length > 8) out.ticks.push(title + ': "' + t.textContent + '"');
    }
    const zero = parseFloat(svg.getAttribute('data-zero'));
    if (!(zero > 0) || !/^(Throughput|Operations per second)/.test(title)) continue;
    const lines = {};
    for (const c of svg.querySelectorAll('circle.pt')) {
      (lines[c.getAttribute('data-line')] ||= []).push([parseFloat(c.getAttribute('cx')), zero - parseFloat(c.getAttribute('cy'))]);
    }
    for (const [k, pts] of Object.entries(lines)) {
      if (pts.length < 5) continue;
      pts.sort((a, b) => a[0] - b[0]);
      const vs = pts.map(p => p[1]).sort((a, b) => a - b);
      const med = vs[Math.floor(vs.length / 2)];
      if (!(med > 0)) continue;
      for (const i of [0, 1, pts.length - 2, pts.length - 1]) {
        const r = pts[i][1] / med;
        if (r < 0.25 || r > 2.5) out.edges.push(title + ': line ' + k + ', point ' + i + ' of ' + pts.length + ' is ' + r.toFixed(2) + 'x the median');
      }
    }
  }
  return out;
})())`

// layoutCheck lists, in the page, every text of a chart that reaches
// outside the chart's box, and every phase without a latency-over-time
// chart.
const layoutCheck = `JSON.stringify((() => {
  const out = {cut: [], phases: 0, missing: []};
  for (const svg of document.querySelectorAll('svg.chart')) {
    const box = svg.getBoundingClientRect();
    for (const el of svg.querySelectorAll('text')) {
      const b = el.getBoundingClientRect(); // after rotation, on the page
      if (b.left < box.left - 0.5 || b.top < box.top - 0.5 || b.right > box.right + 0.5 || b.bottom > box.bottom + 0.5) {
        out.cut.push(svg.getAttribute('aria-label') + ': "' + el.textContent + '" spans x ' + (b.left - box.left).toFixed(1) + '-' +
          (b.right - box.left).toFixed(1) + ', y ' + (b.top - box.top).toFixed(1) + '-' + (b.bottom - box.top).toFixed(1) + ' of ' + box.width + 'x' + box.height);
      }
    }
  }
  for (const h of document.querySelectorAll('h3')) {
    out.phases++;
    let found = false;
    for (let el = h.nextElementSibling; el && el.tagName !== 'H3' && el.tagName !== 'H2'; el = el.nextElementSibling) {
      if (el.querySelector('svg.chart[aria-label^="Latency per"]')) found = true;
    }
    if (!found) out.missing.push(h.textContent);
  }
  return out;
})())`

// checkInChromium opens file in Chromium and checks it as the comment of
// TestHTMLReportInChromium says; extra, when set, is given a function that
// evaluates a JavaScript expression (a string result) in the page, for a
// test's own checks.
func checkInChromium(t *testing.T, bin, file, shot string, perSecond bool, extra ...func(eval func(expr string) string)) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--user-data-dir="+t.TempDir(), "--remote-debugging-pipe", "--window-size=1300,900", "about:blank")
	cmd.ExtraFiles = []*os.File{inR, outW}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	defer func() {
		inW.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	c := &cdp{w: inW, msgs: make(chan cdpMsg, 1024)}
	go c.read(outR)

	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := c.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		t.Fatalf("%v\nchromium: %s", err, stderr.String())
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := c.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		t.Fatal(err)
	}
	s := att.SessionID
	for _, m := range []string{"Network.enable", "Runtime.enable", "Log.enable", "Page.enable"} {
		if err := c.call(ctx, s, m, map[string]any{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	url := "file://" + file
	if err := c.call(ctx, s, "Page.navigate", map[string]any{"url": url}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.waitEvent(ctx, "Page.loadEventFired"); err != nil {
		t.Fatal(err)
	}
	var eval struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
	}
	// Let anything late (a lazy request, a deferred error) arrive.
	time.Sleep(200 * time.Millisecond)
	if err := c.call(ctx, s, "Runtime.evaluate", map[string]any{"returnByValue": true,
		"expression": `JSON.stringify(Array.from(document.querySelectorAll('svg.chart')).map(s => [s.getAttribute('aria-label'), s.querySelectorAll('.pt').length]))`}, &eval); err != nil {
		t.Fatal(err)
	}
	var charts [][2]any
	if err := json.Unmarshal([]byte(eval.Result.Value), &charts); err != nil {
		t.Fatalf("charts: %v (%q)", err, eval.Result.Value)
	}
	if len(charts) == 0 {
		t.Error("the page has no chart")
	}
	for _, ch := range charts {
		if n, _ := ch[1].(float64); n == 0 {
			t.Errorf("chart %q has no data points", ch[0])
		}
	}
	var layout struct {
		Cut     []string `json:"cut"`
		Phases  int      `json:"phases"`
		Missing []string `json:"missing"`
	}
	if err := c.call(ctx, s, "Runtime.evaluate", map[string]any{"returnByValue": true, "expression": layoutCheck}, &eval); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(eval.Result.Value), &layout); err != nil {
		t.Fatalf("layout: %v (%q)", err, eval.Result.Value)
	}
	for _, c := range layout.Cut {
		t.Errorf("cut off: %s", c)
	}
	var edges struct {
		Edges []string `json:"edges"`
		Ticks []string `json:"ticks"`
	}
	if err := c.call(ctx, s, "Runtime.evaluate", map[string]any{"returnByValue": true, "expression": edgeCheck}, &eval); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(eval.Result.Value), &edges); err != nil {
		t.Fatalf("edges: %v (%q)", err, eval.Result.Value)
	}
	for _, e := range edges.Edges {
		t.Errorf("drawn at a phase's edge: %s", e)
	}
	for _, e := range edges.Ticks {
		t.Errorf("tick label longer than 8 characters: %s", e)
	}
	if layout.Phases == 0 {
		t.Error("the page shows no phase")
	}
	for _, fn := range extra {
		fn(func(expr string) string {
			if err := c.call(ctx, s, "Runtime.evaluate", map[string]any{"returnByValue": true, "expression": expr}, &eval); err != nil {
				t.Fatal(err)
			}
			return eval.Result.Value
		})
	}
	if perSecond && len(layout.Missing) > 0 {
		t.Errorf("phases without latency over time: %v", layout.Missing)
	}
	if !perSecond && !strings.Contains(string(must(os.ReadFile(file))), "Latency per second: not recorded") {
		t.Error("results without per-second latency do not say it was not recorded")
	}
	var metrics struct {
		Content struct {
			Width, Height float64
		} `json:"cssContentSize"`
	}
	if err := c.call(ctx, s, "Page.getLayoutMetrics", map[string]any{}, &metrics); err != nil {
		t.Fatal(err)
	}
	var img struct {
		Data string `json:"data"`
	}
	if err := c.call(ctx, s, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": metrics.Content.Width, "height": metrics.Content.Height, "scale": 1}}, &img); err != nil {
		t.Fatal(err)
	}
	png, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil || len(png) < 1000 {
		t.Fatalf("screenshot: %v (%d bytes)", err, len(png))
	}
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, e := range c.events {
		switch e.Method {
		case "Network.requestWillBeSent":
			var p struct {
				Request struct{ URL string } `json:"request"`
			}
			_ = json.Unmarshal(e.Params, &p)
			if p.Request.URL != url {
				t.Errorf("the page made a request: %s", p.Request.URL)
			}
		case "Runtime.exceptionThrown":
			t.Errorf("exception: %s", e.Params)
		case "Runtime.consoleAPICalled":
			var p struct{ Type string }
			_ = json.Unmarshal(e.Params, &p)
			if p.Type == "error" || p.Type == "assert" {
				t.Errorf("console error: %s", e.Params)
			}
		case "Log.entryAdded":
			var p struct {
				Entry struct{ Level, Text, URL string } `json:"entry"`
			}
			_ = json.Unmarshal(e.Params, &p)
			if p.Entry.Level == "error" {
				t.Errorf("console error: %s %s", p.Entry.Text, p.Entry.URL)
			}
		}
	}
	t.Logf("%d charts, points %v", len(charts), charts)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
