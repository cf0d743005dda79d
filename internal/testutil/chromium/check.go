package chromium

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// page is a report loaded in a headless Chromium.
type page struct {
	t       testing.TB
	ctx     context.Context
	c       *cdp
	session string
	url     string
}

// eval evaluates a JavaScript expression whose value is a string.
func (p *page) eval(expr string) string {
	var r struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
	}
	if err := p.c.call(p.ctx, p.session, "Runtime.evaluate", map[string]any{"returnByValue": true, "expression": expr}, &r); err != nil {
		p.t.Fatal(err)
	}
	return r.Result.Value
}

// evalJSON evaluates expr (a JSON.stringify) into v.
func (p *page) evalJSON(what, expr string, v any) {
	s := p.eval(expr)
	if err := json.Unmarshal([]byte(s), v); err != nil {
		p.t.Fatalf("%s: %v (%q)", what, err, s)
	}
}

// removeSingletonDir removes the directory of the profile's singleton
// socket, which Chromium makes in the temporary directory
// (org.chromium.Chromium.*, linked from the profile) and removes only
// when it ends by itself: killed, it left one there for good each time.
func removeSingletonDir(profile string) {
	target, err := os.Readlink(filepath.Join(profile, "SingletonSocket"))
	if err != nil {
		return
	}
	if dir := filepath.Dir(target); strings.HasPrefix(filepath.Base(dir), "org.chromium.Chromium.") {
		_ = os.RemoveAll(dir)
	}
}

// open starts Chromium (bin) and loads file in it; stop ends Chromium.
func open(ctx context.Context, t testing.TB, bin, file string) (p *page, stop func()) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	profile := t.TempDir()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--user-data-dir="+profile, "--remote-debugging-pipe", "--window-size=1300,900", "about:blank")
	cmd.ExtraFiles = []*os.File{inR, outW}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	stop = func() {
		inW.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		removeSingletonDir(profile)
	}
	c := &cdp{w: inW, msgs: make(chan cdpMsg, 1024)}
	go c.read(outR)
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := c.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		stop()
		t.Fatalf("%v\nchromium: %s", err, stderr.String())
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := c.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		stop()
		t.Fatal(err)
	}
	p = &page{t: t, ctx: ctx, c: c, session: att.SessionID, url: "file://" + file}
	for _, m := range []string{"Network.enable", "Runtime.enable", "Log.enable", "Page.enable"} {
		if err := c.call(ctx, p.session, m, map[string]any{}, nil); err != nil {
			stop()
			t.Fatal(err)
		}
	}
	if err := c.call(ctx, p.session, "Page.navigate", map[string]any{"url": p.url}, nil); err != nil {
		stop()
		t.Fatal(err)
	}
	if err := c.waitEvent(ctx, "Page.loadEventFired"); err != nil {
		stop()
		t.Fatal(err)
	}
	// Let anything late (a lazy request, a deferred error) arrive.
	time.Sleep(200 * time.Millisecond)
	return p, stop
}

// Check opens file in Chromium (bin) and checks it as the package says;
// perSecond says every phase must have its latency over time (else the
// page must say it was not recorded). extra, when set, is given a function
// that evaluates a JavaScript expression (a string result) in the page,
// for a test's own checks. The screenshot goes to shot.
func Check(t testing.TB, bin, file, shot string, perSecond bool, extra ...func(eval func(expr string) string)) {
	t.Helper()
	check(t, bin, file, shot, perSecond, true, extra...)
}

// CheckWithEvents is Check for the report of a run whose phases had
// events (a brick lost, a gateway stopped): their dips are real, so a
// line's first and last seconds may be far from its median, and are not
// held to it.
func CheckWithEvents(t testing.TB, bin, file, shot string, extra ...func(eval func(expr string) string)) {
	t.Helper()
	check(t, bin, file, shot, true, false, extra...)
}

// CheckEdges is Check of a report whose every phase has its latency over
// time; edges says whether a line's first and last seconds are held to
// its median (not for a phase whose client was starved: its rates are
// the client's).
func CheckEdges(t testing.TB, bin, file, shot string, edges bool, extra ...func(eval func(expr string) string)) {
	t.Helper()
	check(t, bin, file, shot, true, edges, extra...)
}

// check is Check; edges says the first and last seconds of every line
// are held to its median.
func check(t testing.TB, bin, file, shot string, perSecond, edges bool, extra ...func(eval func(expr string) string)) {
	t.Helper()
	// Generous: on a loaded 2-core machine (load 30-40) Chromium took more
	// than 30 s to start and draw a page of 64 hosts, and to take the
	// brick-loss report's full-page screenshot: a generous bound, still a
	// bound.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p, stop := open(ctx, t, bin, file)
	defer stop()
	var charts [][2]any
	p.evalJSON("charts", `JSON.stringify(Array.from(document.querySelectorAll('svg.chart')).map(s => [s.getAttribute('aria-label'), s.querySelectorAll('.pt').length]))`, &charts)
	if len(charts) == 0 {
		t.Error("the page has no chart")
	}
	for _, ch := range charts {
		if n, _ := ch[1].(float64); n == 0 {
			t.Errorf("chart %q has no data points", ch[0])
		}
	}
	p.checkLayout(file, perSecond, edges)
	for _, fn := range extra {
		fn(p.eval)
	}
	p.screenshot(shot)
	p.checkEvents()
	t.Logf("%d charts, points %v", len(charts), charts)
}

// checkLayout checks nothing in a chart is cut off, no phase's edge is
// drawn as a dip or a spike (with edges), no tick label is long, and
// every phase has its latency over time (perSecond) or says it was not
// recorded.
func (p *page) checkLayout(file string, perSecond, edges bool) {
	t := p.t
	var layout struct {
		Cut     []string `json:"cut"`
		Phases  int      `json:"phases"`
		Missing []string `json:"missing"`
	}
	p.evalJSON("layout", layoutCheck, &layout)
	for _, c := range layout.Cut {
		t.Errorf("cut off: %s", c)
	}
	var drawn struct {
		Edges []string `json:"edges"`
		Ticks []string `json:"ticks"`
	}
	p.evalJSON("edges", edgeCheck, &drawn)
	for _, e := range drawn.Edges {
		if edges {
			t.Errorf("drawn at a phase's edge: %s", e)
		}
	}
	for _, e := range drawn.Ticks {
		t.Errorf("tick label longer than 8 characters: %s", e)
	}
	if layout.Phases == 0 {
		t.Error("the page shows no phase")
	}
	if perSecond && len(layout.Missing) > 0 {
		t.Errorf("phases without latency over time: %v", layout.Missing)
	}
	if b, err := os.ReadFile(file); !perSecond && (err != nil || !strings.Contains(string(b), "Latency per second: not recorded")) {
		t.Error("results without per-second latency do not say it was not recorded")
	}
}

// screenshot keeps a full-page screenshot in shot.
func (p *page) screenshot(shot string) {
	t := p.t
	var metrics struct {
		Content struct {
			Width, Height float64
		} `json:"cssContentSize"`
	}
	if err := p.c.call(p.ctx, p.session, "Page.getLayoutMetrics", map[string]any{}, &metrics); err != nil {
		t.Fatal(err)
	}
	var img struct {
		Data string `json:"data"`
	}
	if err := p.c.call(p.ctx, p.session, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true,
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
}

// checkEvents fails the test for a request the page made (it must need
// nothing but its own file), an exception, or a console error.
func (p *page) checkEvents() {
	t := p.t
	for _, e := range p.c.events {
		switch e.Method {
		case "Network.requestWillBeSent":
			var r struct {
				Request struct{ URL string } `json:"request"`
			}
			_ = json.Unmarshal(e.Params, &r)
			if r.Request.URL != p.url {
				t.Errorf("the page made a request: %s", r.Request.URL)
			}
		case "Runtime.exceptionThrown":
			t.Errorf("exception: %s", e.Params)
		case "Runtime.consoleAPICalled":
			var r struct{ Type string }
			_ = json.Unmarshal(e.Params, &r)
			if r.Type == "error" || r.Type == "assert" {
				t.Errorf("console error: %s", e.Params)
			}
		case "Log.entryAdded":
			var r struct {
				Entry struct{ Level, Text, URL string } `json:"entry"`
			}
			_ = json.Unmarshal(e.Params, &r)
			if r.Entry.Level == "error" {
				t.Errorf("console error: %s %s", r.Entry.Text, r.Entry.URL)
			}
		}
	}
}
