package fio

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/testutil"
)

// A stop while the files are laid out (before the phase starts) ends fio
// and its job processes: Prepare returns within the bound and no process
// of the fio it started stays behind. fio's job processes leave its
// process group; killed outright, fio would leave one waiting for it
// forever.
func TestStopDuringLayout(t *testing.T) {
	if _, err := FindFio(""); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	// Laying out 4 x 256 MiB for a read takes a while on any disk.
	b, _ := json.Marshal(Params{Dir: dir, Job: Job{Name: "big", Text: "[global]\nioengine=psync\nsize=256m\nnumjobs=4\ncreate_serialize=0\n[r]\nrw=read\n"}})
	ctx, cancel := context.WithCancel(testutil.Ctx(t, testutil.Bound))
	var t0 time.Time
	go func() {
		// Stop once fio has started its job processes.
		for ctx.Err() == nil && len(layoutProcs(dir)) < 2 {
			time.Sleep(5 * time.Millisecond)
		}
		t0 = time.Now()
		cancel()
	}()
	_, err := Engine{}.Prepare(ctx, engine.Env{Host: "h", RunID: "lay"}, engine.Phase{Name: "big", Engine: "fio", Params: b})
	if err == nil {
		t.Skip("the layout ended before the stop: nothing to show on this disk")
	}
	if el := time.Since(t0); el > stopGrace+2*time.Second {
		t.Errorf("Prepare returned %v after the stop", el)
	}
	time.Sleep(200 * time.Millisecond)
	for _, p := range layoutProcs(dir) {
		t.Errorf("a process of the layout pass outlived the stop: %s", p)
		if pid, err := strconv.Atoi(p); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// layoutProcs are the pids of the processes of the fio that lays out job
// big's files under dir: the layout pass's, or the measured run's that
// Prepare started (launch).
func layoutProcs(dir string) []string {
	var pids []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		c, _ := os.ReadFile(p)
		if (strings.Contains(string(c), "big.layout.fio") || strings.Contains(string(c), "big.gated.fio")) && strings.Contains(string(c), dir) {
			pids = append(pids, filepath.Base(filepath.Dir(p)))
		}
	}
	return pids
}

// Issue 25 item 12: a job file whose create_only section lays out the
// files (the seed's "pre-create files") has them laid out once, as plain
// fio does. When the measured sections are in more than one group of
// fio's, the layout is a pass of its own and the measured run does not
// start that section's jobs again (fio's output of the run holds only the
// measured jobs), and the reading jobs find every file in place.
// (A job file of one measured group runs whole in the fio Prepare starts:
// TestPrepareStartsFioAtTheGate.)
func TestLayoutSectionsNotRunAgain(t *testing.T) {
	if _, err := FindFio(""); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	text := "[global]\nioengine=psync\nfilesize=1m\nnumjobs=4\nfilename_format=$filenum/$jobnum\n" +
		"[make]\nbs=1m\ncreate_only=1\n[read]\nstonewall\nrw=read\nbs=64k\n[again]\nstonewall\nrw=read\nbs=64k\n"
	b, _ := json.Marshal(Params{Dir: dir, Job: Job{Name: "pre", Text: text}})
	p, err := Engine{}.Prepare(testutil.Ctx(t, testutil.Bound), engine.Env{Host: "h", RunID: "lay2"}, engine.Phase{Name: "pre", Engine: "fio", Params: b})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Cleanup(context.Background())
	res, err := p.Run(testutil.Ctx(t, testutil.Bound), time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ParseOutput(res.Raw["fio.json"])
	if err != nil {
		t.Fatal(err)
	}
	var read float64
	for _, j := range out.Jobs {
		if j.Name == "make" {
			t.Errorf("the measured run started the create_only section's job again (%+v)", j)
		}
		read += float64(j.Read.IOBytes)
	}
	if read != 8<<20 {
		t.Errorf("the reading jobs read %.0f bytes, want their 4 files of 1 MiB twice", read)
	}
	if !strings.Contains(res.Meta["laid_out_before"], "make") {
		t.Errorf("the result does not say the section was laid out before: %v", res.Meta)
	}
}

// A create_only section dropped from the measured run hands its stonewall
// to the next section, which would otherwise join the group before it; a
// job file with wait_for, or with only create_only sections, runs whole.
func TestWithoutLayoutSections(t *testing.T) {
	r := &prepared{params: &Params{}}
	parse := func(text string) *JobFile {
		jf, err := ParseJobFile("t", text)
		if err != nil {
			t.Fatal(err)
		}
		return jf
	}
	jf := parse("[global]\nsize=1m\n[w]\nrw=write\n[make]\ncreate_only=1\nstonewall\n[r]\nrw=read\n")
	got, dropped := r.withoutLayoutSections(jf)
	if len(dropped) != 1 || dropped[0] != "make" {
		t.Fatalf("dropped %v, want [make]", dropped)
	}
	want := "[global]\nsize=1m\n[w]\nrw=write\n[r]\nrw=read\nstonewall\n"
	if g := got.Render(); !strings.Contains(g, "[r]\nrw=read\nstonewall\n") || strings.Contains(g, "make") {
		t.Errorf("got\n%s\nwant\n%s", g, want)
	}
	if !strings.Contains(jf.Render(), "[make]") {
		t.Error("the job file given was changed")
	}
	for _, text := range []string{
		"[global]\nsize=1m\n[make]\ncreate_only=1\n[r]\nrw=read\nwait_for=make\n",
		"[global]\nsize=1m\ncreate_only=1\n[a]\n[b]\n",
	} {
		if got, dropped := r.withoutLayoutSections(parse(text)); len(dropped) != 0 || got.Render() != parse(text).Render() {
			t.Errorf("%q: dropped %v, ran\n%s", text, dropped, got.Render())
		}
	}
	r.params.Shared = true // no layout pass: every section runs
	if _, dropped := r.withoutLayoutSections(parse("[make]\ncreate_only=1\nsize=1m\n[r]\nrw=read\nsize=1m\n")); len(dropped) != 0 {
		t.Errorf("dropped %v from a phase with no layout pass", dropped)
	}
}

// A phase starts one fio in all: no fio --parse-only of its own, no
// layout pass when Prepare starts the measured run (its jobs held at the
// gate), and no --parse-only when the layout pass parses the job file;
// yet a job file fio rejects is still said to be one, in fio's words, and
// leaves nothing behind.
func TestLayoutParsesTheJobFile(t *testing.T) {
	bin, err := FindFio("")
	if err != nil {
		t.Skip(err)
	}
	// A fio that notes every call, so the test sees which ran.
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	wrap := filepath.Join(dir, "fio")
	script := "#!/bin/sh\necho \"$@\" >> " + calls + "\nexec " + bin + " \"$@\"\n"
	if err := os.WriteFile(wrap, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	prepare := func(name, text string) error {
		data := t.TempDir()
		b, _ := json.Marshal(Params{Dir: data, Job: Job{Name: name, Text: text}})
		p, err := Engine{}.Prepare(testutil.Ctx(t, testutil.Bound), engine.Env{Host: "h", RunID: "parse", Tools: engine.Tools{"fio": wrap}}, engine.Phase{Name: name, Engine: "fio", Params: b})
		if err == nil {
			_ = p.Cleanup(context.Background())
		}
		if ents, _ := os.ReadDir(filepath.Join(data, "storbench", "parse", "h")); len(ents) != 0 {
			t.Errorf("%s: %v left in DIR", name, ents)
		}
		return err
	}
	count := func(arg string) int {
		b, _ := os.ReadFile(calls)
		return strings.Count(string(b), arg)
	}
	if err := prepare("good", "[r]\nrw=read\nsize=1m\n"); err != nil {
		t.Fatal(err)
	}
	if n := count("--parse-only"); n != 0 || count("good.layout.fio") != 0 || count("good.gated.fio") != 1 {
		t.Errorf("a phase Prepare starts: %d --parse-only calls, %d layout passes, %d runs; want 0, 0 and 1", n, count("good.layout.fio"), count("good.gated.fio"))
	}
	// Two measured groups: a layout pass, then the run from Run.
	if err := prepare("two", "[r]\nrw=read\nsize=1m\n[w]\nstonewall\nrw=write\nsize=1m\n"); err != nil {
		t.Fatal(err)
	}
	if n := count("--parse-only"); n != 0 || count("two.layout.fio") != 1 || count("two.gated.fio") != 0 {
		t.Errorf("a phase with a layout pass: %d --parse-only calls, %d layout passes, %d runs at Prepare; want 0, 1 and 0", n, count("two.layout.fio"), count("two.gated.fio"))
	}
	err = prepare("bad", "[r]\nrw=read\nsize=1m\niodepth_batch_complete_min=notanumber\n")
	if err == nil || !strings.Contains(err.Error(), "fio rejects job file bad: ") {
		t.Errorf("a job file fio rejects: %v", err)
	}
}
