package gluster_test

// The S3 procedure on GlusterFS: one versitygw gateway per client, each
// over its own FUSE client of the one volume (a multi-gateway object
// store on one shared namespace), every object read back and checked
// through another gateway than wrote it.

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/s3test"
	"github.com/storbench/storbench/internal/testutil"
	"github.com/storbench/storbench/internal/testutil/dfs"
	"github.com/storbench/storbench/internal/testutil/gluster"
)

// gateways starts versitygw in every agent's namespaces over DIR/s3 (its
// own client of the volume), and returns their endpoints, in agent order.
// They stop in the test's cleanup, before the cluster's teardown.
func gateways(t *testing.T, c *gluster.Cluster) []string {
	t.Helper()
	bin, err := s3test.Binary()
	if err != nil {
		t.Skipf("versitygw cannot be built, the S3 procedure needs it: %v", err)
	}
	if err := os.Mkdir(filepath.Join(c.Mounts[0], "s3"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(filepath.Join(c.Mounts[0], "s3")) })
	// All start, then all are waited for: each gateway's start is 1-3 s
	// on the loaded test machine.
	var eps []string
	var dones []chan struct{}
	for i := range c.Agents {
		// Each agent's address of its own, or, on loopback, a claimed
		// port (not one of 127.0.0.1:0 closed again, which another
		// process could take before the gateway binds it).
		ep := net.JoinHostPort(c.AgentHost(i), "7070")
		if !c.NetNS {
			ep = testutil.ClaimAddr(t)
		}
		cmd := c.InAgent(i, bin, "--port", ep, "--quiet", "--keep-alive", "posix", filepath.Join(c.Dir, "s3"))
		cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+s3test.AccessKey, "ROOT_SECRET_KEY="+s3test.SecretKey)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				<-done
			}
		})
		eps, dones = append(eps, ep), append(dones, done)
	}
	for i, ep := range eps {
		waitHTTP(t, ep, dones[i])
	}
	return eps
}

func waitHTTP(t *testing.T, ep string, done <-chan struct{}) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			t.Fatalf("gateway %s ended at start", ep)
		default:
		}
		if resp, err := http.Get("http://" + ep + "/"); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("gateway %s did not answer within 20 s", ep)
}

// One gateway per client, s3 get --verify --host-select cross: every host
// uploads its objects through its own gateway and reads each back,
// checked, through the next host's gateway - another FUSE client of the
// volume - with no error and no content mismatch; each host's result says
// which gateways it wrote and read through.
func s3Procedure(t *testing.T, c *gluster.Cluster, objects int) {
	eps := gateways(t, c)
	s, folder := dfs.RunOK(t, c.Cluster, "s3", "get", "--host", strings.Join(eps, ","), "--host-select", "cross", "--verify",
		"--duration", "3s", "--obj.size", "64KiB", "--objects", strconv.Itoa(objects), "--concurrent", "2")
	ph := s.Phases[0]
	for i, h := range ph.PerHost {
		if len(h.Ops) != 1 || h.Ops[0].Op != "GET" || h.Ops[0].Ops == 0 {
			t.Errorf("host %s: %+v, want GETs", h.Host, h.Ops)
		}
		hr, err := results.ReadHostResult(folder, ph.Dir, h.Host)
		if err != nil {
			t.Fatal(err)
		}
		j := indexOf(ph.Hosts, h.Host)
		w, r := eps[j], eps[(j+1)%len(eps)]
		if hr.Meta["writes_through"] != w || hr.Meta["reads_through"] != r {
			t.Errorf("host %d %s: wrote through %q, read through %q; want %s and %s", i, h.Host, hr.Meta["writes_through"], hr.Meta["reads_through"], w, r)
		}
	}
	t.Logf("GET 64 KiB, each object read through another gateway: %s", rate(ph))
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func rate(ph results.PhaseSummary) string {
	if len(ph.Ops) == 0 || ph.Ops[0].OpsPerS == nil {
		return "no rate"
	}
	return fmt.Sprintf("%.0f GET/s", *ph.Ops[0].OpsPerS)
}
