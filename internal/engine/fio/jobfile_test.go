package fio

import (
	"strings"
	"testing"
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
	// 2 timed sections (create_only excluded): (5+5) + (5+5).
	if d := jf.Duration(); d != 20 {
		t.Errorf("duration %d, want 20", d)
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
