package cli

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/safetext"
	"github.com/storbench/storbench/internal/testutil"
)

// hostileName is a name of kind (run, phase, op, ...) holding every
// character of testutil.Hostile, each between two K: "phaseK\x00K\x01K...".
func hostileName(kind string) string {
	var b strings.Builder
	b.WriteString(kind)
	for _, h := range testutil.Hostile() {
		b.WriteString("K" + h)
	}
	return b.String() + "K"
}

// noneRaw fails when out shows a hostile character raw: none but the
// output's own line breaks and tabs, none of them inside a name, only
// UTF-8; and wants each of names shown (escaped).
func noneRaw(t *testing.T, what, out string, names ...string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s is not UTF-8: a byte of a name reached it raw", what)
	}
	for _, r := range out {
		if safetext.Bad(r) && r != '\n' && r != '\t' {
			t.Errorf("%s holds %U raw", what, r)
			break
		}
	}
	for _, h := range testutil.Hostile() {
		if strings.Contains(out, "K"+h+"K") {
			t.Errorf("%s shows %q raw in a name", what, h)
		}
	}
	for _, n := range names {
		if !strings.Contains(out, n+`K\u0000K\u0001K`) {
			t.Errorf("%s does not show the %s name, escaped", what, n)
		}
	}
}

// hostileFolder writes a results folder as someone else could have: the
// run's name, its labels (key and value), a phase's name, its operation's,
// its host's, its event's name and output, and its error each holding
// every hostile character (hostileName). A storbench run refuses each of
// them where it is given (TestHostileNamesRefused) or sent (the
// controller, TestAgentFiguresNotAskedForRefused in internal/cluster).
func hostileFolder(t *testing.T) string {
	t.Helper()
	start := time.Now().Add(-time.Minute).UTC()
	host, op := hostileName("host"), hostileName("op")
	f, err := results.Create(t.TempDir(), results.RunInfo{RunHead: model.RunHead{RunID: results.NewRunID(start), Name: hostileName("run"), StartedAt: start},
		CommandLine: []string{"storbench", "run", hostileName("arg")}, Agents: []model.AgentInfo{{Host: host}},
		Labels: map[string]string{hostileName("labelkey"): hostileName("labelvalue")}})
	if err != nil {
		t.Fatal(err)
	}
	t0 := start.UnixNano()
	hr := &model.HostResult{Host: host}
	var lat []record.LatSecond
	var all record.Bins
	for s := range 5 {
		bins := record.FromMap(map[int64]uint64{1000: 90, 5000: 10})
		all = record.Merge(all, bins)
		from := t0 + int64(s)*1e9
		hr.Series = append(hr.Series, record.Second{StartNs: from, EndNs: from + 1e9, Op: op, Ops: 100, Bytes: 100 << 12})
		lat = append(lat, record.LatSecond{Op: op, StartNs: from, EndNs: from + 1e9, SumNs: 140000, Bins: bins})
	}
	hr.Ops = []record.OpStats{{Op: op, Ops: all.Total(), Bytes: all.Total() << 12, StartNs: t0, EndNs: t0 + 5e9,
		Lat: record.Hist{Stats: record.StatsFromMoments(all.Total(), 1000, 5000, 1400, 1200), Bins: all}}}
	if hr.LatencySeconds, err = record.EncodeLatSeconds(lat); err != nil {
		t.Fatal(err)
	}
	ps := results.BuildPhase(hostileName("phase"), model.EngineMD, nil, []*model.HostResult{hr})
	ps.Status, ps.Error = results.StatusFailed, hostileName("error")
	at, end := start.Add(time.Second), start.Add(2*time.Second)
	ps.Events = []model.PhaseEvent{{Name: hostileName("event"), Action: model.EventCommand, Command: hostileName("command"),
		PlannedS: 1, TimeoutS: 10, Start: &at, End: &end, Output: hostileName("output")}}
	if err := f.AddPhase(ps, []*model.HostResult{hr}); err != nil {
		t.Fatal(err)
	}
	if err := f.Finish(results.StatusFailed, fmt.Errorf("%s", hostileName("runerror"))); err != nil {
		t.Fatal(err)
	}
	return f.Path
}

// TestHostileNamesNeverRaw (issue 33): a results folder whose every kind
// of name and label holds each control character (C0, DEL, C1, the line
// separators, the bidirectional controls, a byte that is not UTF-8, whole
// escape sequences) is shown with none of them raw: in summary.md and
// report.html (storbench report), in storbench runs (table, CSV, JSON) and
// analyze, in serve's run list, and on the live line. Before, storbench
// runs printed them raw (a window title set, the screen cleared, fake
// lines), summary.md carried them and a raw <script>, and the live line
// an agent's.
func TestHostileNamesNeverRaw(t *testing.T) {
	t.Parallel()
	dir := hostileFolder(t)
	st, out := testState()
	if err := Execute(t.Context(), st, []string{"report", dir}); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	noneRaw(t, "summary.md", string(md), "run", "phase", "op")
	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	noneRaw(t, "report.html", string(page), "run", "phase", "op", "host", "event", "error")

	cat := filepath.Join(t.TempDir(), "catalog.db")
	if code, o := cmdOut(t, "catalog", "add", "--catalog", cat, dir); code != 0 {
		t.Fatalf("catalog add: exit %d\n%s", code, o)
	}
	for _, args := range [][]string{{"runs"}, {"runs", "--csv"}, {"runs", "--json"}, {"analyze", dir}} {
		code, o := cmdOut(t, append(args, "--catalog", cat)...)
		if args[0] == "analyze" {
			code, o = cmdOut(t, args...)
		}
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", strings.Join(args, " "), code, o)
		}
		want := []string{"run", "labelkey", "labelvalue"}
		if args[0] == "analyze" {
			want = []string{"phase", "op"}
		}
		noneRaw(t, strings.Join(args, " "), o, want...)
	}

	addr, _, stop := startServe(t, "--catalog", cat, "--listen", "127.0.0.1:0")
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	stop()
	noneRaw(t, "serve's run list", string(body), "run", "labelkey", "labelvalue")

	for _, tty := range []bool{false, true} {
		st, out := testState()
		st.Stdout, st.TTY, st.Verbosity = safetext.NewWriter(st.Stdout), tty, 1 // as Execute prints
		p := newProgress(st, nil)
		p.start(engine.Phase{Name: hostileName("phase"), Engine: "md"})
		snap := func(host string, n uint64) engine.Snapshot {
			return engine.Snapshot{Host: host, Stage: hostileName("stage"), Elapsed: time.Duration(1+n) * time.Second, Ops: []record.Count{{Op: hostileName("op"), Ops: n}}}
		}
		p.update(cluster.Progress{Hosts: []engine.Snapshot{snap(hostileName("host"), 0), snap("b", 0)}})
		p.update(cluster.Progress{Hosts: []engine.Snapshot{snap(hostileName("host"), 100), snap("b", 300)}})
		p.done()
		line := out.String()
		if tty {
			// Its own return and erase, and nothing else.
			if n := strings.Count(line, "\r\x1b[K"); n != 3 {
				t.Errorf("the live line drew itself %d times, want 3 (two updates, the end): %q", n, line)
			}
			line = strings.ReplaceAll(line, "\r\x1b[K", "")
		}
		noneRaw(t, fmt.Sprintf("the live line (terminal %v)", tty), line, "phase", "op", "host", "stage")
	}
}
