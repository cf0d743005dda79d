package fio

import (
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

const seedJob = `# report iops
[global]
filesize=2G
time_based=1
startdelay=5
directory=/mnt/weka
runtime=30
numjobs=64

[fio-createfiles-00]
blocksize=1Mi
create_only=1

[fio-iopsR-00]
stonewall
iodepth=8
bs=4k
rw=randread

[lat]
numjobs=1
runtime=10
`

func TestApplyOverrides(t *testing.T) {
	jf, err := ParseJobFile("seed", seedJob)
	if err != nil {
		t.Fatal(err)
	}
	if jf.Report != "iops" {
		t.Errorf("report %q", jf.Report)
	}
	jf.Apply(Overrides{RuntimeS: 5, SizeBytes: 256 << 20, Numjobs: 4})
	out := jf.Render()
	for _, want := range []string{"filesize=268435456", "runtime=5", "numjobs=4", "stonewall\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("rendered job lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "directory=") || strings.Contains(out, "runtime=30") || strings.Contains(out, "runtime=10") {
		t.Errorf("old values survive:\n%s", out)
	}
	// The single-job section keeps numjobs=1.
	lat := jf.Sections[len(jf.Sections)-1]
	if v, _ := lat.Get("numjobs"); v != "1" {
		t.Errorf("latency section numjobs=%s, want 1", v)
	}
	// The create_only section waits its startdelay (5s); then the
	// stonewalled IOPS section and the latency section beside it run
	// together, each 5s startdelay + 5s runtime.
	if d := jf.Duration(); d != 15*time.Second {
		t.Errorf("duration %s, want 15s", d)
	}
}

func TestCheckSafe(t *testing.T) {
	for _, c := range []struct {
		opt  string
		ok   bool
		with bool
	}{
		{"exec_prerun=rm -rf /", false, true},
		{"exec_postrun=x", false, true},
		{"ioengine=exec", false, true},
		{"ioengine=external:/tmp/x.so", false, true},
		{"ioengine=libaio", true, true},
		{"filename=/dev/sda", false, false},
		{"filename=a:../b", false, false},
		{"filename_format=$jobnum/f", true, true},
	} {
		jf, err := ParseJobFile("j", "[j]\n"+c.opt+"\n")
		if err != nil {
			t.Fatal(err)
		}
		if err := jf.CheckSafe("j", false); (err == nil) != c.ok {
			t.Errorf("%s: err=%v, want ok=%v", c.opt, err, c.ok)
		}
		if err := jf.CheckSafe("j", true); (err == nil) != (c.ok || c.with) {
			t.Errorf("%s with --allow-exec: err=%v", c.opt, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, text := range []string{"", "rw=read\n", "[\nrw=read", "include other.fio\n"} {
		if _, err := ParseJobFile("j", text); err == nil {
			t.Errorf("%q parsed", text)
		}
	}
}

func TestBuiltinWorkloads(t *testing.T) {
	jobs, err := LoadWorkload("default")
	if err != nil || len(jobs) != 6 {
		t.Fatalf("default: %d jobs, %v", len(jobs), err)
	}
	want := map[string]string{"011-bandwidthR": "numjobs=32", "031-iopsR": "numjobs=64", "021-latencyR": "numjobs=1"}
	for _, j := range jobs {
		if w, ok := want[j.Name]; ok && !strings.Contains(j.Text, w) {
			t.Errorf("%s lacks %s", j.Name, w)
		}
		for _, must := range []string{"direct=1", "ioengine=libaio", "time_based=1", "create_only=1", "filename_format=$filenum/$jobnum"} {
			if !strings.Contains(j.Text, must) {
				t.Errorf("%s lacks %s", j.Name, must)
			}
		}
	}
	mixed, err := LoadWorkload("mixed")
	if err != nil || len(mixed) != 3 || !strings.Contains(mixed[0].Text, "rwmixread=70") {
		t.Fatalf("mixed: %v %v", mixed, err)
	}
	if _, err := LoadWorkload("nope"); err == nil {
		t.Error("unknown workload accepted")
	}
}

func TestOptionsReplaceAliases(t *testing.T) {
	jf, err := ParseJobFile("seed", seedJob)
	if err != nil {
		t.Fatal(err)
	}
	jf.Apply(Overrides{Options: map[string]string{"bs": "256k", "rw": "read", "exec_prerun": "x"}})
	create, iops := jf.Sections[1], jf.Sections[2]
	if v, _ := create.Get("blocksize"); v != "1Mi" {
		t.Errorf("create_only section lost its blocksize: %q", v)
	}
	if v, _ := iops.Get("bs"); v != "256k" {
		t.Errorf("bs not replaced: %q", v)
	}
	if v, _ := iops.Get("rw"); v != "read" {
		t.Errorf("rw not replaced: %q", v)
	}
	if err := jf.CheckSafe("seed", false); err == nil {
		t.Error("an exec option added through options passed the safety check")
	}
}

// The planned duration is what fio takes: groups one after another, the
// sections of a group together, each section startdelay + ramp_time +
// runtime, a create_only section its startdelay.
func TestDuration(t *testing.T) {
	for _, c := range []struct {
		name, job string
		want      time.Duration
	}{
		{"ramp_time", "[global]\ntime_based=1\nruntime=10\nramp_time=3\n[a]\n", 13 * time.Second},
		{"startdelay and ramp_time", "[a]\nstartdelay=2\nramp_time=3\nruntime=5\n", 10 * time.Second},
		{"create_only waits its startdelay", "[global]\nstartdelay=5\nruntime=2\n[c]\ncreate_only=1\n[r]\nstonewall\n", 12 * time.Second},
		{"create_only has no ramp or runtime", "[global]\nramp_time=4\nruntime=2\n[c]\ncreate_only=1\n[r]\nstonewall\n", 6 * time.Second},
		{"sections without stonewall run together", "[global]\nruntime=10\n[a]\n[b]\nstartdelay=2\n", 12 * time.Second},
		{"stonewall groups in sequence", "[a]\nruntime=5\n[b]\nstonewall\nruntime=5\n[c]\nwait_for_previous\nruntime=1\n", 11 * time.Second},
		{"stonewall from global", "[global]\nstonewall\nruntime=3\n[a]\n[b]\n[c]\n", 9 * time.Second},
		{"wait_for", "[a]\nruntime=5\n[b]\nwait_for=a\nruntime=3\n", 8 * time.Second},
		{"numjobs clones run together", "[global]\nnumjobs=8\nruntime=5\n[a]\n", 5 * time.Second},
		{"units", "[a]\nruntime=2m\nstartdelay=500ms\nramp_time=1s\n", 2*time.Minute + 1500*time.Millisecond},
		{"hours and days", "[a]\nruntime=1h\n[b]\nstonewall\nruntime=1d\n", 25 * time.Hour},
		{"timeout is runtime", "[a]\ntimeout=7\n", 7 * time.Second},
		{"startdelay range plans the longest", "[a]\nstartdelay=1-3\nruntime=1\n", 4 * time.Second},
		{"a later global applies to the jobs after it", "[global]\nruntime=5\n[a]\n[global]\nruntime=10\n[b]\nstonewall\n", 15 * time.Second},
		{"global-prefixed sections are global", "[global-x]\nruntime=5\n[a]\n", 5 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			jf, err := ParseJobFile("j", c.job)
			if err != nil {
				t.Fatal(err)
			}
			if d := jf.Duration(); d != c.want {
				t.Errorf("planned %s, want %s", d, c.want)
			}
		})
	}
}

// The plan of a fio phase follows what runs (issue 36 item 3): the
// start gate drops a startdelay every section has alike, so a built-in
// job (startdelay=5 in its global section) with --runtime 2s plans 2s,
// where it planned 12s (5s for the create_only section, 5s + 2s for the
// read) and the ETA of a 34 s run said "at least 1m17s left". A
// startdelay of one section among others is fio's and still counts.
// plannedOf is p's planned length, as its plan says.
func plannedOf(p engine.Phase) (time.Duration, error) {
	pl, err := Engine{}.Plan(p)
	if err != nil {
		return 0, err
	}
	d, _ := pl.Planned()
	return d, nil
}

func TestPlannedBuiltin(t *testing.T) {
	jobs, err := LoadWorkload("default")
	if err != nil {
		t.Fatal(err)
	}
	p := fioPhase(t, t.TempDir(), jobs[0].Name, jobs[0].Text, Overrides{RuntimeS: 2})
	d, err := plannedOf(p)
	if err != nil || d != 2*time.Second {
		t.Errorf("%s planned %s (%v), want 2s", jobs[0].Name, d, err)
	}
	p = fioPhase(t, t.TempDir(), "own", "[global]\nrw=read\nsize=1M\nruntime=2\ntime_based=1\n[a]\n[b]\nstartdelay=3\n", Overrides{})
	if d, err := plannedOf(p); err != nil || d != 5*time.Second {
		t.Errorf("a job with one section delayed planned %s (%v), want 5s", d, err)
	}
}
