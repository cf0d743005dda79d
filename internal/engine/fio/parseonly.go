package fio

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/storbench/storbench/internal/engine"
)

// parseBatch is how many job files one `fio --parse-only` call checks.
const parseBatch = 64

// untimedClock is the clock of a fio that times nothing (a parse, a
// layout): fio calibrates its CPU clock at every start (70 ms here), and
// left to pick a clock also tests it on every CPU and calibrates again
// (clock.go), which a check of a job file need not wait for. A
// command-line option is a global one of every job file given; a
// section's own clocksource still counts.
const untimedClock = "--clocksource=gettimeofday"

// ParseOnly runs `fio --parse-only` on the job files of the fio phases as
// an agent would run them (overrides applied, the directory set to a
// scratch one), so a job file fio rejects is refused before anything is
// created. Identical job texts are checked once, and files go to fio in
// batches; a batch fio rejects is checked file by file to name the file.
func ParseOnly(ctx context.Context, bin string, phases []engine.Phase) error {
	dir, err := os.MkdirTemp("", "storbench-parse-only-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	type job struct{ name, path string }
	var jobs []job
	seen := map[string]bool{}
	for _, p := range phases {
		if p.Engine != "fio" {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		ps, jf, err := resolve(p, nil)
		if err != nil {
			return err
		}
		jf.Global().Set("directory", dir)
		text := jf.Render()
		if seen[text] {
			continue
		}
		seen[text] = true
		path := filepath.Join(dir, fmt.Sprintf("%d.fio", len(jobs)))
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
		jobs = append(jobs, job{ps.Job.Name, path})
	}
	parse := func(paths ...string) (string, error) {
		out, err := exec.CommandContext(ctx, bin, append([]string{"--parse-only", untimedClock}, paths...)...).CombinedOutput()
		return string(out), err
	}
	for i := 0; i < len(jobs); i += parseBatch {
		batch := jobs[i:min(i+parseBatch, len(jobs))]
		paths := make([]string, len(batch))
		for k, j := range batch {
			paths[k] = j.path
		}
		if _, err := parse(paths...); err == nil {
			continue
		}
		for _, j := range batch {
			if err := ctx.Err(); err != nil {
				return err
			}
			if out, err := parse(j.path); err != nil {
				return fmt.Errorf("fio rejects job file %s: %s", j.name, fioMessage(out, err))
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}
