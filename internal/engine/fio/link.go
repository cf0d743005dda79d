package fio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
)

// maxLinkedFiles bounds the file names Link lists for one phase (numjobs x
// nrfiles per section): a job of more files is refused read_from rather
// than listed.
const maxLinkedFiles = 1 << 20

// LinkError is a phase Link refuses, by its index in the plan.
type LinkError = engine.LinkError

// Link checks the fio phases of a run together, in order, and settles
// where their files live (Params.RunFiles, Params.Later); it returns the
// phases with those set, and sets them the same whenever it runs again.
// hosts[i], when given, is how many hosts phase i runs on (0: all the
// run's, a count not known yet: a suite links its phases before it knows
// its agents, the run again with every count).
//
// A read_from: neighbour phase reads the files an earlier fio phase on the
// same directory wrote: the latest one, shared or not as it is, whose job
// makes every file the read phase names (fio names files after the job
// section, numjobs and nrfiles, unless filename= or filename_format= say
// otherwise, so the two phases name them the same way). There must be
// one, and it must have run on at least as many hosts, or the run is
// refused before anything runs. That phase keeps its files in the run-level
// place of each host (RunFiles). Every phase with files in the shared area
// of a directory keeps them for a later such phase on it (Later); the last
// one's first host removes them. A read_from phase that reads what a
// stonewall phase wrote is told which (StonewallOf): the run gives it the
// count of blocks every job wrote once that phase ended (WithWritten).
func Link(phases []engine.Phase, hosts []int) ([]engine.Phase, error) {
	var fps []*linkedPhase
	for i, p := range phases {
		if p.Engine != model.EngineFio {
			continue
		}
		ps, jf, err := resolve(p, nil)
		if err != nil {
			return nil, &LinkError{Phase: i, Err: fmt.Errorf("phase %s: %v", p.Name, err)}
		}
		ps.RunFiles, ps.Later = false, false
		fp := &linkedPhase{i: i, ps: ps, dir: filepath.Clean(ps.Dir)}
		ps.StonewallOf = ""
		if fp.files, err = jf.fileNames(); err != nil && ps.ReadFrom != "" {
			return nil, &LinkError{Phase: i, Err: fmt.Errorf("phase %s: read_from: %s: %v", p.Name, ReadFromNeighbour, err)}
		}
		fps = append(fps, fp)
	}
	hostsOf := func(i int) int {
		if i < len(hosts) && hosts[i] > 0 {
			return hosts[i]
		}
		return 0
	}
	for k, r := range fps {
		if r.ps.ReadFrom == "" {
			continue
		}
		var from *linkedPhase
		for j := k - 1; j >= 0 && from == nil; j-- {
			w := fps[j]
			if w.ps.ReadFrom == "" && w.dir == r.dir && w.ps.Shared == r.ps.Shared && covers(w.files, r.files) {
				from = w
			}
		}
		name := phases[r.i].Name
		if from == nil {
			kind := "fio phase"
			if r.ps.Shared {
				kind = "shared fio phase"
			}
			return nil, &LinkError{Phase: r.i, Err: fmt.Errorf("phase %s: read_from: %s reads the files another host wrote in an earlier phase, but no earlier %s on %s writes %s (fio names files after the job: give the write and read phases the same filename= or filename_format=)",
				name, ReadFromNeighbour, kind, r.ps.Dir, someNames(r.files))}
		}
		// 0 is "all the run's hosts", a count a suite does not know yet:
		// the run checks again once it does.
		if hw, hr := hostsOf(from.i), hostsOf(r.i); hw == 0 || hr == 0 {
		} else if r.ps.Shared && hw != hr {
			// One file laid out by the hosts' index and count: read on
			// other hosts, its parts are not where the readers look.
			return nil, &LinkError{Phase: r.i, Err: fmt.Errorf("phase %s reads on %d hosts the shared file phase %s wrote on %d: a shared read_from phase runs on the hosts that wrote", name, hr, phases[from.i].Name, hw)}
		} else if hr > hw {
			return nil, &LinkError{Phase: r.i, Err: fmt.Errorf("phase %s reads on %d hosts the files phase %s wrote on %d: a host would find no neighbour's files", name, hr, phases[from.i].Name, hw)}
		}
		if !from.ps.Shared {
			from.ps.RunFiles = true
		}
		if from.ps.Stonewall != nil {
			_, jf, _ := resolve(phases[r.i], nil)
			if _, err := jf.seqJob("read"); err != nil {
				return nil, &LinkError{Phase: r.i, Err: fmt.Errorf("phase %s reads what stonewall phase %s wrote, a count of blocks per job: %v", name, phases[from.i].Name, err)}
			}
			r.stonewallOf = phases[from.i].Name
		}
	}
	markLater(fps)
	return writeLinked(phases, fps)
}

// linkedPhase is one fio phase of a plan as Link sees it: its index, its
// resolved parameters, the file names its job makes and its directory.
type linkedPhase struct {
	i     int
	ps    *Params
	files map[string]bool
	dir   string
	// stonewallOf names the stonewall phase whose files it reads.
	stonewallOf string
}

// markLater sets Params.Later on every phase with files in the shared area
// of a directory that a later such phase on the same directory uses, so it
// keeps them for that phase; split out of Link to keep it short.
func markLater(fps []*linkedPhase) {
	for k, fp := range fps {
		if !fp.ps.usesArea() {
			continue
		}
		for _, later := range fps[k+1:] {
			if later.dir == fp.dir && later.ps.usesArea() {
				fp.ps.Later = true
				break
			}
		}
	}
}

// writeLinked returns a copy of phases with what Link settled (run_files,
// later, stonewall_of) written into each fio phase's raw parameters, set
// the same way whenever it runs again; split out of Link to keep it short.
func writeLinked(phases []engine.Phase, fps []*linkedPhase) ([]engine.Phase, error) {
	out := append([]engine.Phase(nil), phases...)
	for _, fp := range fps {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(out[fp.i].Params, &raw); err != nil {
			return nil, &LinkError{Phase: fp.i, Err: err}
		}
		set := func(key string, on bool) {
			if on {
				raw[key] = json.RawMessage("true")
			} else {
				delete(raw, key)
			}
		}
		set("run_files", fp.ps.RunFiles)
		set("later", fp.ps.Later)
		delete(raw, "stonewall_of")
		if fp.stonewallOf != "" {
			raw["stonewall_of"], _ = json.Marshal(fp.stonewallOf)
		}
		b, err := json.Marshal(raw)
		if err != nil {
			return nil, &LinkError{Phase: fp.i, Err: err}
		}
		if !bytes.Equal(b, out[fp.i].Params) {
			// Unchanged settings keep their bytes, and with them what
			// was decoded from them (a plan linked again).
			out[fp.i].Params = b
		}
	}
	return out, nil
}

func covers(have, want map[string]bool) bool {
	if len(want) == 0 {
		return false
	}
	for f := range want {
		if !have[f] {
			return false
		}
	}
	return true
}

// someNames lists up to three of the names, sorted.
func someNames(files map[string]bool) string {
	var names []string
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)
	if len(names) > 3 {
		return strings.Join(names[:3], ", ") + fmt.Sprintf(" (and %d more)", len(names)-3)
	}
	if len(names) == 0 {
		return "its files"
	}
	return strings.Join(names, ", ")
}

var anyKeyword = regexp.MustCompile(`(?i)\$(jobname|jobnum|filenum|clientuid)`)

// fileNames lists the files the job's sections name, relative to fio's
// directory=, as fio names them: filename='s list, else filename_format
// (fio's default $jobname.$jobnum.$filenum) for every clone of the
// section (numjobs) and every file of each (nrfiles).
func (jf *JobFile) fileNames() (map[string]bool, error) {
	out := map[string]bool{}
	for _, s := range jf.Sections {
		if isGlobal(s.Name) {
			continue
		}
		if v, ok := jf.Lookup(s, "filename"); ok && v != "" {
			for _, f := range strings.Split(v, ":") {
				out[filepath.Clean(f)] = true
			}
			continue
		}
		format, ok := jf.Lookup(s, "filename_format")
		if !ok || format == "" {
			format = "$jobname.$jobnum.$filenum"
		}
		jobs, files := jf.count(s, "numjobs"), jf.count(s, "nrfiles", "nr_files")
		if jobs > maxLinkedFiles || files > maxLinkedFiles || jobs*files > maxLinkedFiles-len(out) {
			return nil, fmt.Errorf("[%s] names %d files, more than storbench matches (%d)", s.Name, jobs*files, maxLinkedFiles)
		}
		job := jf.jobName(s)
		for jn := 0; jn < jobs; jn++ {
			for fn := 0; fn < files; fn++ {
				out[filepath.Clean(formatName(format, job, jn, fn))] = true
			}
		}
	}
	return out, nil
}

// formatName is the file fio names by filename_format for file fn of job
// jn (its clone number) of the job named job.
func formatName(format, job string, jn, fn int) string {
	return anyKeyword.ReplaceAllStringFunc(format, func(k string) string {
		switch strings.ToLower(k) {
		case "$jobname":
			return job
		case "$jobnum":
			return strconv.Itoa(jn)
		case "$filenum":
			return strconv.Itoa(fn)
		}
		return "0"
	})
}

// count reads a whole-number option of section s (1 when unset or not a
// plain number, as fio's default is).
func (jf *JobFile) count(s *Section, keys ...string) int {
	v, ok := jf.Lookup(s, keys...)
	if !ok {
		return 1
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 {
		return 1
	}
	return n
}
