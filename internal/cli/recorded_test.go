package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/model"
)

// What run.json keeps of `storbench fio`'s options, and the report shows
// as its settings, is what was given: without --numjobs the job files'
// own numjobs ran, and the report said "numjobs 0".
func TestFioRecordsOnlyTheNumjobsGiven(t *testing.T) {
	t.Parallel()
	st, _ := testState()
	flags := st.Engines.Info(model.EngineFio).Flags
	if m := (FioOptions{}).recorded(flags); m["numjobs"] != nil {
		t.Errorf("no --numjobs given, run.json keeps numjobs %v", m["numjobs"])
	}
	if m := (FioOptions{Numjobs: 4}).recorded(flags); m["numjobs"] != 4 {
		t.Errorf("--numjobs 4 given, run.json keeps numjobs %v", m["numjobs"])
	}
}

// What run.json keeps of `storbench md`'s options (its settings, which
// the report shows) and the phase's settings in its plan are the settings
// given or defaulted, the target's absolute path among them, settings as
// typed and the phase's read as typed (sizes in bytes): with -t and -W,
// and without. A setting left out whose default is the engine's choice is
// in neither (workers: one per CPU, seed, stonewall, and wear_out, which
// only qualifies a stonewall; empty text and lists): run.json said
// "workers": 0 and "stonewall": "" before.
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
			`"read_bytes": "0", "stonewall": "30s", "wear_out": true, "workers": 1, "write_bytes": "1k"`,
			`"read_bytes": 0, "stonewall": "30s", "wear_out": true, "workers": 1, "write_bytes": 1024`},
		{nil,
			`"read_bytes": "0", "write_bytes": "0"`,
			`"read_bytes": 0, "write_bytes": 0`},
	} {
		t.Run(strings.Join(append([]string{"md"}, tc.args...), " "), func(t *testing.T) {
			t.Parallel()
			dir, res := t.TempDir(), t.TempDir()
			st, out := testState()
			if err := Execute(context.Background(), st, append([]string{"md", "-d", dir, "-n", "5", "--results", res}, tc.args...)); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			settings, params := recordedRun(t, res)
			if len(params) != 1 {
				t.Fatalf("run.json: %d phases", len(params))
			}
			d, _ := json.Marshal(dir)
			for what, pair := range map[string]struct {
				got  map[string]any
				want string
			}{"settings": {settings, tc.settings}, "the phase's params": {params[0], tc.params}} {
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

// What run.json keeps of `storbench fio`'s options (its settings) and the
// phases' settings in its plan. Settings: the target's absolute path,
// the settings given, as typed (--runtime, --size, --numjobs and
// --stonewall left out are not there), -w's workload for job files,
// fio's options for one job (--rw), and --scale. Phases: for job files, the overrides of
// the job files' runtime (a bare number is seconds), size and numjobs and
// the stonewall; for one job, runtime, size and numjobs in the job itself,
// and the stonewall; with --scale one phase per step.
func TestFioRecordsItsSettings(t *testing.T) {
	t.Parallel()
	needFio(t)
	const job = "# report bandwidth\n[global]\nioengine=psync\nfilename_format=$jobnum\ngroup_reporting=1\nnumjobs=1\n\n[seq]\nbs=64k\nrw=write\nsize=1M\n"
	w := filepath.Join(t.TempDir(), "seq.job")
	if err := os.WriteFile(w, []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	seq := `"job": {"name": "seq", "text": ` + jsonText(t, job) + `}`
	for _, tc := range []struct {
		args             []string
		settings, params string
	}{
		{[]string{"-w", w},
			`"workload": ` + jsonText(t, w),
			`[{` + seq + `}]`},
		{[]string{"-w", w, "--runtime", "2", "--size", "256k", "--numjobs", "2", "--stonewall", "1s"},
			`"runtime": "2", "size": "256k", "numjobs": 2, "stonewall": "1s", "workload": ` + jsonText(t, w),
			`[{` + seq + `, "runtime_s": 2, "size_bytes": 262144, "numjobs": 2, "stonewall": "1s"}]`},
		{[]string{"-w", w, "--scale", "jobs=1..2"},
			`"scale": "jobs=1..2", "workload": ` + jsonText(t, w),
			`[{` + seq + `, "numjobs": 1}, {` + seq + `, "numjobs": 2}]`},
		{[]string{"--rw", "write", "--size", "256k"},
			`"size": "256k", "rw": "write", "bs": "", "iodepth": 0, "direct": false, "ioengine": ""`,
			`[{"job": {"name": "write", "text": "# report bandwidth\n[write]\ngroup_reporting\nrw=write\nsize=262144\n"}}]`},
		{[]string{"--rw", "write", "--bs", "64k", "--iodepth", "2", "--ioengine", "psync", "--size", "256k", "--runtime", "2", "--numjobs", "2", "--stonewall", "1s"},
			`"runtime": "2", "size": "256k", "numjobs": 2, "stonewall": "1s", "rw": "write", "bs": "64k", "iodepth": 2, "direct": false, "ioengine": "psync"`,
			`[{"job": {"name": "write-64k-qd2", "text": "# report bandwidth\n[write-64k-qd2]\nbs=65536\ngroup_reporting\niodepth=2\nioengine=psync\nnumjobs=2\nruntime=2\nrw=write\nsize=262144\n"}, "stonewall": "1s"}]`},
		{[]string{"--rw", "read", "--size", "256k", "--runtime", "1", "--scale", "jobs=1..2"},
			`"runtime": "1", "size": "256k", "scale": "jobs=1..2", "rw": "read", "bs": "", "iodepth": 0, "direct": false, "ioengine": ""`,
			`[{"job": {"name": "read", "text": "# report bandwidth\n[read]\ngroup_reporting\nruntime=1\nrw=read\nsize=262144\n"}, "options": {"numjobs": "1"}},
			{"job": {"name": "read", "text": "# report bandwidth\n[read]\ngroup_reporting\nruntime=1\nrw=read\nsize=262144\n"}, "options": {"numjobs": "2"}}]`},
	} {
		t.Run(strings.ReplaceAll(strings.Join(append([]string{"fio"}, tc.args...), " "), w, "JOB"), func(t *testing.T) {
			t.Parallel()
			dir, res := t.TempDir(), t.TempDir()
			st, out := testState()
			if err := Execute(context.Background(), st, append([]string{"fio", "-d", dir, "--results", res}, tc.args...)); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			settings, params := recordedRun(t, res)
			d := `"dir": ` + jsonText(t, dir)
			var want map[string]any
			if err := json.Unmarshal([]byte(`{`+d+`, `+tc.settings+`}`), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(settings, want) {
				t.Errorf("run.json's settings:\n%v\nwant\n%v", settings, want)
			}
			var wantParams []map[string]any
			if err := json.Unmarshal([]byte(strings.ReplaceAll(tc.params, `{"job"`, `{`+d+`, "job"`)), &wantParams); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(params, wantParams) {
				t.Errorf("run.json's phases' params:\n%v\nwant\n%v", params, wantParams)
			}
		})
	}
}

// recordedRun reads the run.json of the one run in the results folder
// res: its settings and each phase's params.
func recordedRun(t *testing.T, res string) (map[string]any, []map[string]any) {
	t.Helper()
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
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("run.json: %v", err)
	}
	params := make([]map[string]any, len(got.Plan))
	for i, p := range got.Plan {
		params[i] = p.Params
	}
	return got.Settings, params
}

// jsonText is s as a JSON string.
func jsonText(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
