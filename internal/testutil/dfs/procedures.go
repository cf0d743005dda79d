package dfs

// The seeds' procedures on a shared file system, at small size, alike for
// every file system the harness brings up.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/testutil"
)

// Procedures runs, each as a subtest: shared md -N 1 (MdShared) and the
// same on each client's own items (OwnItems), WEKA's four corners, the
// Gluster throughput sweep, the mdtest-8-clients shape and the
// shared-file fio phases.
func Procedures(t *testing.T, c *Cluster) {
	var shifted *results.PhaseSummary
	t.Run("md-N1", func(t *testing.T) { shifted = MdShared(t, c, 200) })
	t.Run("md-own-items", func(t *testing.T) { OwnItems(t, c, 200, shifted) })
	t.Run("four-corners", func(t *testing.T) { FourCorners(t, c) })
	t.Run("throughput-sweep", func(t *testing.T) { ThroughputSweep(t, c) })
	t.Run("mdtest-8-clients", func(t *testing.T) { MdtestShape(t, c) })
	t.Run("shared-fio", func(t *testing.T) { SharedFio(t, c) })
}

var resultsRE = regexp.MustCompile(`results in (\S+)`)

// SummaryOf reads the summary.json of the run whose output is out, and
// returns it with its results folder.
func SummaryOf(t *testing.T, out string) (*results.Summary, string) {
	t.Helper()
	m := resultsRE.FindAllStringSubmatch(out, -1)
	if len(m) == 0 {
		t.Fatalf("no results folder in the output:\n%s", out)
	}
	folder := m[len(m)-1][1]
	s, err := results.ReadSummary(folder)
	if err != nil {
		t.Fatal(err)
	}
	return s, folder
}

// RunOK runs storbench with args on c (5 minutes at most) and returns the
// summary and results folder of a run that exited 0 and whose every phase
// completed on every host with no error.
func RunOK(t *testing.T, c *Cluster, args ...string) (*results.Summary, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	code, out := c.Run(ctx, args...)
	if code != 0 {
		t.Fatalf("storbench %s: exit %d:\n%s", strings.Join(args, " "), code, out)
	}
	s, folder := SummaryOf(t, out)
	for _, ph := range s.Phases {
		if ph.Status != results.StatusCompleted || len(ph.PerHost) != len(c.Agents) {
			t.Errorf("phase %s: %s on %d hosts: %s", ph.Name, ph.Status, len(ph.PerHost), ph.Error)
		}
		for _, o := range ph.Ops {
			if o.Errors != 0 {
				t.Errorf("phase %s: %s: %d errors %v", ph.Name, o.Op, o.Errors, o.ErrorKinds)
			}
		}
	}
	return s, folder
}

// MdShared runs md -N 1 with items files per worker, one worker a host,
// and checks what a user reads in summary.json and the text: the phase
// completed on every host without errors; stat and read worked on items
// another client created, every one of them (cross_host_items equals the
// count); remove, 3 hosts on, on the client's own items where there are
// 3 clients (as mdtest's -N 1 on three nodes), else on another's.
func MdShared(t *testing.T, c *Cluster, items int) *results.PhaseSummary {
	t.Helper()
	s, _ := RunOK(t, c, "md", "-d", c.Dir, "-t", "1", "-n", fmt.Sprint(items), "-F", "-N", "1", "--write-bytes", "4k", "--read-bytes", "4k")
	ph := &s.Phases[0]
	n := len(c.Agents)
	want := uint64(n * items)
	seen := map[string]bool{}
	for _, o := range ph.Ops {
		shift := map[string]int{"file-stat": 1, "file-read": 2, "file-remove": 3}[o.Op]
		if shift == 0 {
			continue
		}
		seen[o.Op] = true
		cross := o.Ops
		if shift%n == 0 {
			cross = 0
		}
		if o.Ops != want || o.CrossHostItems == nil || *o.CrossHostItems != cross {
			t.Errorf("%s: %d items, %v created by another client; want %d, %d by another client", o.Op, o.Ops, deref(o.CrossHostItems), want, cross)
		}
	}
	if len(seen) != 3 {
		t.Errorf("operations stat, read, remove not all measured: %v", seen)
	}
	return ph
}

// OwnItems runs md as MdShared does but without -N: each client stats,
// reads and removes the items it created itself, in the one tree all
// share, where its cache may answer (cross_host_items 0). It logs the
// rates beside those of shifted (MdShared's run, when it passed): what a
// client's cache gives a run that does not shift (docs/run.md).
func OwnItems(t *testing.T, c *Cluster, items int, shifted *results.PhaseSummary) *results.PhaseSummary {
	t.Helper()
	s, _ := RunOK(t, c, "md", "-d", c.Dir, "-t", "1", "-n", fmt.Sprint(items), "-F", "--write-bytes", "4k", "--read-bytes", "4k")
	ph := &s.Phases[0]
	want := uint64(len(c.Agents) * items)
	for _, o := range ph.Ops {
		if o.Op != "file-stat" && o.Op != "file-read" && o.Op != "file-remove" {
			continue
		}
		if o.Ops != want || o.CrossHostItems == nil || *o.CrossHostItems != 0 {
			t.Errorf("%s: %d items, %v created by another client; want %d, none by another client", o.Op, o.Ops, deref(o.CrossHostItems), want)
		}
		if other := opRate(shifted, o.Op); other > 0 && o.OpsPerS != nil {
			t.Logf("%s %s: %.0f items/s on the client's own items, %.0f on another client's: %.1fx", c.FS.Name(), o.Op, *o.OpsPerS, other, *o.OpsPerS/other)
		}
	}
	return ph
}

// CacheRates measures what the clients' caches give md: rounds of a run
// on each client's own items (OwnItems) and one on another client's (md
// -N 1, MdShared), their order alternating, items files a worker; it
// logs the median file-stat and file-read rates of each side and their
// ratio (docs/run.md's table).
func CacheRates(t *testing.T, c *Cluster, items, rounds int) {
	own, other := map[string][]float64{}, map[string][]float64{}
	keep := func(into map[string][]float64, ph *results.PhaseSummary) {
		for _, op := range []string{"file-stat", "file-read"} {
			if r := opRate(ph, op); r > 0 {
				into[op] = append(into[op], r)
			}
		}
	}
	for r := range rounds {
		if r%2 == 0 {
			keep(own, OwnItems(t, c, items, nil))
			keep(other, MdShared(t, c, items))
		} else {
			keep(other, MdShared(t, c, items))
			keep(own, OwnItems(t, c, items, nil))
		}
	}
	for _, op := range []string{"file-stat", "file-read"} {
		o, x := median(own[op]), median(other[op])
		t.Logf("%s %s, %d rounds of %d items a client: own items median %.0f/s %v, another client's %.0f/s %v: %.1fx",
			c.FS.Name(), op, rounds, items, o, rounded(own[op]), x, rounded(other[op]), o/x)
	}
}

// CacheRoundsEnv names the rounds of CacheRates a file system's
// *CacheRates test runs; unset, the test skips (it takes minutes).
const CacheRoundsEnv = "STORBENCH_CACHE_ROUNDS"

// CacheRounds is CacheRoundsEnv's rounds, skipping t when it is unset or
// not a count.
func CacheRounds(t *testing.T) int {
	t.Helper()
	n, err := strconv.Atoi(os.Getenv(CacheRoundsEnv))
	if err != nil || n < 1 {
		t.Skipf("set %s to a number of rounds to measure what the clients' caches give md (docs/run.md)", CacheRoundsEnv)
	}
	return n
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func rounded(v []float64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x + 0.5)
	}
	return out
}

// opRate is op's rate in ph, 0 when ph or the rate is absent.
func opRate(ph *results.PhaseSummary, op string) float64 {
	if ph == nil {
		return 0
	}
	for _, o := range ph.Ops {
		if o.Op == op && o.OpsPerS != nil {
			return *o.OpsPerS
		}
	}
	return 0
}

func deref[T any](p *T) any {
	if p == nil {
		return "absent"
	}
	return *p
}

// example is the text of examples/NAME with each of the pairs' first
// strings replaced by its second (the small size a test runs), failing
// the test when one is not in the file.
func example(t *testing.T, name string, pairs ...string) string {
	t.Helper()
	root, err := testutil.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(text, pairs[i]) {
			t.Fatalf("examples/%s no longer says %q", name, pairs[i])
		}
		text = strings.Replace(text, pairs[i], pairs[i+1], 1)
	}
	f := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// FourCorners runs WEKA's four corners (wekatester's default workload,
// direct I/O) on the shared mount, each client in its own directory:
// every corner has its figure on every host.
func FourCorners(t *testing.T, c *Cluster) {
	s, _ := RunOK(t, c, "run", example(t, "weka-four-corners.yaml"), "-d", c.Dir)
	if len(s.Phases) != 6 {
		t.Fatalf("%d phases, want the 6 corners", len(s.Phases))
	}
	for _, ph := range s.Phases {
		for _, o := range ph.Ops {
			if o.Ops == 0 || o.OpsPerS == nil || o.Lat == nil {
				t.Errorf("%s %s: %d ops, no rate or latency", ph.Name, o.Op, o.Ops)
			}
		}
	}
}

// ThroughputSweep runs the Gluster throughput sweep
// (examples/gluster-throughput-sweep.yaml: each client writes its files
// in 4 MiB records and reads them back, caches dropped before every
// phase), smaller: 8 MiB files, 2 threads, 2 iterations (each phase,
// dropping the caches and laying out files on three FUSE clients, costs
// 5-8 s on the loaded 2-core test machine whatever its size: the sweep
// over 1 and 2 threads took 42-66 s of each file system's budget). Every
// phase moves hosts x threads x 8 MiB; every point has its spreadsheet
// line in sweep.tsv, with its CoV over the iterations and the lowest
// and highest client.
func ThroughputSweep(t *testing.T, c *Cluster) {
	f := example(t, "gluster-throughput-sweep.yaml", "iterations: 3 ", "iterations: 2 ",
		"size: [8M, 16M] ", "size: [8M] ", "numjobs: [1, 2, 4]", "numjobs: [2]")
	s, folder := RunOK(t, c, "run", f, "-d", c.Dir)
	if len(s.Phases) != 4 || len(s.Sweeps) != 2 {
		t.Fatalf("%d phases and %d sweep points, want 4 and 2", len(s.Phases), len(s.Sweeps))
	}
	for _, ph := range s.Phases {
		if want := uint64(len(c.Agents) * 2 * 8 << 20); len(ph.Ops) != 1 || ph.Ops[0].Bytes != want || ph.Ops[0].BwBytesPerS == nil {
			t.Errorf("%s: %+v, want %d bytes with a bandwidth", ph.Name, ph.Ops, want)
		}
	}
	tsv, err := os.ReadFile(filepath.Join(folder, "sweep.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, point := range []string{"size=8M numjobs=2 rw=write", "size=8M numjobs=2 rw=read"} {
		if !strings.Contains(string(tsv), "\t"+point+"\t") {
			t.Errorf("sweep.tsv has no line for %s:\n%s", point, tsv)
		}
	}
}

// MdtestShape runs the WEKA mdtest line (examples/mdtest-8-clients.yaml:
// -F -u -N 1 -i 3, the workers from an MPI hostfile's slots), 2 slots
// on each client and 100 items a worker: every stat and read is of an
// item another client created.
func MdtestShape(t *testing.T, c *Cluster) {
	f := example(t, "mdtest-8-clients.yaml", "items: 1000 ", "items: 100 ")
	hosts := filepath.Join(t.TempDir(), "hosts")
	flag, lines := "--hostfile", ""
	for i, a := range c.Agents {
		if c.NetNS {
			lines += c.AgentHost(i) + ":2\n" // MPICH's host:slots, agents on port 7761
		} else {
			lines += a + " slots=2\n"
		}
	}
	if !c.NetNS {
		flag = "--agents-file"
	}
	if err := os.WriteFile(hosts, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := RunOK(t, c, "run", f, flag, hosts, "-d", c.Dir)
	ph := s.Phases[0]
	want := uint64(len(c.Agents) * 2 * 100 * 3)
	for _, o := range ph.Ops {
		if o.Op != "file-stat" && o.Op != "file-read" {
			continue
		}
		if o.Ops != want || o.CrossHostItems == nil || *o.CrossHostItems != o.Ops {
			t.Errorf("%s: %d items, %v created by another client; want %d, all by another client", o.Op, o.Ops, deref(o.CrossHostItems), want)
		}
	}
}

// SharedFio runs the shared-file procedure (examples/shared-fio.yaml):
// IOR-easy files read back by the neighbour, IOR-hard's one shared file
// written by every client in 47,008-byte records and read back by the
// neighbour, every read checked by fio's crc32c; the shared file holds
// hosts x jobs x transfers x 47,008 bytes, and nothing stays after.
func SharedFio(t *testing.T, c *Cluster) {
	s, _ := RunOK(t, c, "run", example(t, "shared-fio.yaml"), "-d", c.Dir)
	want := uint64(len(c.Agents) * 2 * 50 * 47008)
	for _, ph := range s.Phases {
		if strings.HasPrefix(ph.Name, "ior-hard") && (len(ph.Ops) != 1 || ph.Ops[0].Bytes != want) {
			t.Errorf("%s: %+v, want %d bytes (hosts x 2 jobs x 50 transfers x 47008)", ph.Name, ph.Ops, want)
		}
	}
	for _, m := range c.Mounts {
		if ents, err := os.ReadDir(m); err != nil || len(ents) != 0 {
			t.Errorf("the file system holds %v (%v) after the run", ents, err)
		}
	}
}

// OwnClients checks that every agent, in its own mount namespace, sees a
// client of the file system of its own at c.Dir (a device of its own).
func OwnClients(t *testing.T, c *Cluster) {
	t.Helper()
	devs := map[string]bool{}
	for i := range c.Agents {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/mountinfo", c.AgentPid(i)))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) > 4 && f[4] == c.Dir {
				if !strings.Contains(l, " - "+c.FS.MountType()) {
					t.Fatalf("agent %d sees %s at %s, not a %s client", i, l, c.Dir, c.FS.Name())
				}
				devs[f[2]] = true
			}
		}
	}
	if len(devs) != len(c.Agents) {
		t.Fatalf("the agents see %d distinct clients at %s, want %d", len(devs), c.Dir, len(c.Agents))
	}
}
