package fio

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/storbench/storbench/internal/infile"
)

//go:embed workloads
var builtin embed.FS

// Job is one fio job file as read on the controller: its name (the file name
// without .job) and its text. The controller sends the text, so an agent never
// needs the controller's files.
type Job struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// Workloads lists the built-in workload names.
func Workloads() []string {
	ents, _ := builtin.ReadDir("workloads")
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// LoadWorkload returns the job files of a workload: a built-in name
// ("default", "mixed"), a directory of *.job files (run in name order, as a
// wekatester fio-jobfiles/<name> directory), or a single job file.
func LoadWorkload(w string) ([]Job, error) {
	if w == "" {
		w = "default"
	}
	if !strings.ContainsAny(w, "/.") {
		if sub, err := fs.Sub(builtin, "workloads/"+w); err == nil {
			if jobs, err := readJobs(sub, "built-in workload "+w, nil); err == nil {
				return jobs, nil
			}
		}
		if _, err := os.Stat(w); err != nil {
			return nil, fmt.Errorf("unknown workload %q (built-in: %s; or give a directory of .job files)", w, strings.Join(Workloads(), ", "))
		}
	}
	st, err := os.Stat(w)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("workload %s does not exist", w)
		}
		return nil, fmt.Errorf("workload %s: %v", w, err)
	}
	if !st.IsDir() {
		b, err := infile.Read("job file", w, infile.TextLimit)
		if infile.IsRefusal(err) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("read job file: %v", err)
		}
		return []Job{{Name: strings.TrimSuffix(filepath.Base(w), ".job"), Text: string(b)}}, nil
	}
	// Each job file of the directory is read as one given alone is: a
	// FIFO or device among them is refused, not read.
	return readJobs(os.DirFS(w), w, func(n string) ([]byte, error) {
		return infile.Read("job file", filepath.Join(w, n), infile.TextLimit)
	})
}

// readJobs reads the *.job files of fsys (where, in errors), in name
// order, through read (nil: fs.ReadFile of fsys).
func readJobs(fsys fs.FS, where string, read func(name string) ([]byte, error)) ([]Job, error) {
	names, err := fs.Glob(fsys, "*.job")
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s has no *.job files", where)
	}
	sort.Strings(names)
	jobs := make([]Job, 0, len(names))
	for _, n := range names {
		var b []byte
		var err error
		if read != nil {
			b, err = read(n)
		} else {
			b, err = fs.ReadFile(fsys, n)
		}
		if infile.IsRefusal(err) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("read %s/%s: %v", where, n, err)
		}
		jobs = append(jobs, Job{Name: strings.TrimSuffix(n, ".job"), Text: string(b)})
	}
	return jobs, nil
}
