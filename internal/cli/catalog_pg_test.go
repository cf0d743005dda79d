package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/testutil"
)

// A team's catalog in PostgreSQL (a real server, on loopback). A run
// indexes into it; the URL's password is a secret: never in the results
// folder (run.json's command line included), the output at -vvv, or the
// catalog. PostgreSQL going down while the run runs loses nothing: the
// results folder is complete, the run says its entry was not added and
// how to add it, and catalog add adds it once the server is back.
func TestCatalogPostgres(t *testing.T) {
	t.Parallel()
	pg := testutil.StartPostgres(t)
	defer pg.Remove()
	url := pg.NewDB(t)
	res := t.TempDir()
	run := func(args ...string) (error, string) {
		st, out := testState()
		st.Args = append([]string{"storbench"}, args...)
		st.Verbosity = 3
		err := Execute(context.Background(), st, args)
		return err, out.String()
	}
	err, out := run("md", "-d", t.TempDir(), "-n", "30", "--results", res, "--catalog", url, "--label", "site=lab", "-vvv")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "added to postgres://sb:REDACTED@127.0.0.1") {
		t.Errorf("the run does not say where it was added, without the password:\n%s", out)
	}
	texts := map[string]string{"the run's output": out}
	code, runsOut := cmdOut(t, "runs", "--catalog", url, "--csv", "label=site=lab")
	if code != 0 || strings.Count(runsOut, "\n") != 2 {
		t.Fatalf("runs in PostgreSQL: exit %d\n%s", code, runsOut)
	}
	texts["runs"] = runsOut
	// Down mid-run: the server stops once the run has made its folder.
	data := t.TempDir()
	done := make(chan struct{})
	go func() {
		defer close(done)
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) {
			if m, _ := filepath.Glob(filepath.Join(res, "*_md", "run.json")); len(m) == 2 {
				if err := pg.Stop(); err != nil {
					t.Error(err)
				}
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Error("the second run made no results folder")
	}()
	err, out = run("md", "-d", data, "-n", "3000", "-i", "2", "--results", res, "--catalog", url, "--label", "site=lab")
	<-done
	texts["the interrupted catalog's run"] = out
	if err != nil {
		t.Fatalf("the run failed because its catalog went down: %v\n%s", err, out)
	}
	if !strings.Contains(out, "was not added") || !strings.Contains(out, "storbench catalog add "+res) {
		t.Errorf("the run does not say its entry was not added and how to add it:\n%s", out)
	}
	folders, _ := filepath.Glob(filepath.Join(res, "*_md"))
	last := folders[len(folders)-1]
	if b, _ := os.ReadFile(filepath.Join(last, "summary.json")); !strings.Contains(string(b), `"status": "completed"`) {
		t.Errorf("the results folder is not complete:\n%s", b)
	}
	if err := pg.Start(); err != nil {
		t.Fatal(err)
	}
	if code, out := cmdOut(t, "catalog", "add", "--catalog", url, res); code != 0 || !strings.Contains(out, "2 of 2") {
		t.Fatalf("catalog add after the server came back: exit %d\n%s", code, out)
	}
	if _, out := cmdOut(t, "runs", "--catalog", url, "--csv"); strings.Count(out, "\n") != 3 {
		t.Errorf("after catalog add, the catalog holds:\n%s", out)
	}
	dbName := url[strings.LastIndex(url, "/")+1 : strings.Index(url, "?")]
	texts["the catalog"] = pg.SQLIn(t, dbName, "SELECT r::text FROM sb_runs r") + pg.SQLIn(t, dbName, "SELECT l::text FROM sb_labels l")
	if !strings.Contains(texts["the catalog"], "site,lab") {
		t.Errorf("the catalog's dump lacks the runs' labels:\n%s", texts["the catalog"])
	}
	for _, l := range leaks(res, texts, []string{pg.Password}) {
		t.Error(l)
	}
}
