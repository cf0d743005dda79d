package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/storbench/storbench/internal/catalog"
)

// The catalog records the S3 endpoint the engine says its phase talks to
// (engine.Plan.Endpoint), not any phase setting called host: a run of an
// engine whose host setting names something else (the probe's file
// server) records no S3 endpoint, and that host is sent no request.
func TestCatalogEndpointIsTheEngines(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		asked.Add(1)
		w.Header().Set("Server", "NotS3/1.0")
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	dir := t.TempDir()
	suiteFile := filepath.Join(t.TempDir(), "suite.yaml")
	yaml := "name: probe\ndir: " + dir + "\nphases:\n  - name: look\n    probe: {ms: 100, host: \"" + host + "\"}\n"
	if err := os.WriteFile(suiteFile, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cat := filepath.Join(t.TempDir(), "catalog.db")
	st, out := testState()
	st.Engines = probeEngines()
	if err := Execute(t.Context(), st, []string{"run", suiteFile, "--results", t.TempDir(), "--catalog", cat}); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	code, js := cmdOut(t, "runs", "--catalog", cat, "--json")
	var runs []catalog.Run
	if code != 0 || json.Unmarshal([]byte(js), &runs) != nil || len(runs) != 1 {
		t.Fatalf("runs: exit %d\n%s", code, js)
	}
	if runs[0].S3Endpoint != "" || runs[0].S3Server != "" {
		t.Errorf("the probe's run recorded S3 endpoint %q, server %q: its host is no S3 endpoint", runs[0].S3Endpoint, runs[0].S3Server)
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the probe's host was sent %d requests by the run", n)
	}
}
