package fio

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/storbench/storbench/internal/supervise"
)

// layOut lays out the phase's files before it starts, as a pass of its
// own that no window counts: fio run on the job file with every section
// create_only=1, which creates the files each job needs and, for a job
// that reads, writes them to their size (fio's layout). The measured run
// then finds them in place. A phase that reads another host's files
// (read_from) lays out nothing, and a shared phase's files are created by
// each job as it opens them (create_on_open=1), so neither runs this pass;
// nor does a stonewall phase, whose jobs open their files as they write.
// The layout is not in the window: IOR's window holds open and close, but
// fio's layout is a write of every file before a read job, which is no
// part of what the phase measures.
func (r *prepared) layOut(ctx context.Context) error {
	if !r.laysOut() {
		return nil
	}
	jf, err := ParseJobFile("layout", r.job.Render())
	if err != nil {
		return err
	}
	for _, s := range jf.Sections {
		// Programs --allow-exec lets a job run belong to its measured run.
		s.Delete("exec_prerun")
		s.Delete("exec_postrun")
		if !isGlobal(s.Name) {
			s.Set("create_only", "1")
			s.Set("startdelay", "0")
		}
	}
	path := filepath.Join(r.ws.Path, r.params.Job.Name+".layout.fio")
	if err := os.WriteFile(path, []byte(jf.Render()), 0o644); err != nil {
		return err
	}
	cmd := exec.Command(r.bin, "--output-format=json", untimedClock, path)
	cmd.Dir, cmd.Env = r.ws.Path, r.fioEnv
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = killWait
	// As Run's fio, under a supervisor: storbench killed mid-layout
	// leaves no fio. A stop kills fio and its job processes at once
	// (Kill): the layout keeps nothing worth a graceful end, and the job
	// processes have left fio's process group (setsid), so a signal to
	// the group alone would leave a job process laying out its file, or
	// waiting forever for the fio that was to release it.
	p, err := supervise.Start(cmd)
	if err == nil {
		stop := context.AfterFunc(ctx, p.Kill)
		err = p.Wait()
		stop()
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("fio could not lay out the files of job %s: %s", r.params.Job.Name, fioMessage(out.String(), err))
	}
	return nil
}

// laysOut says whether the phase's files are laid out by a pass of their
// own (layOut) before it starts.
func (r *prepared) laysOut() bool {
	return r.params.ReadFrom == "" && !r.params.Shared && r.params.Stonewall == nil
}

// withoutLayoutSections returns the job file the measured run starts:
// jf without its create_only sections when the layout pass ran, which
// did all they do. Run again, fio would start a process for every job of
// them, only to find each file in place, before the measured jobs start:
// for the seed's 64 jobs that was 1 to 3 s of the wall on a loaded
// 2-core machine, which plain fio does not spend (it lays out once). A
// dropped section's stonewall goes to the job section after it, so that
// the sections keep their order; a job file with wait_for (which may name
// a dropped section), or with nothing but create_only sections, is
// returned as it is. dropped names the sections left out.
func (r *prepared) withoutLayoutSections(jf *JobFile) (out *JobFile, dropped []string) {
	if !r.laysOut() {
		return jf, nil
	}
	var keep []*Section
	carry, jobs := false, 0
	for _, s := range jf.Sections {
		if _, ok := jf.Lookup(s, "wait_for"); ok {
			return jf, nil
		}
		switch {
		case isGlobal(s.Name):
		case jf.flag(s, "create_only"):
			carry = carry || jf.flag(s, "stonewall", "wait_for_previous")
			dropped = append(dropped, s.Name)
			continue
		default:
			jobs++
			if carry && !jf.flag(s, "stonewall", "wait_for_previous") {
				c := *s
				c.Options = append(append([]Option(nil), s.Options...), Option{Key: "stonewall"})
				s = &c
			}
			carry = false
		}
		keep = append(keep, s)
	}
	if jobs == 0 || len(dropped) == 0 {
		return jf, nil
	}
	return &JobFile{Sections: keep, Report: jf.Report}, dropped
}

// gateMeasured is gate for the job file of the measured run: jf without
// the sections the layout pass ran (withoutLayoutSections), which meta
// names. Without a gate, fio runs the job file at path, whole.
func (r *prepared) gateMeasured(meta map[string]string, jf *JobFile, path string) (*gate, string) {
	measured, dropped := r.withoutLayoutSections(jf)
	g, runPath := r.gate(meta, measured, path)
	if g != nil && len(dropped) > 0 {
		meta["laid_out_before"] = "create_only sections run by the layout pass, not again: " + strings.Join(dropped, ", ")
	}
	return g, runPath
}
