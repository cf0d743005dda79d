package cli

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/s3test"
)

var (
	warpFile     = filepath.Join("..", "analyze", "testdata", "warp-get-v1.4.1.csv.zst")
	warpAnalysis = filepath.Join("..", "analyze", "testdata", "warp-get-v1.4.1.analyze.txt")
)

// analyze of a warp file prints the count and the average warp analyze
// printed for it, as a user reading both would compare them.
func TestAnalyzeWarpFileShowsWarpsFigures(t *testing.T) {
	t.Parallel()
	txt, err := os.ReadFile(warpAnalysis)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`Report: GET \((\d+) reqs\)[\s\S]*?\* Average: ([0-9.]+ MiB/s), ([0-9.]+) obj/s`).FindSubmatch(txt)
	if m == nil {
		t.Fatalf("no GET report in %s", warpAnalysis)
	}
	st, out := testState()
	if err := Execute(context.Background(), st, []string{"analyze", warpFile}); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	text := out.String()
	for _, want := range []string{"(warp)", "Operation GET: average " + string(m[2]) + ", " + string(m[3]) + " ops/s",
		"Requests (whole phase): " + string(m[1]) + ":", "PUT", "too few samples"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

// compare takes a warp file on either side of a storbench s3 result: the
// warp run's GET against storbench's, each side's figures its own.
func TestCompareWarpFileWithS3Result(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	st, out := s3State(srv)
	dir := t.TempDir()
	if err := Execute(context.Background(), st, []string{"s3", "get", "--obj.size", "4KiB", "--objects", "50",
		"--concurrent", "4", "--duration", "1500ms", "--results", dir, "--bucket", "warpcmp"}); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	folders, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(folders) != 1 {
		t.Fatalf("results folders: %v", folders)
	}
	sum, err := results.ReadSummary(folders[0])
	if err != nil {
		t.Fatal(err)
	}
	s3get := *sum.Phases[0].Ops[0].BwBytesPerS
	wa, err := analyze.Analyze(warpFile, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var warpGet float64
	for _, o := range wa.Phases[0].Ops {
		if o.Op == "GET" {
			warpGet = *o.BwBytesPerS
		}
	}
	for _, c := range []struct {
		before, after string
		want          [2]float64
	}{
		{warpFile, folders[0], [2]float64{warpGet, s3get}},
		{folders[0], warpFile, [2]float64{s3get, warpGet}},
	} {
		st, out := testState()
		if err := Execute(context.Background(), st, []string{"compare", "--json", c.before, c.after}); err != nil {
			t.Fatalf("compare %s %s: %v\n%s", c.before, c.after, err, out)
		}
		var cmp analyze.Comparison
		if err := json.Unmarshal([]byte(out.String()), &cmp); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if len(cmp.Phases) != 1 || cmp.Phases[0].Name != sum.Phases[0].Name {
			t.Fatalf("compare %s %s: phases %+v, want storbench's %s", c.before, c.after, cmp.Phases, sum.Phases[0].Name)
		}
		var got *analyze.Figure
		for _, o := range cmp.Phases[0].Ops {
			for i, f := range o.Figures {
				if o.Op == "GET" && f.Name == "throughput" {
					got = &o.Figures[i]
				}
			}
		}
		if got == nil {
			t.Fatalf("compare %s %s: no GET throughput:\n%s", c.before, c.after, out)
		}
		if math.Abs(got.Before-c.want[0]) > 1e-6*c.want[0] || math.Abs(got.After-c.want[1]) > 1e-6*c.want[1] {
			t.Errorf("compare %s %s: GET %.0f -> %.0f B/s, want %.0f -> %.0f", c.before, c.after, got.Before, got.After, c.want[0], c.want[1])
		}
	}
}

// A bad file is one line naming it and what is wrong, exit 2, and nothing
// written: for analyze, and for compare on either side.
func TestWarpFileBadInputIsOneLineExit2(t *testing.T) {
	t.Parallel()
	fixture, err := os.ReadFile(warpFile)
	if err != nil {
		t.Fatal(err)
	}
	header := "idx\tthread\top\tclient_id\tn_objects\tbytes\tendpoint\tfile\terror\tstart\tfirst_byte\tend\tduration_ns\tcat\n"
	line := func(start, end string) string {
		return "0\t1\tGET\tc1\t1\t4096\thttp://h:9000\tobj\t\t" + start + "\t\t" + end + "\t1000\t0\n"
	}
	tmp := t.TempDir()
	s3a := filepath.Join(testResults, "s3-a")
	for _, c := range []struct {
		name    string
		content string
		want    string
	}{
		{"truncated.csv.zst", string(fixture[:len(fixture)*2/3]), "cut short"},
		{"header.csv.zst", "op,thread,start,end,bytes\nGET,1,2026-11-22T22:40:01Z,2026-11-22T22:40:02Z,10\n", "neither"},
		{"empty.csv.zst", "", "empty file"},
		{"backwards.csv.zst", header + line("2026-11-22T22:40:01Z", "2026-11-22T22:40:02Z") + line("2026-11-22T22:40:05Z", "2026-11-22T22:40:04.9Z"), "line 3: the request ends"},
	} {
		path := filepath.Join(tmp, c.name)
		if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(tmp, "out-"+c.name+".txt")
		for _, args := range [][]string{{"analyze", "-o", out, path}, {"compare", path, s3a}, {"compare", s3a, path}} {
			st, stdout := testState()
			err := Execute(context.Background(), st, args)
			if ExitCode(err) != ExitUsage {
				t.Errorf("%v: exit %d (%v), want %d", args, ExitCode(err), err, ExitUsage)
				continue
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.Contains(msg, path) || !strings.Contains(msg, c.want) {
				t.Errorf("%v: %q is not one line naming the file and saying %q", args, msg, c.want)
			}
			if stdout.String() != "" {
				t.Errorf("%v printed:\n%s", args, stdout)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: analyze -o wrote %s", c.name, out)
		}
	}
}
