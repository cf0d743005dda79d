// Package chromium opens a storbench report in headless Chromium over the
// DevTools protocol and checks what a reader would see: the page loads
// with no request but its own file and no console error, every chart has
// data points, nothing in a chart is cut off, every phase has its latency
// over time; a full-page screenshot is kept. The report's own tests and the
// GlusterFS cluster tests use it.
package chromium

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Binary finds Debian's chromium, installing it when missing and
// possible (root with apt-get); "" when it cannot be had.
func Binary(t testing.TB) string {
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

// ArtifactDir is where tests keep screenshots: $STORBENCH_ARTIFACTS, or
// storbench-artifacts in the temporary directory.
func ArtifactDir(t testing.TB) string {
	dir := os.Getenv("STORBENCH_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "storbench-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
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
      // A phase whose operations were all too short for a line over
      // time says so instead (report: "drawn only in the rates chart").
      if (el.querySelector('svg.chart[aria-label^="Latency per"]') || el.textContent.includes('drawn only in the rates chart')) found = true;
    }
    if (!found) out.missing.push(h.textContent);
  }
  return out;
})())`
