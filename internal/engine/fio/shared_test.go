package fio

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/testutil"
)

// IOR-hard's shape in fio: P = hosts x jobs writers, writer w = index*jobs
// + job writes 47,008-byte blocks w, w+P, w+2P, ... of one shared file:
// its first block at offset w*47008 (offset= per host, offset_increment=
// per job), then a skip of (P-1)*47008 bytes after each write (rw=write:N),
// for transfers blocks (io_size). The region of every writer,
// ((transfers-1)*P+1)*47008 bytes from its offset, ends inside the file.
const iorHardJobs, iorHardTransfers = 2, 5

func iorHard(rw string, extra string) string {
	return fmt.Sprintf(`[global]
ioengine=psync
group_reporting=1
filename=ior-hard
bs=47008
numjobs=%d
offset=(${STORBENCH_HOST_INDEX}*%d*47008)
offset_increment=47008
size=(((%d-1)*${STORBENCH_HOST_COUNT}*%d+1)*47008)
io_size=%d
verify=crc32c
%s
[ior-hard-%s]
rw=%s:((${STORBENCH_HOST_COUNT}*%d-1)*47008)
`, iorHardJobs, iorHardJobs, iorHardTransfers, iorHardJobs, iorHardTransfers*47008, extra, rw, rw, iorHardJobs)
}

func sharedPhase(t *testing.T, name, dir, text string, ps Params) engine.Phase {
	t.Helper()
	ps.Dir, ps.Job = dir, Job{Name: name, Text: text}
	b, err := json.Marshal(ps)
	if err != nil {
		t.Fatal(err)
	}
	return engine.Phase{Name: name, Engine: "fio", Params: b}
}

// onHosts prepares p on every host (all prepare before any runs, as the
// controller does), runs them together, and cleans up every host after all
// ran. It returns each host's result and error by rank.
func onHosts(t *testing.T, p engine.Phase, runID string, names []string) ([]*engine.HostResult, []error, []error) {
	t.Helper()
	return runThenClean(t, prepareHosts(t, p, runID, names))
}

// prepareHosts prepares p on every host of names, in rank order.
func prepareHosts(t *testing.T, p engine.Phase, runID string, names []string) []engine.Prepared {
	t.Helper()
	n := len(names)
	preps := make([]engine.Prepared, n)
	for r, h := range names {
		pr, err := Engine{}.Prepare(testutil.Ctx(t, testutil.Bound), engine.Env{Host: h, RunID: runID, Hosts: n, Rank: r, Next: names[(r+1)%n]}, p)
		if err != nil {
			t.Fatalf("%s: prepare %s: %v", h, p.Name, err)
		}
		preps[r] = pr
	}
	return preps
}

// runThenClean runs the prepared hosts together and cleans up none before
// every host's run ended, as the controller does (Controller.RunPhase):
// the first host's cleanup removes a shared phase's file (not Later), and
// a host whose fio opens it late - a starved one - would find it gone.
// It returns each host's result, run error and cleanup error by rank.
func runThenClean(t *testing.T, preps []engine.Prepared) ([]*engine.HostResult, []error, []error) {
	t.Helper()
	n := len(preps)
	res, errs, cleanErrs := make([]*engine.HostResult, n), make([]error, n), make([]error, n)
	var wg sync.WaitGroup
	start := time.Now()
	for r := range preps {
		wg.Go(func() { res[r], errs[r] = preps[r].Run(testutil.Ctx(t, testutil.Bound), start, nil) })
	}
	wg.Wait()
	for r := range preps {
		wg.Go(func() { cleanErrs[r] = preps[r].Cleanup(context.Background()) })
	}
	wg.Wait()
	return res, errs, cleanErrs
}

func opBytes(h *engine.HostResult, op string) uint64 {
	for _, o := range h.Ops {
		if o.Op == op {
			return o.Bytes
		}
	}
	return 0
}

// The must-show: IOR-hard's N-to-1 file from three hosts of two jobs each.
// The shared file holds exactly hosts x jobs x transfers x 47,008 bytes,
// and the read phase, where each host reads its neighbour's blocks, passes
// fio's verification of what the write phase wrote (crc32c headers); a
// block changed between the phases fails it. The shared area is gone
// after the last phase.
func TestSharedFileIORHardShape(t *testing.T) {
	if _, err := FindFio(""); err != nil {
		t.Skip(err)
	}
	names := []string{"h0", "h1", "h2"}
	for _, corrupt := range []bool{false, true} {
		t.Run(fmt.Sprintf("corrupt=%v", corrupt), func(t *testing.T) {
			dir := t.TempDir()
			write := sharedPhase(t, "ior-hard-write", dir, iorHard("write", "do_verify=0"), Params{Shared: true, Later: true})
			res, errs, cerrs := onHosts(t, write, "r1", names)
			for r := range names {
				if errs[r] != nil || cerrs[r] != nil {
					t.Fatalf("%s: write %v, cleanup %v", names[r], errs[r], cerrs[r])
				}
				if got, want := opBytes(res[r], "write"), uint64(iorHardJobs*iorHardTransfers*47008); got != want {
					t.Errorf("%s wrote %d bytes, want %d", names[r], got, want)
				}
			}
			file := filepath.Join(engine.SharedArea(dir, "r1"), "fio", "ior-hard")
			fi, err := os.Stat(file)
			if err != nil {
				t.Fatalf("the shared file after the write phase (kept for the read phase): %v", err)
			}
			if want := int64(len(names) * iorHardJobs * iorHardTransfers * 47008); fi.Size() != want {
				t.Errorf("shared file of %d bytes, want hosts x jobs x transfers x 47008 = %d", fi.Size(), want)
			}
			t.Logf("shared file: %d bytes = %d hosts x %d jobs x %d transfers x 47008", fi.Size(), len(names), iorHardJobs, iorHardTransfers)
			if corrupt {
				// h0 reads as h1: writer 1*2+0 = 2, whose first block is
				// block 2.
				f, err := os.OpenFile(file, os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = f.WriteAt([]byte("not what fio wrote"), 2*47008+1000)
				f.Close()
			}
			read := sharedPhase(t, "ior-hard-read", dir, iorHard("read", ""), Params{Shared: true, ReadFrom: ReadFromNeighbour})
			res, errs, cerrs = onHosts(t, read, "r1", names)
			for r := range names {
				if cerrs[r] != nil {
					t.Errorf("%s: cleanup %v", names[r], cerrs[r])
				}
				if corrupt && r == 0 {
					if errs[r] == nil || !strings.Contains(errs[r].Error(), "verify failed") {
						t.Errorf("h0 read a changed block and said %v, want fio's verify failure", errs[r])
					}
					t.Logf("h0: %v", errs[r])
					continue
				}
				if errs[r] != nil {
					t.Fatalf("%s: read phase: %v", names[r], errs[r])
				}
				if got, want := opBytes(res[r], "read"), uint64(iorHardJobs*iorHardTransfers*47008); got != want {
					t.Errorf("%s read and verified %d bytes, want %d", names[r], got, want)
				}
				job := string(res[r].Raw["ior-hard-read.fio"])
				if want := fmt.Sprintf("offset=%d\n", (r+1)%len(names)*iorHardJobs*47008); !strings.Contains(job, want) || !strings.Contains(job, "verify=crc32c") {
					t.Errorf("%s's read job does not read its neighbour's part with verification (want %q):\n%s", names[r], want, job)
				}
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("DIR holds %v after the last phase", ents)
			}
		})
	}
}

// read_from: neighbour on per-host files: the write phase keeps each
// host's files in the run-level place of that host; in the read phase host
// i reads host (i+1) mod n's files - here of a size only that host wrote -
// and nothing of the run is left after it.
func TestReadFromNeighbourFiles(t *testing.T) {
	if _, err := FindFio(""); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	names := []string{"h0", "h1"}
	job := func(rw string) string {
		return fmt.Sprintf("[global]\nioengine=psync\nbs=4k\nfilename_format=data.$jobnum\nsize=((${STORBENCH_HOST_INDEX}+1)*65536)\nverify=crc32c\n[%s]\nrw=%s\n", rw, rw)
	}
	w := sharedPhase(t, "write", dir, job("write")+"do_verify=0\n", Params{RunFiles: true, Later: true})
	res, errs, cerrs := onHosts(t, w, "r2", names)
	for r := range names {
		if errs[r] != nil || cerrs[r] != nil {
			t.Fatalf("%s: write %v, cleanup %v", names[r], errs[r], cerrs[r])
		}
		p := filepath.Join(engine.SharedArea(dir, "r2"), "fio-"+names[r], "data.0")
		if fi, err := os.Stat(p); err != nil || fi.Size() != int64(r+1)*65536 {
			t.Fatalf("%s's file %s after the write phase: %v", names[r], p, err)
		}
	}
	rd := sharedPhase(t, "read", dir, job("read"), Params{ReadFrom: ReadFromNeighbour})
	res, errs, cerrs = onHosts(t, rd, "r2", names)
	for r := range names {
		if errs[r] != nil || cerrs[r] != nil {
			t.Fatalf("%s: read %v, cleanup %v", names[r], errs[r], cerrs[r])
		}
		from := (r + 1) % len(names)
		if got := opBytes(res[r], "read"); got != uint64(from+1)*65536 {
			t.Errorf("%s read %d bytes, want the %d of %s's file", names[r], got, (from+1)*65536, names[from])
		}
		if !strings.Contains(string(res[r].Raw["read.fio"]), "/fio-"+names[from]+"\n") {
			t.Errorf("%s did not read in %s's place:\n%s", names[r], names[from], res[r].Raw["read.fio"])
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("DIR holds %v after the last phase", ents)
	}
}

// A read_from phase refuses what would write or create in another host's
// place; a shared phase refuses what would remove or lay out its file
// under the other hosts.
func TestSharingRefusals(t *testing.T) {
	for _, tc := range []struct {
		job  string
		ps   Params
		want string
	}{
		{"[j]\nrw=write\n", Params{ReadFrom: ReadFromNeighbour}, "it is for read phases"},
		{"[j]\nrw=randrw\n", Params{ReadFrom: ReadFromNeighbour}, "it is for read phases"},
		{"[j]\nrw=read\ncreate_only=1\n", Params{ReadFrom: ReadFromNeighbour}, "create_only"},
		{"[j]\nrw=read\nopendir=x\n", Params{ReadFrom: ReadFromNeighbour}, "opendir"},
		{"[j]\nrw=read\nallow_file_create=1\n", Params{ReadFrom: ReadFromNeighbour}, "creates no file"},
		{"[global]\nunlink=1\n[j]\nrw=read\n", Params{ReadFrom: ReadFromNeighbour}, "unlink removes"},
		{"[j]\nrw=write\nunlink_each_loop=1\n", Params{Shared: true}, "unlink_each_loop removes"},
		{"[j]\nrw=write\ncreate_on_open=0\n", Params{Shared: true}, "create_on_open=0"},
		{"[j]\nrw=read\n", Params{ReadFrom: "neighbor"}, "the one value is neighbour"},
		{"[j]\nrw=write\nfilename=${STORBENCH_SHARED_DIR}/f\n", Params{}, "only a phase with shared: true"},
		// Filled in, the paths are checked as fio will read them.
		{"[j]\nrw=write\nfilename=${STORBENCH_SHARED_DIR}/../../../etc/x\n", Params{Shared: true}, "'..'"},
		{"[j]\nrw=write\nfilename=f${STORBENCH_HOST_INDEX}/../../x\n", Params{}, "'..'"},
	} {
		err := validate(sharedPhase(t, "j", "/d", tc.job, tc.ps))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q %+v: got %v, want %q", tc.job, tc.ps, err, tc.want)
		}
	}
	// What a shared or read_from phase runs with.
	_, jf, err := resolve(sharedPhase(t, "j", "/d", "[j]\nrw=read\n", Params{Shared: true, ReadFrom: ReadFromNeighbour}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if text := jf.Render(); !strings.Contains(text, "create_on_open=1") || !strings.Contains(text, "allow_file_create=0") {
		t.Errorf("resolved job:\n%s", text)
	}
}

// Every fio process has storbench's variables in its environment (for a
// program a job file runs, with --allow-exec), and none of the agent's own
// STORBENCH_ settings: an agent's S3 keys never reach fio.
func TestFioEnvironment(t *testing.T) {
	if _, err := FindFio(""); err != nil {
		t.Skip(err)
	}
	t.Setenv("STORBENCH_SECRET_KEY", "sbSecretNotForFio")
	dir := t.TempDir()
	job := "[global]\nioengine=psync\nsize=64k\nexec_prerun=env\n[j]\nrw=write\nfilename=f\n"
	p := sharedPhase(t, "envjob", dir, job, Params{Shared: true, Later: true})
	// The phase's first host makes the shared directory; this one, rank
	// 1, joins it.
	if _, err := engine.SharedWorkspace(dir, "r", "fio"); err != nil {
		t.Fatal(err)
	}
	pr, err := Engine{}.Prepare(testutil.Ctx(t, testutil.Bound), engine.Env{Host: "h1", RunID: "r", Hosts: 3, Rank: 1, Next: "h2", AllowExec: true, Keep: true}, p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pr.Run(testutil.Ctx(t, testutil.Bound), time.Now(), nil); err != nil {
		t.Fatal(err)
	}
	// fio saves a prerun command's output as <job>.prerun.txt.
	b, err := os.ReadFile(filepath.Join(dir, "storbench", "r", "h1", "envjob", "j.prerun.txt"))
	if err != nil {
		t.Fatal(err)
	}
	env := string(b)
	for _, want := range []string{"STORBENCH_HOST_INDEX=1\n", "STORBENCH_HOST_COUNT=3\n", "STORBENCH_SHARED_DIR=" + filepath.Join(engine.SharedArea(dir, "r"), "fio") + "\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("fio's environment lacks %q:\n%s", want, env)
		}
	}
	if strings.Contains(env, "sbSecretNotForFio") {
		t.Error("the agent's S3 key reached fio's environment")
	}
}

// The shared file exists once the phase is prepared on every host, before
// any job opens it: the phase's first host makes it. Left to the jobs
// (create_on_open=1), every host's fio creates it at the phase's start, at
// once, and MooseFS's client answers all but one such open with EEXIST
// (fio: "err=17 ... file exists"; ior-hard-write failed so on three
// MooseFS clients, make cluster-test), as IOR's rank 0 creates its shared
// file before the others open it.
func TestSharedFileMadeBeforeItsJobsOpen(t *testing.T) {
	if _, err := FindFio(""); err != nil {
		t.Skip(err)
	}
	names := []string{"h0", "h1"}
	dir := t.TempDir()
	write := sharedPhase(t, "ior-hard-write", dir, iorHard("write", "do_verify=0"), Params{Shared: true})
	preps := prepareHosts(t, write, "r1", names)
	_, statErr := os.Stat(filepath.Join(engine.SharedArea(dir, "r1"), "fio", "ior-hard"))
	_, errs, _ := runThenClean(t, preps)
	for r, err := range errs {
		if err != nil {
			t.Errorf("%s: %v", names[r], err)
		}
	}
	if statErr != nil {
		t.Errorf("the shared file after every host prepared, before the start: %v", statErr)
	}
}
