package fio

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/units"
)

// plannedBytes is a lower bound of the bytes the job file lays out on one
// host: the largest of its job sections' files (size=, else filesize=
// times nrfiles=; times numjobs=, unless the jobs share the file that
// filename= names). Sections run one after another may reuse files, so
// only the largest counts; a size fio alone can read (a percentage, an
// expression, a range) counts nothing: a plan is refused only when it
// cannot fit.
func (jf *JobFile) plannedBytes() float64 {
	var most float64
	for _, s := range jf.Sections {
		if isGlobal(s.Name) {
			continue
		}
		var b float64
		if v, ok := jf.Lookup(s, "size"); ok {
			b, _ = fioBytes(v)
		} else if v, ok := jf.Lookup(s, "filesize"); ok {
			b, _ = fioBytes(v)
			if n, ok := jf.Lookup(s, "nrfiles"); ok {
				files, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
				if err != nil || files < 1 {
					continue
				}
				b *= files
			}
		}
		if _, named := jf.Lookup(s, "filename"); !named {
			if v, ok := jf.Lookup(s, "numjobs"); ok {
				n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil || n < 1 {
					continue
				}
				b *= n
			}
		}
		most = max(most, b)
	}
	return most
}

// fioBytes reads a size as fio does with its default kb_base=1024: a
// number with an optional k, m, g, t, p or e, optionally followed by i
// and b, all powers of 1024. ok is false for what it does not read.
func fioBytes(v string) (float64, bool) {
	s := strings.ToLower(strings.TrimSpace(v))
	s = strings.TrimSuffix(s, "b")
	s = strings.TrimSuffix(s, "i")
	mult := 1.0
	if n := len(s); n > 0 {
		if i := strings.IndexByte("kmgtpe", s[n-1]); i >= 0 {
			mult = math.Pow(1024, float64(i+1))
			s = s[:n-1]
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f * mult, true
}

// checkSpace refuses, as bad input before anything is made, a job whose
// files cannot fit in the free space of dir's file system: hosts' files
// together on a file system several hosts share (each host lays out its
// own, unless the phase's files are shared). Where the file system does
// not tell its free space nothing is refused.
func checkSpace(jf *JobFile, job, dir string, hosts int, sharedFiles bool) error {
	need := jf.plannedBytes()
	if need == 0 {
		return nil
	}
	free, fsName, ok := freeSpace(dir)
	if !ok {
		return nil
	}
	who := "this host"
	if fsName != "" && hosts > 1 && !sharedFiles {
		need *= float64(hosts)
		who = fmt.Sprintf("%d hosts on one %s file system", hosts, fsName)
	}
	if need <= float64(free) {
		return nil
	}
	return engine.Unsupported(fmt.Sprintf("fio job %s lays out at least %s of files (%s) on %s, which has %s free: give a smaller --size (size= or filesize=), fewer --numjobs, or free space",
		job, units.Bytes(need), who, dir, units.Bytes(float64(free))))
}

// SpaceOf reports the files p lays out on this host, rank of hosts, and
// the free space of their file system (engine.Info.ReportsSpace): the
// controller adds up the hosts that share it. Files read from a
// neighbour are there already, and a stonewall phase's size is a cap, not
// what it writes: neither is reported.
func (pl plan) SpaceOf(hosts, rank int) (engine.Space, bool) {
	p := pl.phase
	ps, jf, err := resolve(p, &Vars{Index: rank, Count: max(hosts, 1)})
	if err != nil || ps.ReadFrom != "" || ps.Stonewall != nil {
		return engine.Space{}, false
	}
	need := jf.plannedBytes()
	if _, err := os.Stat(ps.Dir); err != nil || need == 0 {
		// A directory that is not there is Prepare's to refuse.
		return engine.Space{}, false
	}
	sp := engine.Space{Dir: ps.Dir, NeedBytes: need, SharedFiles: ps.Shared,
		What: "fio job " + ps.Job.Name,
		Fix:  "give a smaller --size (size= or filesize=), fewer --numjobs, or free space"}
	if fs, ok := fsOf(ps.Dir); ok {
		sp.Known, sp.FreeBytes, sp.FS, sp.FSName = true, fs.free, fs.id, fs.name
	}
	return sp, true
}
