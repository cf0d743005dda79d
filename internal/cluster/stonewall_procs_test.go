package cluster_test

// Issue 20, item 6: IO500's stonewall with wear-out on the fio write
// phases, across three real agents.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/storbench/storbench/internal/results"
)

// IO500's two ior shapes with a 1 s stonewall, each host paced by fio's
// rate= at a speed of its own (2, 4 and 6 MiB/s per job), so that the hosts
// reach different counts by the deadline; sizes far beyond what 1 s
// allows. Then the reads of what a neighbour wrote, unpaced, checking
// every block.
const stonewallSuite = `name: stonewall3
phases:
  - name: easy-write
    fio:
      stonewall: 1s
      job: &easy
        ioengine: psync
        rw: write
        bs: 64k
        size: 4g
        numjobs: 2
        rate: "((${STORBENCH_HOST_INDEX}+1)*2)m"
        filename_format: easy.$jobnum
        verify: crc32c
        do_verify: 0
        group_reporting: 1
  - name: hard-write
    shared: true
    fio:
      stonewall: 1s
      job: &hard
        ioengine: psync
        filename: hard
        bs: 47008
        numjobs: 2
        offset: "(${STORBENCH_HOST_INDEX}*2*47008)"
        offset_increment: 47008
        size: "(((100000-1)*${STORBENCH_HOST_COUNT}*2+1)*47008)"
        rw: "write:((${STORBENCH_HOST_COUNT}*2-1)*47008)"
        rate: "((${STORBENCH_HOST_INDEX}+1)*2)m"
        verify: crc32c
        do_verify: 0
        group_reporting: 1
  - name: easy-read
    read_from: neighbour
    fio:
      job:
        <<: *easy
        rw: read
        rate: 0
        do_verify: 1
  - name: hard-read
    shared: true
    read_from: neighbour
    fio:
      job:
        <<: *hard
        rw: "read:((${STORBENCH_HOST_COUNT}*2-1)*47008)"
        rate: 0
        do_verify: 1
`

// jobBytes is each job's write and read bytes in a raw fio.json, by job.
func jobBytes(t *testing.T, path string) (write, read map[string]int64) {
	t.Helper()
	write, read = map[string]int64{}, map[string]int64{}
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return write, read
	}
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
	for _, j := range fo.Jobs {
		write[j.Name] += j.Write.IOBytes
		read[j.Name] += j.Read.IOBytes
	}
	return write, read
}

// Three agents, one paced slower than the others, write with a stonewall:
// by the deadline they wrote different counts; after the wear-out every
// job of every host wrote the same count, the most any job had written
// (per job for the files of their own, per writer of the shared file's
// segments, as IOR's ior-hard); summary.json's stonewall figures are the
// raw fio.json's; and the read phases after them read exactly that count
// of every job's blocks, each block checked. Before the stonewall the
// suite was refused (an unknown fio setting).
func TestClusterStonewallWearOut(t *testing.T) {
	if testing.Short() {
		t.Skip("four phases across three agents take about 30 s")
	}
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed")
	}
	c := startCluster(t, loopback(t, 3), nil, nil)
	suite := filepath.Join(c.dir, "stonewall.yaml")
	if err := os.WriteFile(suite, []byte(stonewallSuite), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := c.run(t, "run", suite, "-d", tmpfsDir(t))
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	folder := folderOf(t, out)
	s := summaryOf(t, folder)
	if len(s.Phases) != 4 {
		t.Fatalf("%d phases, want 4", len(s.Phases))
	}
	for _, p := range []struct {
		write, read int
		bs          int64
	}{{0, 2, 64 << 10}, {1, 3, 47008}} {
		w, r := s.Phases[p.write], s.Phases[p.read]
		blocks := checkWearOut(t, folder, w, p.bs)
		var read int64
		for _, h := range r.PerHost {
			_, rb := jobBytes(t, filepath.Join(folder, r.Dir, "hosts", h.Host, "fio.json"))
			for _, b := range rb {
				read += b
			}
		}
		if want := 6 * blocks * p.bs; r.Status != results.StatusCompleted || read != want {
			t.Errorf("%s (%s, %s) read %d bytes, want exactly what %s wrote: 6 jobs x %d blocks = %d", r.Name, r.Status, r.Error, read, w.Name, blocks, want)
		}
	}
}

// checkWearOut checks a stonewall write phase of three hosts of two jobs
// against the hosts' raw fio output and returns the count every job wrote.
func checkWearOut(t *testing.T, folder string, w results.PhaseSummary, bs int64) int64 {
	t.Helper()
	sw := w.Stonewall
	if w.Status != results.StatusCompleted || sw == nil || len(w.PerHost) != 3 {
		t.Fatalf("%s: %s on %d hosts, stonewall %+v: %s", w.Name, w.Status, len(w.PerHost), sw, w.Error)
	}
	var sum, lo, hi int64 = 0, 1 << 62, 0
	at := map[string]map[string]int64{}
	wear := map[string]map[string]int64{}
	for _, h := range w.PerHost {
		dir := filepath.Join(folder, w.Dir, "hosts", h.Host)
		at[h.Host], _ = jobBytes(t, filepath.Join(dir, "fio.json"))
		wear[h.Host], _ = jobBytes(t, filepath.Join(dir, "wearout-fio.json"))
		for _, b := range at[h.Host] {
			sum, lo, hi = sum+b, min(lo, b), max(hi, b)
		}
	}
	t.Logf("%s: at the deadline %v; wear-out %v; summary %+v", w.Name, at, wear, *sw)
	blocks := hi / bs
	if sw.Jobs != 6 || sw.Bytes != sum || sw.MinJobBytes != lo || sw.MaxJobBytes != hi || !sw.Hit || sw.WearOutBlocks != blocks || sw.BlockBytes != bs {
		t.Errorf("%s: summary's stonewall %+v; want 6 jobs, %d bytes (%d to %d per job), hit, wear-out to %d blocks of %d bytes, as the raw fio.json", w.Name, *sw, sum, lo, hi, blocks, bs)
	}
	// The slowest host's jobs write a third of the fastest's by the deadline.
	if lo*2 > hi {
		t.Errorf("%s: the jobs wrote %d to %d bytes by the deadline: the paced host did not fall behind", w.Name, lo, hi)
	}
	var total int64
	for host, jobs := range at {
		for job, b := range jobs {
			if got := b/bs*bs + wear[host][job]; got != blocks*bs {
				t.Errorf("%s: %s's job %s wrote %d bytes by the deadline and %d after, want %d blocks in all", w.Name, host, job, b, wear[host][job], blocks)
			}
			total += b + wear[host][job]
		}
	}
	if int64(w.Ops[0].Bytes) != total || sw.WearOutS == nil {
		t.Errorf("%s: summary's write bytes %d, the raw outputs' %d; wear-out time %v", w.Name, w.Ops[0].Bytes, total, sw.WearOutS)
	}
	return blocks
}

// A host that wrote its whole size before the deadline can write no more:
// it syncs its files (IOR's -e) when it ends, not once the slowest host
// is done too, so its own window, and its per-host rate, are its own.
// Two agents, 4 MiB per job with a 60 s stonewall nobody reaches: host 0
// unpaced (done in milliseconds), host 1 paced at 2 MiB/s (2 s). Before,
// host 0's files were synced after the hosts agreed on the count, when
// host 1 was done: host 0's window held host 1's two seconds.
func TestStonewallHostAtItsSizeEndsOnItsOwn(t *testing.T) {
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed")
	}
	c := startCluster(t, loopback(t, 2), nil, nil)
	suite := filepath.Join(c.dir, "early.yaml")
	const text = `name: early
phases:
  - name: easy-write
    fio:
      stonewall: 60s
      job:
        ioengine: psync
        rw: write
        bs: 64k
        size: 4m
        numjobs: 1
        rate: "(${STORBENCH_HOST_INDEX}*2)m"
        filename_format: easy.$jobnum
        fsync_on_close: 1
`
	if err := os.WriteFile(suite, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := c.run(t, "run", suite, "-d", tmpfsDir(t))
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	folder := folderOf(t, out)
	w := summaryOf(t, folder).Phases[0]
	if len(w.PerHost) != 2 {
		t.Fatalf("%d hosts, want 2", len(w.PerHost))
	}
	var res [2]struct {
		Meta map[string]string `json:"meta"`
		Ops  []struct {
			EndNs int64 `json:"end_ns"`
		} `json:"ops"`
	}
	for i, h := range w.PerHost {
		b, err := os.ReadFile(filepath.Join(folder, w.Dir, "hosts", h.Host, "result.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &res[i]); err != nil || len(res[i].Ops) == 0 {
			t.Fatalf("%s's result.json: %v", h.Host, err)
		}
	}
	slowPass, _ := strconv.ParseInt(res[1].Meta["stonewall_end_ns"], 10, 64)
	if slowPass == 0 {
		t.Fatalf("host 1 has no stonewall_end_ns: %v", res[1].Meta)
	}
	if fastEnd := res[0].Ops[0].EndNs; fastEnd >= slowPass {
		t.Errorf("host 0 (done in ms) ended %.3f s after the paced host's writes ended, want before: its window waited for the other host", float64(fastEnd-slowPass)/1e9)
	}
}
