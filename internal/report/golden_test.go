package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/results"
)

var update = flag.Bool("update", false, "rewrite the golden files of analyze, compare and the Markdown summary")

// resultsDir is the committed small results folders, one or two runs of
// each engine, made by running storbench at tiny scale.
var resultsDir = filepath.Join("..", "..", "testdata", "results")

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update rewrites it after a deliberate change):\n%s", path, got)
	}
}

func TestAnalyzeGolden(t *testing.T) {
	for _, name := range []string{"fio-a", "md-a", "s3-a", "s3-mixed.tsv.zst"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(resultsDir, name)
			if filepath.Ext(name) == ".zst" {
				path = filepath.Join(resultsDir, "..", name)
			}
			a, err := analyze.Analyze(path, analyze.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var text, csv, md bytes.Buffer
			AnalysisText(&text, a)
			if err := AnalysisCSV(&csv, a); err != nil {
				t.Fatal(err)
			}
			AnalysisMarkdown(&md, a)
			golden(t, "analyze-"+name+".txt", text.Bytes())
			golden(t, "analyze-"+name+".csv", csv.Bytes())
			golden(t, "analyze-"+name+".md", md.Bytes())
		})
	}
}

func TestMarkdownGolden(t *testing.T) {
	for _, name := range []string{"fio-a", "md-a", "s3-a"} {
		t.Run(name, func(t *testing.T) {
			s, err := results.ReadSummary(filepath.Join(resultsDir, name))
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "summary-"+name+".md", Markdown(s))
		})
	}
}

func TestCompareGolden(t *testing.T) {
	for _, eng := range []string{"fio", "md", "s3"} {
		t.Run(eng, func(t *testing.T) {
			c, err := analyze.CompareFolders(filepath.Join(resultsDir, eng+"-a"), filepath.Join(resultsDir, eng+"-b"), analyze.CompareOptions{ThresholdPct: 5})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Phases) == 0 {
				t.Fatal("no phase compared")
			}
			var text, md bytes.Buffer
			CompareText(&text, c)
			CompareMarkdown(&md, c)
			golden(t, "compare-"+eng+".txt", text.Bytes())
			golden(t, "compare-"+eng+".md", md.Bytes())
		})
	}
}

// analyze --per-second of each engine's results: one row per second with
// the hosts' throughput and the second's latency percentiles.
func TestPerSecondGolden(t *testing.T) {
	for _, name := range []string{"fio-lat", "md-lat", "s3-lat-a"} {
		t.Run(name, func(t *testing.T) {
			a, err := analyze.PerSecondFolder(filepath.Join(resultsDir, name), analyze.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var text, csv bytes.Buffer
			PerSecondText(&text, a)
			if err := PerSecondCSV(&csv, a); err != nil {
				t.Fatal(err)
			}
			golden(t, "persecond-"+name+".txt", text.Bytes())
			golden(t, "persecond-"+name+".csv", csv.Bytes())
		})
	}
}

// Two s3 runs with per-second histograms: latency verdicts name the block
// bootstrap over seconds.
func TestCompareBootstrapGolden(t *testing.T) {
	c, err := analyze.CompareFolders(filepath.Join(resultsDir, "s3-lat-a"), filepath.Join(resultsDir, "s3-lat-b"), analyze.CompareOptions{ThresholdPct: 5})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	CompareText(&text, c)
	if !bytes.Contains(text.Bytes(), []byte("block bootstrap over 20 vs 20 seconds")) {
		t.Errorf("latency verdicts do not name the block bootstrap:\n%s", text.Bytes())
	}
	golden(t, "compare-s3-lat.txt", text.Bytes())
}
