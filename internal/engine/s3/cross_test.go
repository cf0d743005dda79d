package s3

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/s3test"
)

// Two gateways over one namespace (two versitygw processes on one posix
// directory), --host-select cross and --verify: host 0 uploads every
// object through the first gateway and reads each back, checked, through
// the second; host 1 the other way round. The gateways' access logs show
// it, and no read fails its check.
func TestCrossReadsThroughAnotherGateway(t *testing.T) {
	t.Parallel()
	if _, err := s3test.Binary(); err != nil {
		t.Skipf("versitygw cannot be built: %v", err)
	}
	root := t.TempDir()
	var srvs []*s3test.Server
	var logs []string
	for i := range 2 {
		logs = append(logs, filepath.Join(t.TempDir(), "access.log"))
		srv, err := s3test.Start(root, s3test.Options{AccessLog: logs[i]})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Stop)
		srvs = append(srvs, srv)
	}
	ctx := context.Background()
	// The two hosts run one after the other here, each cleaning up before
	// the next prepares: the bucket is there before both, as one the run
	// did not make (only a run's first host makes a missing bucket).
	if err := adminClient(t, srvs[0]).MakeBucket(ctx, "bench", minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	for rank := range 2 {
		p := baseParams(srvs[0], "get")
		p["hosts"] = []string{srvs[0].Endpoint, srvs[1].Endpoint}
		p["host_select"], p["verify"] = "cross", true
		env := engine.Env{Host: "h" + string(rune('0'+rank)), RunID: "cross", Hosts: 2, Rank: rank}
		pr, err := Engine{}.Prepare(ctx, env, phaseOf(t, "cross", p))
		if err != nil {
			t.Fatal(err)
		}
		res, err := pr.Run(ctx, time.Now(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := pr.Cleanup(ctx); err != nil {
			t.Fatal(err)
		}
		if len(res.Ops) != 1 || res.Ops[0].Ops == 0 || res.Ops[0].Errors != 0 {
			t.Fatalf("rank %d: %+v", rank, res.Ops)
		}
		w, r := srvs[rank], srvs[1-rank]
		if res.Meta["writes_through"] != w.Endpoint || res.Meta["reads_through"] != r.Endpoint {
			t.Errorf("rank %d: meta %v, want writes through %s, reads through %s", rank, res.Meta, w.Endpoint, r.Endpoint)
		}
		wlog, rlog := logs[rank], logs[1-rank]
		// The 40 objects, and the run's marker when this host made the
		// bucket.
		if n := total(requestsFrom(t, wlog, "s3_PutObject")); n != 40 && n != 41 {
			t.Errorf("rank %d: %d uploads through its own gateway, want the 40 objects", rank, n)
		}
		if n := total(requestsFrom(t, wlog, "s3_GetObject")); n != 0 {
			t.Errorf("rank %d: %d reads through the gateway that wrote", rank, n)
		}
		if n := total(requestsFrom(t, rlog, "s3_GetObject")); uint64(n) != res.Ops[0].Ops {
			t.Errorf("rank %d: %d reads through the other gateway, of %d", rank, n, res.Ops[0].Ops)
		}
		if n := total(requestsFrom(t, rlog, "s3_PutObject")); n != 0 {
			t.Errorf("rank %d: %d uploads through the reading gateway", rank, n)
		}
		for _, l := range logs {
			if err := os.Truncate(l, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	p := baseParams(srvs[0], "get")
	p["host_select"] = "cross"
	if err := prepareErr(t, p); err == nil {
		t.Error("cross with one endpoint was accepted")
	}
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// With --host-select cross a host keeps the bucket through its own
// gateway, and an error there names that gateway: the second host's look
// for the bucket, refused by the second gateway alone, says the second
// gateway. Before, it named the first (the bucket's upkeep had moved to
// the host's own gateway, its error messages had not).
func TestCrossBucketErrorNamesTheHostsGateway(t *testing.T) {
	srv := s3test.StartT(t, s3test.Options{})
	denying := faultProxy(t, srv, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodHead {
			return false
		}
		w.WriteHeader(http.StatusForbidden)
		return true
	})
	p := baseParams(srv, "get")
	p["hosts"] = []string{srv.Endpoint, denying}
	p["host_select"] = "cross"
	env := engine.Env{Host: "h1", RunID: "crosserr", Hosts: 2, Rank: 1}
	_, err := Engine{}.Prepare(context.Background(), env, phaseOf(t, "crosserr", p))
	if err == nil || !strings.Contains(err.Error(), denying) || strings.Contains(err.Error(), srv.Endpoint) {
		t.Errorf("prepare: %v; want the error to name the host's own gateway %s", err, denying)
	}
}
