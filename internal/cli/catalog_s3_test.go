package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/catalog"
	"github.com/storbench/storbench/internal/s3test"
)

// An s3 run's fingerprint names its endpoint and the server behind it
// (a real versitygw on loopback answers with its Server header), and the
// catalog finds the run by them.
func TestCatalogS3Fingerprint(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	st, out := s3State(srv)
	cat := filepath.Join(t.TempDir(), "catalog.db")
	err := Execute(context.Background(), st, []string{"s3", "stat", "--objects", "10", "--concurrent", "2", "--duration", "1s",
		"--results", t.TempDir(), "--bucket", "fpbucket", "--catalog", cat})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	code, js := cmdOut(t, "runs", "--catalog", cat, "--json", "s3_endpoint="+srv.Endpoint)
	var runs []catalog.Run
	if code != 0 || json.Unmarshal([]byte(js), &runs) != nil || len(runs) != 1 {
		t.Fatalf("runs s3_endpoint=%s: exit %d\n%s", srv.Endpoint, code, js)
	}
	if runs[0].S3Server == "" || strings.Contains(runs[0].S3Endpoint, s3test.AccessKey) {
		t.Errorf("fingerprint: endpoint %q, server %q: want the endpoint and its Server header", runs[0].S3Endpoint, runs[0].S3Server)
	}
	if code, js := cmdOut(t, "runs", "--catalog", cat, "--csv", "s3_server="+runs[0].S3Server); code != 0 || strings.Count(js, "\n") != 2 {
		t.Errorf("runs s3_server=%s: exit %d\n%s", runs[0].S3Server, code, js)
	}
	t.Logf("endpoint %s answers with Server: %s", runs[0].S3Endpoint, runs[0].S3Server)
}
