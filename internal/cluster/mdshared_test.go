package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/results"
)

// mdOnLocalAgents runs one md phase on n in-process agents over one
// directory (one machine: shared by construction) and returns the
// summary of the phase, the hosts' results and the directory.
func mdOnLocalAgents(t *testing.T, n int, params map[string]any) (results.PhaseSummary, []*engine.HostResult, string) {
	t.Helper()
	dir := t.TempDir()
	if d, err := os.MkdirTemp("/dev/shm", "storbench-cluster-md-"); err == nil {
		dir = d
		t.Cleanup(func() { os.RemoveAll(d) })
	}
	var agents []Agent
	for i := range n {
		agents = append(agents, &LocalAgent{Host: fmt.Sprint("h", i), Version: "test", Engines: testEngines, NoClientLoad: noClientLoad})
	}
	params["dir"] = dir
	raw, _ := json.Marshal(params)
	ctrl := newController(agents...)
	out, err := ctrl.RunPhase(context.Background(), "run1", false, engine.Phase{Name: "md", Engine: "md", Params: raw})
	if err != nil {
		t.Fatal(err)
	}
	// The workspace's removal goes on in the background: awaited as
	// the run awaits it before it ends.
	for _, r := range ctrl.Settle(context.Background(), "run1", agents) {
		if len(r.Leftovers) > 0 {
			t.Errorf("the removal left %v", r.Leftovers)
		}
	}
	return results.BuildPhase("md", "md", nil, out.Results), out.Results, dir
}

// mdtest's -N across hosts, in one shared tree and with a tree per worker:
// 3 hosts x 2 workers and -N 1 make every worker stat, rename and read
// what a worker of another host created (1 and 2 hosts further on), and
// remove its own host's items (3 hosts further on), as mdtest 3.3+ does.
// Every host counts its items on those operations as created elsewhere or
// not, the totals equal the items created, nothing fails, and the one
// shared directory is gone.
func TestMdStrideAcrossLocalAgents(t *testing.T) {
	for _, unique := range []bool{false, true} {
		t.Run(fmt.Sprint("unique_dir=", unique), func(t *testing.T) {
			ps, res, dir := mdOnLocalAgents(t, 3, map[string]any{"items": 200, "workers": 2, "stride": 1, "unique_dir": unique,
				"depth": 1, "branch": 2, "rename": true, "write_bytes": 8, "read_bytes": 8})
			created := map[string]uint64{}
			for _, o := range ps.Ops {
				if o.Errors != 0 {
					t.Errorf("%s: %d errors %v", o.Op, o.Errors, o.ErrorKinds)
				}
				created[o.Op] = o.Ops
			}
			for _, op := range []string{"dir-stat", "dir-rename", "dir-remove", "file-stat", "file-read", "file-rename", "file-remove"} {
				if created[op] != 1200 {
					t.Errorf("%s: %d items in all, want the 1200 created", op, created[op])
				}
				cross := uint64(400)
				if strings.HasSuffix(op, "-remove") {
					cross = 0
				}
				for _, h := range ps.PerHost {
					for _, o := range h.Ops {
						if o.Op == op && (o.CrossHostItems == nil || *o.CrossHostItems != cross || o.Ops != 400) {
							t.Errorf("host %s %s: %d items, %v created by another host; want 400 and %d", h.Host, op, o.Ops, o.CrossHostItems, cross)
						}
					}
				}
			}
			for i, r := range res {
				if r.Meta["rank_first"] != fmt.Sprint(2*i) || r.Meta["ranks_total"] != "6" || r.Meta["shared"] != "true" {
					t.Errorf("host %s: meta %v", r.Host, r.Meta)
				}
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// Without -u, all workers of all hosts share one tree (mdtest's default):
// its items sit side by side, one tree is made, and each host's workers
// find their own items (none created elsewhere without a stride).
func TestMdSharedTreeAcrossLocalAgents(t *testing.T) {
	ps, res, _ := mdOnLocalAgents(t, 3, map[string]any{"items": 100, "workers": 2, "depth": 1, "branch": 3})
	for _, o := range ps.Ops {
		want := uint64(600)
		if o.Op == "tree-create" || o.Op == "tree-remove" {
			want = 4 // one tree of 1+3 directories for all hosts
		}
		if o.Ops != want || o.Errors != 0 {
			t.Errorf("%s: %d items, %d errors; want %d", o.Op, o.Ops, o.Errors, want)
		}
		if o.Op == "file-stat" && (o.CrossHostItems == nil || *o.CrossHostItems != 0) {
			t.Errorf("file-stat without a stride: %v items created elsewhere", o.CrossHostItems)
		}
	}
	// Hosts that made no tree have no tree figure (not 0 op/s).
	for _, h := range ps.PerHost[1:] {
		for _, o := range h.Ops {
			if strings.HasPrefix(o.Op, "tree-") {
				t.Errorf("host %s reports %s (%d items): it made no tree", h.Host, o.Op, o.Ops)
			}
		}
	}
	dirs := map[string]bool{}
	for _, r := range res {
		dirs[r.Meta["dir"]] = true
	}
	if len(dirs) != 1 {
		t.Errorf("hosts worked in %v, want one shared directory", dirs)
	}
}

// The stonewall across hosts without the wear-out: every host stops
// creating at one deadline, counted from the common start, and later
// operations (with a stride, on another host's items) work on what
// exists: as many as were created, none missing.
func TestMdStonewallAcrossLocalAgents(t *testing.T) {
	const wall = 500 * time.Millisecond
	stall := measureStalls()
	ps, res, _ := mdOnLocalAgents(t, 3, map[string]any{"items": 10_000_000, "workers": 2, "stride": 1, "files_only": true, "stonewall": wall.String(),
		"wear_out": false, "write_bytes": 1, "read_bytes": 1})
	worst := stall()
	var created, stat, read, removed uint64
	for _, o := range ps.Ops {
		switch o.Op {
		case "file-create":
			created = o.Ops
		case "file-stat":
			stat = o.Ops
		case "file-read":
			read = o.Ops
		case "file-remove":
			removed = o.Ops
		}
		if o.Errors != 0 {
			t.Errorf("%s: %d errors %v", o.Op, o.Errors, o.ErrorKinds)
		}
	}
	if created == 0 || created >= 60_000_000 || stat != created || read != created || removed != created {
		t.Errorf("created %d, stat %d, read %d, removed %d", created, stat, read, removed)
	}
	// The hosts stopped at the stonewall after different counts, so each
	// host's counts show whose items it worked on: host h stats what host
	// h+1 created, reads what h+2 created (another neighbour than the one
	// it stat'ed, so no client cache answers) and removes its own (h+3),
	// as mdtest 3.3+ shifts by S, 2S and 3S.
	per := map[string][]uint64{}
	for _, h := range ps.PerHost {
		for _, o := range h.Ops {
			per[o.Op] = append(per[o.Op], o.Ops)
		}
	}
	for h := range 3 {
		c := per["file-create"]
		if per["file-stat"][h] != c[(h+1)%3] || per["file-read"][h] != c[(h+2)%3] || per["file-remove"][h] != c[h] {
			t.Errorf("host %d: stat %d, read %d, remove %d items; hosts created %v (want stat h+1's, read h+2's, remove its own)",
				h, per["file-stat"][h], per["file-read"][h], per["file-remove"][h], c)
		}
	}
	// Each host's create window, from the common start, ends at the
	// deadline plus what the run itself says can follow it: a worker
	// checks the deadline after each create, so the one in flight then
	// ends later by at most the longest create (the create's latency
	// max), and a host that began late (barrier_late_max_ns) starts its
	// first create that much after the common start. Beyond those, the
	// last create's end and the window's end (a few instructions apart)
	// are apart by at most a preemption: 50 ms plus twice the worst stall
	// this process saw. A fixed 400 ms after a 100-ms stonewall failed at
	// a load of 50 (458 ms); here, on a quiet machine, the longest create
	// took 25-115 ms and the worst stall was 10-90 ms, so the stonewall is
	// 500 ms: a deadline missed by as much as the stonewall itself is
	// past the bound there, and a host that went on creating (10,000,000
	// items) is seconds past it anywhere.
	for _, r := range res {
		late, err := strconv.ParseInt(r.Meta["barrier_late_max_ns"], 10, 64)
		if err != nil {
			t.Errorf("host %s: how late it began (barrier_late_max_ns): %v", r.Host, err)
		}
		for _, o := range r.Ops {
			if o.Op != "file-create" {
				continue
			}
			it := o.Iterations[0]
			d := time.Duration(it.EndNs - it.StartNs)
			longest := time.Duration(o.Lat.Stats.Max)
			bound := max(wall, time.Duration(late)) + longest + 50*time.Millisecond + 2*worst
			if d < wall || d > bound {
				t.Errorf("host %s created for %s with a %s stonewall, want %s to %s (its longest create %s, began %s late; this process stalled at most %s)",
					r.Host, d, wall, wall, bound, longest, time.Duration(late), worst)
			}
		}
		if r.Meta["stonewall_file_items_per_rank_min"] == "" || r.Meta["stonewall_file_items_per_rank_min"] == "0" {
			t.Errorf("host %s: items per rank at the stonewall: %v", r.Host, r.Meta)
		}
	}
}

// mdtest's stonewall with its wear-out, as IO500's mdtest writes use it:
// at the deadline the ranks of all hosts learn the largest count any of
// them made, and every rank goes on creating until it has made as many.
// Every host ends with the same count (its workers x that largest
// count), inside the create's time; the items per rank at the stonewall
// (min, max, sum) are those of all hosts, and later operations work on
// every item.
func TestMdStonewallWearOutAcrossLocalAgents(t *testing.T) {
	ps, res, _ := mdOnLocalAgents(t, 3, map[string]any{"items": 10_000_000, "workers": 2, "stride": 1, "files_only": true, "stonewall": "100ms"})
	create := ps.Ops[slices.IndexFunc(ps.Ops, func(o results.OpSummary) bool { return o.Op == "file-create" })]
	var most int64
	for _, r := range res {
		m := r.Meta
		lo, _ := strconv.ParseInt(m["stonewall_file_items_per_rank_min"], 10, 64)
		hi, _ := strconv.ParseInt(m["stonewall_file_items_per_rank_max"], 10, 64)
		sum, _ := strconv.ParseInt(m["stonewall_file_items_sum"], 10, 64)
		if lo <= 0 || hi < lo || sum < 6*lo || sum > 6*hi || m["stonewall_file_hit_ns"] == "" {
			t.Errorf("host %s: at the stonewall min %d, max %d, sum %d: %v", r.Host, lo, hi, sum, m)
		}
		if most != 0 && hi != most {
			t.Errorf("host %s learnt a largest count of %d, another %d", r.Host, hi, most)
		}
		most = hi
	}
	for _, h := range ps.PerHost {
		for _, o := range h.Ops {
			if o.Op == "file-create" && o.Ops != uint64(2*most) {
				t.Errorf("host %s created %d files, want 2 workers x the largest count %d", h.Host, o.Ops, most)
			}
		}
	}
	for _, o := range ps.Ops {
		if strings.HasPrefix(o.Op, "file-") && (o.Ops != create.Ops || o.Errors != 0) {
			t.Errorf("%s: %d items, %d errors; want the %d created", o.Op, o.Ops, o.Errors, create.Ops)
		}
	}
}
