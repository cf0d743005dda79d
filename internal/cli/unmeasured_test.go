package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// opsOf returns every op object of a summary.json or an analysis (totals
// and per host), as decoded JSON.
func opsOf(t *testing.T, b []byte) []map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	add := func(list any) {
		l, _ := list.([]any)
		for _, o := range l {
			out = append(out, o.(map[string]any))
		}
	}
	for _, p := range v["phases"].([]any) {
		pm := p.(map[string]any)
		add(pm["ops"])
		ph, _ := pm["per_host"].([]any)
		for _, h := range ph {
			add(h.(map[string]any)["ops"])
		}
	}
	if len(out) == 0 {
		t.Fatal("no operation in the JSON")
	}
	return out
}

// runAndRender runs args (a measuring command writing into res), then
// returns every form a user reads: the run's output, summary.json,
// summary.md, report.html, and analyze's text, Markdown and JSON.
func runAndRender(t *testing.T, res string, args ...string) (folder string, forms map[string]string) {
	t.Helper()
	st, out := testState()
	if err := Execute(context.Background(), st, args); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	runs, _ := filepath.Glob(filepath.Join(res, "*"))
	if len(runs) != 1 {
		t.Fatalf("results: %v", runs)
	}
	folder = runs[0]
	forms = map[string]string{"run output": out.String()}
	for _, f := range []string{"summary.json", "summary.md", "report.html"} {
		b, err := os.ReadFile(filepath.Join(folder, f))
		if err != nil {
			t.Fatal(err)
		}
		forms[f] = string(b)
	}
	for _, flag := range []string{"--md", "--json", "--csv"} {
		st, out := testState()
		args := []string{"analyze", folder}
		if flag != "" {
			args = []string{"analyze", flag, folder}
		}
		if err := Execute(context.Background(), st, args); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		forms["analyze "+flag] = out.String()
	}
	st, out = testState()
	if err := Execute(context.Background(), st, []string{"analyze", folder}); err != nil {
		t.Fatal(err)
	}
	forms["analyze"] = out.String()
	st, out = testState()
	// compare with itself: every figure is there on both sides.
	if err := Execute(context.Background(), st, []string{"compare", folder, folder}); err != nil {
		t.Fatal(err)
	}
	forms["compare"] = out.String()
	return folder, forms
}

// fio job files that switch latency off (disable_lat, disable_clat, as
// vendors' tuned job sets do) leave fio's clat with no samples: storbench
// says "latency not recorded by this job" instead of printing 0 ns, and
// summary.json and analyze --json leave latency out.
func TestFioLatencyNotRecordedIsAbsent(t *testing.T) {
	t.Parallel()
	needFio(t)
	job := strings.Replace(quickJob("read", ""), "[global]\n", "[global]\ndisable_lat=1\ndisable_clat=1\ndisable_slat=1\n", 1)
	res := t.TempDir()
	_, forms := runAndRender(t, res, "fio", "-d", t.TempDir(), "-w", workloadDir(t, map[string]string{"nolat": job}), "--results", res)
	for name, text := range forms {
		if strings.Contains(text, " 0 ns") || strings.Contains(text, ">0 ns<") || strings.Contains(text, "| 0 ns") {
			t.Errorf("%s shows 0 ns for latency that was not measured:\n%s", name, text)
		}
	}
	for _, name := range []string{"run output", "analyze", "analyze --md", "report.html", "summary.md"} {
		if !strings.Contains(forms[name], "latency not recorded by this job") {
			t.Errorf("%s does not say latency was not recorded:\n%s", name, forms[name])
		}
	}
	for _, name := range []string{"summary.json", "analyze --json"} {
		for _, o := range opsOf(t, []byte(forms[name])) {
			for k := range o {
				if strings.HasPrefix(k, "lat") {
					t.Errorf("%s: op %v has %s although latency was not recorded", name, o["op"], k)
				}
			}
			if _, ok := o["bw_bytes_per_s"]; !ok {
				t.Errorf("%s: op %v lacks its bandwidth", name, o["op"])
			}
		}
	}
}

// Operations that move no bytes (md's stat, remove, tree operations;
// create and read with no bytes) have no byte throughput: absent from
// summary.json and analyze --json, "-" in tables, never "0 B/s".
func TestNoByteThroughputForOpsThatMoveNoBytes(t *testing.T) {
	t.Parallel()
	res := t.TempDir()
	_, forms := runAndRender(t, res, "md", "-d", t.TempDir(), "-n", "20", "-t", "1", "--results", res)
	for name, text := range forms {
		if strings.Contains(text, " 0 B/s") || strings.Contains(text, ">0 B/s<") {
			t.Errorf("%s shows 0 B/s for operations that move no bytes:\n%s", name, text)
		}
	}
	for _, name := range []string{"summary.json", "analyze --json"} {
		for _, o := range opsOf(t, []byte(forms[name])) {
			if _, ok := o["bw_bytes_per_s"]; ok {
				t.Errorf("%s: op %v moves no bytes but has bw_bytes_per_s %v", name, o["op"], o["bw_bytes_per_s"])
			}
			if _, ok := o["ops_per_s"]; !ok {
				t.Errorf("%s: op %v lacks ops_per_s", name, o["op"])
			}
		}
	}
}
