package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// What run.json keeps of `storbench fio`'s options, and the report shows
// as its settings, is what was given: without --numjobs the job files'
// own numjobs ran, and the report said "numjobs 0".
func TestFioRecordsOnlyTheNumjobsGiven(t *testing.T) {
	t.Parallel()
	if m := (FioOptions{}).recorded("d"); m["numjobs"] != nil {
		t.Errorf("no --numjobs given, run.json keeps numjobs %v", m["numjobs"])
	}
	if m := (FioOptions{Numjobs: 4}).recorded("d"); m["numjobs"] != 4 {
		t.Errorf("--numjobs 4 given, run.json keeps numjobs %v", m["numjobs"])
	}
}

// What run.json keeps of `storbench md`'s options (its settings, which
// the report shows) and the phase's settings in its plan are every
// setting as given or defaulted, the target's absolute path and the
// workers among them: with -t and -W, and without (workers 0 is "one per
// CPU", and wear_out, which only qualifies a stonewall, goes to no phase
// without one).
func TestMdRecordsItsSettings(t *testing.T) {
	t.Parallel()
	const same = `"branch": 1, "depth": 0, "dirs_only": false, "files_only": false, "find": false, "find_name": "*01*", "force": false,
		"items": 5, "iterations": 1, "random": false, "rank_stride": 0, "rename": false, "stride": 0, "sync": false, "sync_file": false,
		"unique_dir": false, "verify": false`
	for _, tc := range []struct {
		args             []string
		settings, params string
	}{
		{[]string{"-t", "1", "-W", "30s", "-w", "1k"},
			`"find_in": "", "find_size": "", "only": null, "read_bytes": "0", "seed": 0, "stonewall": "30s", "tree": "", "wear_out": true, "workers": 1, "write_bytes": "1k"`,
			`"read_bytes": 0, "stonewall": "30s", "wear_out": true, "workers": 1, "write_bytes": 1024`},
		{nil,
			`"find_in": "", "find_size": "", "only": null, "read_bytes": "0", "seed": 0, "stonewall": "", "tree": "", "wear_out": true, "workers": 0, "write_bytes": "0"`,
			`"read_bytes": 0, "write_bytes": 0`},
	} {
		t.Run(strings.Join(append([]string{"md"}, tc.args...), " "), func(t *testing.T) {
			t.Parallel()
			dir, res := t.TempDir(), t.TempDir()
			st, out := testState()
			if err := Execute(context.Background(), st, append([]string{"md", "-d", dir, "-n", "5", "--results", res}, tc.args...)); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			found, _ := filepath.Glob(filepath.Join(res, "*", "run.json"))
			if len(found) != 1 {
				t.Fatalf("run.json: %v", found)
			}
			b, err := os.ReadFile(found[0])
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Settings map[string]any `json:"settings"`
				Plan     []struct {
					Params map[string]any `json:"params"`
				} `json:"plan"`
			}
			if err := json.Unmarshal(b, &got); err != nil || len(got.Plan) != 1 {
				t.Fatalf("run.json: %v, %d phases", err, len(got.Plan))
			}
			d, _ := json.Marshal(dir)
			for what, pair := range map[string]struct {
				got  map[string]any
				want string
			}{"settings": {got.Settings, tc.settings}, "the phase's params": {got.Plan[0].Params, tc.params}} {
				var want map[string]any
				if err := json.Unmarshal([]byte(`{"dir": `+string(d)+`, `+same+`, `+pair.want+`}`), &want); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(pair.got, want) {
					t.Errorf("run.json's %s:\n%v\nwant\n%v", what, pair.got, want)
				}
			}
		})
	}
}
