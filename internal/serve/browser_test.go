package serve

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// browser drives headless Chromium over --remote-debugging-pipe (the
// DevTools protocol: JSON messages separated by NUL bytes, Chromium
// reading fd 3 and writing fd 4), one page attached.
type browser struct {
	w       *os.File
	next    int
	msgs    chan map[string]json.RawMessage
	session string
	events  []string
}

func startBrowser(t *testing.T) *browser {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (apt-get install -y chromium, or /work/main/scripts/install-pkg.sh chromium)")
	}
	// Chromium's helper processes may still write its profile after it
	// is killed: the profile is removed at the end, best effort, not by
	// t.TempDir (which fails the test when it cannot).
	profile, err := os.MkdirTemp("", "storbench-serve-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-extensions", "--user-data-dir="+profile,
		"--remote-debugging-pipe", "--window-size=1300,900", "about:blank")
	cmd.ExtraFiles = []*os.File{inR, outW}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	b := &browser{w: inW, msgs: make(chan map[string]json.RawMessage, 1024)}
	t.Cleanup(func() {
		// Closed through the protocol, Chromium ends its helpers too.
		data, _ := json.Marshal(map[string]any{"id": 1 << 30, "method": "Browser.close", "params": map[string]any{}})
		_, _ = inW.Write(append(data, 0))
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		inW.Close()
		for range 20 {
			if os.RemoveAll(profile) == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	go func() {
		br := bufio.NewReaderSize(outR, 1<<20)
		for {
			line, err := br.ReadBytes(0)
			if err != nil {
				close(b.msgs)
				return
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(line[:len(line)-1], &m) == nil {
				b.msgs <- m
			}
		}
	}()
	var target struct{ TargetID string }
	b.call(t, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var att struct{ SessionID string }
	b.call(t, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att)
	b.session = att.SessionID
	for _, m := range []string{"Page.enable", "Runtime.enable"} {
		b.call(t, b.session, m, map[string]any{}, nil)
	}
	return b
}

// call sends a command and waits for its answer, keeping the names of
// events seen meanwhile.
func (b *browser) call(t *testing.T, session, method string, params, out any) {
	t.Helper()
	b.next++
	msg := map[string]any{"id": b.next, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	if _, err := b.w.Write(append(data, 0)); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(30 * time.Second)
	for {
		select {
		case <-timeout:
			t.Fatalf("%s: no answer in 30s", method)
		case m, ok := <-b.msgs:
			if !ok {
				t.Fatalf("%s: chromium closed the pipe", method)
			}
			var id int
			_ = json.Unmarshal(m["id"], &id)
			if id == 0 {
				var ev string
				_ = json.Unmarshal(m["method"], &ev)
				b.events = append(b.events, ev)
				continue
			}
			if id != b.next {
				continue
			}
			if e := m["error"]; len(e) > 0 {
				t.Fatalf("%s: %s", method, e)
			}
			if out != nil {
				if err := json.Unmarshal(m["result"], out); err != nil {
					t.Fatal(err)
				}
			}
			return
		}
	}
}

// open navigates to u and waits for the page's load event.
func (b *browser) open(t *testing.T, u string) {
	t.Helper()
	b.events = nil
	b.call(t, b.session, "Page.navigate", map[string]any{"url": u}, nil)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		for _, e := range b.events {
			if e == "Page.loadEventFired" {
				return
			}
		}
		b.call(t, b.session, "Runtime.evaluate", map[string]any{"expression": "1"}, nil)
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not load", u)
}

// eval evaluates a script returning JSON text and decodes it into out.
func (b *browser) eval(t *testing.T, script string, out any) {
	t.Helper()
	var r struct {
		Result struct{ Value string } `json:"result"`
	}
	b.call(t, b.session, "Runtime.evaluate", map[string]any{"returnByValue": true, "expression": "JSON.stringify(" + script + ")"}, &r)
	if err := json.Unmarshal([]byte(r.Result.Value), out); err != nil {
		t.Fatalf("%s: %v (%q)", script, err, r.Result.Value)
	}
}

// evalAwait evaluates a script whose value is a promise of a string and
// decodes what it resolves to into out.
func (b *browser) evalAwait(t *testing.T, script string, out *string) {
	t.Helper()
	var r struct {
		Result struct{ Value string } `json:"result"`
	}
	b.call(t, b.session, "Runtime.evaluate", map[string]any{"returnByValue": true, "awaitPromise": true, "expression": script}, &r)
	*out = r.Result.Value
}

// screenshot saves the whole page as a PNG.
func (b *browser) screenshot(t *testing.T, file string) {
	t.Helper()
	var m struct {
		Content struct{ Width, Height float64 } `json:"cssContentSize"`
	}
	b.call(t, b.session, "Page.getLayoutMetrics", map[string]any{}, &m)
	var img struct{ Data string }
	b.call(t, b.session, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": m.Content.Width, "height": m.Content.Height, "scale": 1}}, &img)
	png, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil || len(png) < 1000 {
		t.Fatalf("screenshot: %v (%d bytes)", err, len(png))
	}
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// chartDOM is what the page shows of each chart: its title, axis labels,
// tick labels, points, and the texts that reach outside the chart.
const chartDOM = `Array.from(document.querySelectorAll('svg.chart')).map(s => {
  const box = s.getBoundingClientRect();
  return {title: s.getAttribute('aria-label'),
    axes: Array.from(s.querySelectorAll('text.al')).map(e => e.textContent),
    ticks: Array.from(s.querySelectorAll('text.tk')).map(e => e.textContent),
    points: s.querySelectorAll('.pt').length,
    cut: Array.from(s.querySelectorAll('text')).filter(e => { const b = e.getBoundingClientRect();
      return b.left < box.left - 0.5 || b.right > box.right + 0.5 || b.top < box.top - 0.5 || b.bottom > box.bottom + 0.5 }).map(e => e.textContent)};
})`

type chartSeen struct {
	Title  string
	Axes   []string
	Ticks  []string
	Points int
	Cut    []string
}

// TestServeInChromium opens the run list, a comparison of two groups and
// a trend chart in headless Chromium through a real listener with a
// token (given once in the URL, then carried by the cookie): the rows and
// verdicts are on the pages, the chart has its points, both axes are
// labelled with their units, tick labels are round numbers or dates, and
// nothing of the chart is cut off. Screenshots are kept.
func TestServeInChromium(t *testing.T) {
	b := startBrowser(t)
	fx := newFixture(t)
	const tok = "chromium-test-token-0123456789"
	srv := httptest.NewServer(New(fx.cat, tok, nil).Handler())
	defer srv.Close()
	shots := t.TempDir()
	if d := os.Getenv("STORBENCH_ARTIFACTS"); d != "" {
		shots = d
		os.MkdirAll(d, 0o755)
	}

	b.open(t, srv.URL+"/?token="+tok)
	var where string
	b.eval(t, "location.href", &where)
	if strings.Contains(where, tok) || !strings.HasSuffix(where, "/") {
		t.Errorf("after ?token= the address is %s, want the page without the token", where)
	}
	var rows int
	b.eval(t, "document.querySelectorAll('#runs tr.run').length", &rows)
	if rows != 6 {
		t.Errorf("the run list shows %d runs, want 6", rows)
	}
	b.screenshot(t, filepath.Join(shots, "serve-runs.png"))

	b.open(t, srv.URL+"/compare?a="+url.QueryEscape("label=tuning=default")+"&b="+url.QueryEscape("label=tuning=tuned"))
	var verdicts map[string]string
	b.eval(t, `Object.fromEntries(Array.from(document.querySelectorAll('#compare tr.fig')).map(r => [r.cells[0].textContent + ' ' + r.cells[1].textContent + ' ' + r.cells[2].textContent, r.dataset.verdict]))`, &verdicts)
	if verdicts["seq-read read throughput"] != "faster" {
		t.Errorf("comparison: seq-read read throughput is %q, want faster (all: %v)", verdicts["seq-read read throughput"], verdicts)
	}
	b.screenshot(t, filepath.Join(shots, "serve-compare.png"))

	b.open(t, srv.URL+"/trend?figure="+url.QueryEscape("seq-read/read/bw")+"&by=tuning")
	var charts []chartSeen
	b.eval(t, chartDOM, &charts)
	if len(charts) != 1 {
		t.Fatalf("the trend page has %d charts, want 1", len(charts))
	}
	ch := charts[0]
	if ch.Points != 6 {
		t.Errorf("the trend chart has %d points, want 6", ch.Points)
	}
	if len(ch.Axes) != 2 || !strings.Contains(ch.Axes[0], "UTC") || ch.Axes[1] != "bw (GiB/s)" {
		t.Errorf("axis labels %q: want the run start (UTC) and bw (GiB/s)", ch.Axes)
	}
	for _, tk := range ch.Ticks {
		if len(tk) > 8 || strings.Contains(tk, "00000") {
			t.Errorf("tick label %q is not a round number or a short date", tk)
		}
	}
	if len(ch.Cut) > 0 {
		t.Errorf("cut off in the chart: %q", ch.Cut)
	}
	b.screenshot(t, filepath.Join(shots, "serve-trend.png"))

	// A run's report, followed from the run list's link.
	b.open(t, srv.URL+"/")
	var href string
	b.eval(t, `document.querySelector('#runs a[href$="/report.html"]').href`, &href)
	b.open(t, href)
	var reportCharts int
	b.eval(t, "document.querySelectorAll('svg.chart').length", &reportCharts)
	if !strings.HasSuffix(href, "/run/"+fx.runs[0].id()+"/report.html") || reportCharts == 0 {
		t.Errorf("the run list's report link %s shows %d charts", href, reportCharts)
	}
	for _, e := range b.events {
		if e == "Runtime.exceptionThrown" {
			t.Error("a page threw an exception")
		}
	}
	t.Logf("screenshots in %s; chart %+v", shots, ch)
}
