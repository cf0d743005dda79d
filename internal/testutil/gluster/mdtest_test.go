package gluster_test

// storbench md beside the real mdtest on the same four GlusterFS clients
// (issue 23's must-show: file-read within 0.8-1.25x of mdtest's).

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/testutil/gluster"
)

// mdtestRE reads a rate line of mdtest's summary: "File read  max min
// mean stddev".
var mdtestRE = regexp.MustCompile(`(?m)^\s*(File creation|File stat|File read|File removal)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)`)

// mdtestRates runs mdtest -F -N 1 on the clients through MPICH's mpiexec,
// one rank per client: each rank in a mount namespace of its own with its
// client's mount bound at Dir, and a UTS namespace of its own with a host
// name of its own, so that mdtest counts four nodes and -N 1 shifts by
// one rank (on one node name it would shift by all four: every rank its
// own files). It returns the mean rate per operation, in items/s.
func mdtestRates(t *testing.T, c *gluster.Cluster, mdtest, mpiexec string, items, round int) map[string]float64 {
	t.Helper()
	dir := filepath.Join(c.Dir, fmt.Sprintf("mdtest-%d", round))
	inner := fmt.Sprintf(`hostname sbnode$0 && mount --bind "%s/mnt$0" %q && exec %q -F -N 1 -n %d -w 4096 -e 4096 -d %q`, c.Root, c.Dir, mdtest, items, dir)
	rank := fmt.Sprintf(`exec unshare --mount --uts --propagation private sh -c '%s' "$PMI_RANK"`, inner)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, mpiexec, "-n", strconv.Itoa(len(c.Agents)), "sh", "-c", rank).CombinedOutput()
	if err != nil {
		t.Fatalf("mdtest: %v:\n%s", err, out)
	}
	if !strings.Contains(string(out), "Shifting ranks by 1 ") {
		t.Fatalf("mdtest does not shift by one rank (one client): each rank would read its own files:\n%s", out)
	}
	rates := map[string]float64{}
	for _, m := range mdtestRE.FindAllStringSubmatch(string(out), -1) {
		rates[m[1]], _ = strconv.ParseFloat(m[4], 64)
	}
	if rates["File read"] == 0 {
		t.Fatalf("no file read rate in mdtest's output:\n%s", out)
	}
	return rates
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// storbench md -N 1 and mdtest -F -N 1 on the same four clients, 8
// rounds, the order alternating: the median file-read rates are within
// 0.8-1.25x of each other. Runs where mdtest (STORBENCH_MDTEST, built by
// hand, never committed) and MPICH's mpiexec are.
func TestGlusterMdtestParity(t *testing.T) {
	gluster.Full(t)
	mdtest := os.Getenv("STORBENCH_MDTEST")
	if mdtest == "" {
		t.Skip("set STORBENCH_MDTEST to an mdtest binary (hpc/ior, built by hand) to compare with it")
	}
	mpiexec := os.Getenv("STORBENCH_MPIEXEC")
	if mpiexec == "" {
		mpiexec = "mpiexec.mpich"
	}
	if _, err := exec.LookPath(mpiexec); err != nil {
		t.Skipf("MPICH's %s is not installed (make mpich)", mpiexec)
	}
	c := gluster.Start(t, gluster.Options{Agents: 4})
	const items = 500
	ops := map[string]string{"file-create": "File creation", "file-stat": "File stat", "file-read": "File read", "file-remove": "File removal"}
	sb, mt := map[string][]float64{}, map[string][]float64{}
	for round := range 8 {
		runSB := func() {
			ph := mdN1(t, c, items)
			for _, o := range ph.Ops {
				if name, ok := ops[o.Op]; ok && o.Rate != nil {
					sb[name] = append(sb[name], o.Rate.Mean)
				}
			}
		}
		runMT := func() {
			for k, v := range mdtestRates(t, c, mdtest, mpiexec, items, round) {
				mt[k] = append(mt[k], v)
			}
		}
		if round%2 == 0 {
			runSB()
			runMT()
		} else {
			runMT()
			runSB()
		}
	}
	for _, name := range []string{"File creation", "File stat", "File read", "File removal"} {
		t.Logf("%-13s storbench md median %8.1f/s %v; mdtest median %8.1f/s %v; ratio %.2f",
			name, median(sb[name]), rounded(sb[name]), median(mt[name]), rounded(mt[name]), median(sb[name])/median(mt[name]))
	}
	if r := median(sb["File read"]) / median(mt["File read"]); r < 0.8 || r > 1.25 {
		t.Errorf("file-read: storbench %.1f/s, mdtest %.1f/s: ratio %.2f, outside 0.8-1.25", median(sb["File read"]), median(mt["File read"]), r)
	}
}

func rounded(v []float64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x + 0.5)
	}
	return out
}
