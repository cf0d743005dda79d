package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/units"
)

// fioJobBytes is each job's write and read bytes in a fio.json of the
// results folder, by job name.
func fioJobBytes(t *testing.T, path string) (write, read map[string]int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fo struct {
		Jobs []struct {
			Name  string `json:"jobname"`
			Write struct {
				IOBytes int64 `json:"io_bytes"`
			} `json:"write"`
			Read struct {
				IOBytes int64 `json:"io_bytes"`
			} `json:"read"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(b, &fo); err != nil {
		t.Fatal(err)
	}
	write, read = map[string]int64{}, map[string]int64{}
	for _, j := range fo.Jobs {
		write[j.Name] += j.Write.IOBytes
		read[j.Name] += j.Read.IOBytes
	}
	return write, read
}

// A write phase with a stonewall and a size far beyond what the deadline
// allows (IO500's shape: ior -w -D with wear-out) stops at the deadline,
// not at its size; every job then ends with the same blocks, the most any
// job wrote; the read phase after it reads exactly those; and
// summary.json's stonewall figures are the raw fio.json's. Before the
// stonewall setting the suite was refused (an unknown fio setting); a
// fixed size of 16 GiB per job would have run for minutes.
func TestStonewallOneHost(t *testing.T) {
	needFio(t)
	dir := t.TempDir()
	suite := writeSuite(t, `name: sw
dir: `+dir+`
phases:
  - name: write
    fio:
      stonewall: 2s
      job: &w
        ioengine: psync
        rw: write
        bs: 64k
        size: 16g
        numjobs: 3
        rate: 8m
        filename_format: sw.$jobnum
        verify: crc32c
        do_verify: 0
        group_reporting: 1
  - name: read
    read_from: neighbour
    fio:
      job:
        <<: *w
        rw: read
        rate: 0
        do_verify: 1
`)
	st, out := testState()
	o := RunOptions{CoVWarn: 5, Confidence: 95, Results: t.TempDir(), Dir: dir}
	began := time.Now()
	res, err := runSuite(context.Background(), st, o, suite)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(began)
	folder := res.Folder.Path
	s, err := results.ReadSummary(folder)
	if err != nil {
		t.Fatal(err)
	}
	w, r := s.Phases[0], s.Phases[1]
	host := w.PerHost[0].Host
	at, _ := fioJobBytes(t, filepath.Join(folder, w.Dir, "hosts", host, "fio.json"))
	var wear map[string]int64
	if _, err := os.Stat(filepath.Join(folder, w.Dir, "hosts", host, "wearout-fio.json")); err == nil {
		wear, _ = fioJobBytes(t, filepath.Join(folder, w.Dir, "hosts", host, "wearout-fio.json"))
	}
	sw := w.Stonewall
	if sw == nil {
		t.Fatalf("summary.json has no stonewall figures for the write phase")
	}
	t.Logf("at the deadline %v, wear-out %v; summary %+v; run took %v", at, wear, *sw, took)
	if len(at) != 3 {
		t.Fatalf("fio.json has %d jobs, want 3", len(at))
	}
	var sum, lo, hi int64 = 0, math.MaxInt64, 0
	for _, b := range at {
		sum, lo, hi = sum+b, min(lo, b), max(hi, b)
	}
	// 8 MiB/s for 2 s is about 16 MiB per job, nowhere near 16 GiB.
	if hi > 64<<20 || lo < 4<<20 {
		t.Errorf("the jobs wrote %d to %d bytes by the deadline, want about 16 MiB (2 s at 8 MiB/s)", lo, hi)
	}
	if !sw.Hit || sw.DeadlineS != 2 || sw.Jobs != 3 || sw.Bytes != sum || sw.MinJobBytes != lo || sw.MaxJobBytes != hi || sw.BlockBytes != 64<<10 {
		t.Errorf("summary's stonewall %+v, want hit, 2 s, 3 jobs, %d bytes (%d to %d per job) of 64 KiB blocks, as fio.json", *sw, sum, lo, hi)
	}
	if sw.DurationS < 1.9 || sw.DurationS > 4 || sw.BwBytesPerS == nil || math.Abs(*sw.BwBytesPerS-float64(sum)/sw.DurationS) > 1 {
		t.Errorf("stonewall time %.3f s, bandwidth %v: want about the 2 s deadline and the bytes over it", sw.DurationS, sw.BwBytesPerS)
	}
	blocks := hi / (64 << 10)
	if sw.WearOutBlocks != blocks {
		t.Errorf("wear-out to %d blocks, want %d: the most any job wrote", sw.WearOutBlocks, blocks)
	}
	var total int64
	for job, b := range at {
		// Each job's wear-out goes on in the job's file from where it
		// stopped: it ends with the count.
		if b+wear[job] != blocks*(64<<10) {
			t.Errorf("job %s wrote %d bytes by the deadline and %d after, want %d blocks in all", job, b, wear[job], blocks)
		}
		total += b + wear[job]
	}
	if want := 3 * blocks * (64 << 10); total != want || int64(w.Ops[0].Bytes) != want {
		t.Errorf("the jobs wrote %d bytes in all (summary %d), want 3 jobs x %d blocks = %d", total, w.Ops[0].Bytes, blocks, want)
	}
	_, read := fioJobBytes(t, filepath.Join(folder, r.Dir, "hosts", host, "fio.json"))
	var rb int64
	for _, b := range read {
		rb += b
	}
	if rb != 3*blocks*(64<<10) || r.Status != results.StatusCompleted {
		t.Errorf("the read phase (%s) read %d bytes, want exactly what was written, %d", r.Status, rb, 3*blocks*(64<<10))
	}
	// The run says it, as IOR prints its stonewall line.
	if !strings.Contains(out.String(), fmt.Sprintf("    stonewall 2s: %s in ", units.Bytes(float64(sum)))) ||
		!strings.Contains(out.String(), fmt.Sprintf("every job wrote %d blocks of %s", blocks, units.Bytes(64<<10))) {
		t.Errorf("the run's text does not give the stonewall figures:\n%s", out)
	}
	if w.Ops[0].DurationS < 2 || w.Ops[0].DurationS > 8 {
		t.Errorf("the write ran %.3f s, want the 2 s deadline and a short wear-out", w.Ops[0].DurationS)
	}
}
