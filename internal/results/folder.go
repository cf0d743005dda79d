// Package results writes and reads the results folder: run.json, one folder
// per phase with every host's raw output, summary.json and the files
// rendered from them (a list of Renderers). It is the only writer of these
// files, and it writes as the run goes, so a crash or Ctrl-C keeps
// everything finished so far.
package results

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/storbench/storbench/internal/infile"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
)

// Run statuses, in run.json and summary.json.
const (
	StatusRunning     = "running"
	StatusCompleted   = "completed"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
)

// RunInfo is run.json: what is needed to reproduce and judge the run.
type RunInfo = model.RunInfo

// Versions of what measured.
type Versions = model.Versions

// Target is a target directory and the filesystem it is on.
type Target = model.Target

// Folder is an open results folder.
type Folder struct {
	// Path is the folder, results/<run id>_<name>.
	Path string
	// Renderers make the folder's rendered files (summary.md, sweep.tsv,
	// report.html): those not Final after every phase, the Final ones
	// when RenderFinal is called. None: the folder holds data only.
	Renderers []Renderer
	// CoVWarn is the coefficient of variation above which a sweep point is
	// flagged unstable (0: DefaultCoVWarn).
	CoVWarn float64
	// Confidence is the confidence level of sweep intervals (0.95 for 95%;
	// 0: stats.DefaultConfidence).
	Confidence float64
	// Score chooses the run's score: model.ScoreIO500 computes the IO500-shaped
	// score (Summary.IO500) instead of the default one (Summary.Score).
	Score string

	mu  sync.Mutex
	run RunInfo
	sum Summary
	// unsaved are the files (relative to Path) whose last write failed,
	// with why; a later successful write of the same file takes it off.
	unsaved map[string]error
	// dropped are phases left out of summary.json because a host's
	// result.json could not be written (the folder stays readable).
	dropped []string
	// madeRoot is set when Create made the folder's parent (results/).
	madeRoot bool
}

// Remove removes the folder, and its parent (results/) when Create made
// it and nothing else is in it: a run that measured nothing (bad input
// found late) leaves nothing behind.
func (f *Folder) Remove() error {
	if err := os.RemoveAll(f.Path); err != nil {
		return err
	}
	if f.madeRoot {
		_ = os.Remove(filepath.Dir(f.Path)) // fails, as it should, when not empty
	}
	return nil
}

// UnsavedError says what a results folder could not save, and why: every
// write to the folder is checked, and none is given up silently.
type UnsavedError struct {
	// Path is the results folder.
	Path string
	// Phases were measured but are not in summary.json: a host's
	// result.json could not be written.
	Phases []string
	// Files (relative to Path) were not written or are not up to date.
	Files []string
	// Err is the first cause.
	Err error
}

func (e *UnsavedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "results not saved in %s (%v):", e.Path, e.Err)
	if len(e.Phases) > 0 {
		fmt.Fprintf(&b, " phase %s is not in summary.json (its figures are printed above);", strings.Join(e.Phases, ", "))
	}
	fmt.Fprintf(&b, " not written or out of date: %s", strings.Join(e.Files, ", "))
	if slices.Contains(e.Files, "run.json") {
		b.WriteString("; run.json still says running")
	}
	return b.String()
}

func (e *UnsavedError) Unwrap() error { return e.Err }

// NewRunID returns a run id: UTC time and a random suffix, safe in paths and
// object keys ("20261121T051502Z-3fa9").
func NewRunID(now time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// SafeName turns a run, phase or host name into a path element
// (model.SafeName).
func SafeName(s string) string { return model.SafeName(s) }

// Create makes results/<run id>_<name>/ under root and writes run.json with
// status running.
func Create(root string, info RunInfo) (*Folder, error) {
	if err := model.CheckRunName(info.Name); err != nil {
		return nil, fmt.Errorf("results folder: the run's name %v", err)
	}
	_, err := os.Stat(root)
	madeRoot := errors.Is(err, fs.ErrNotExist)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("results folder: %v", err)
	}
	path := filepath.Join(root, info.RunID+"_"+SafeName(info.Name))
	if err := os.Mkdir(path, 0o755); err != nil {
		if madeRoot {
			os.Remove(root)
		}
		return nil, fmt.Errorf("results folder: %v", err)
	}
	info.SchemaVersion = SchemaVersion
	info.Status = StatusRunning
	f := &Folder{Path: path, run: info, sum: Summary{
		SchemaVersion: SchemaVersion, RunHead: info.RunHead, Phases: []PhaseSummary{},
	}, unsaved: map[string]error{}, madeRoot: madeRoot}
	if err := f.flush(); err != nil {
		f.Remove() // nothing measured yet: leave nothing behind
		var u *UnsavedError
		if errors.As(err, &u) {
			err = u.Err
		}
		return nil, fmt.Errorf("results folder %s cannot be written: %v", path, err)
	}
	return f, nil
}

// RunInfo returns a copy of run.json's content.
func (f *Folder) RunInfo() RunInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.run
}

// Update changes run.json's content and writes it.
func (f *Folder) Update(fn func(*RunInfo)) error {
	f.mu.Lock()
	fn(&f.run)
	f.mu.Unlock()
	return f.flush()
}

// NextPhaseDir is the folder, relative to the results folder, that the next
// phase added will get ("03-s3-get"), for engines that write raw data there
// while they run.
func (f *Folder) NextPhaseDir(name string) string {
	f.mu.Lock()
	idx := len(f.sum.Phases) + 1
	f.mu.Unlock()
	return fmt.Sprintf("%02d-%s", idx, SafeName(name))
}

// AddPhase writes one phase's hosts' raw output and results under
// NN-<name>/hosts/<host>/, adds its summary, and rewrites summary.json and
// the rendered files that are not Final. ps.Dir is set here. Every file is tried even after one
// fails; a failure returns an *UnsavedError. A phase whose hosts'
// result.json could not all be written is left out of summary.json, so
// every phase listed there can be read back.
func (f *Folder) AddPhase(ps PhaseSummary, hosts []*model.HostResult) error {
	ps.Dir = f.NextPhaseDir(ps.Name)
	complete := true
	for _, h := range hosts {
		if h == nil {
			continue
		}
		dir := filepath.Join(ps.Dir, "hosts", SafeName(h.Host))
		if err := os.MkdirAll(filepath.Join(f.Path, dir), 0o755); err != nil {
			f.note(dir+"/", err)
			complete = false
			continue
		}
		for name, b := range h.Raw {
			_ = f.Save(filepath.Join(dir, SafeName(name)), b)
		}
		if len(h.LatencySeconds) > 0 {
			_ = f.Save(filepath.Join(dir, record.LatSecondsFile), h.LatencySeconds)
		}
		stripped := *h
		stripped.Raw, stripped.LatencySeconds = nil, nil
		b, err := json.MarshalIndent(stripped, "", " ")
		if err != nil {
			return err
		}
		if err := f.Save(filepath.Join(dir, "result.json"), b); err != nil {
			complete = false
		}
	}
	f.mu.Lock()
	if complete {
		f.sum.Phases = append(f.sum.Phases, ps)
		f.sum.Sweeps = Sweeps(f.sum.Phases, SweepOptions{CoVWarn: f.covWarn(), Confidence: f.Confidence})
		f.sum.Scales = Scales(f.sum.Phases)
		// No default score: one mean of every bandwidth and every
		// metadata rate mixed unlike figures (4k random reads with 1 MiB
		// writes, tree create and remove as metadata). IO500's is computed
		// when the suite asks for it, by IO500's definition.
		if f.Score == model.ScoreIO500 {
			f.sum.IO500 = ComputeIO500(f.sum.Phases)
		}
	} else {
		f.dropped = append(f.dropped, ps.Name)
	}
	f.mu.Unlock()
	ferr := f.flush()
	if !complete || ferr != nil {
		return f.Unsaved()
	}
	return nil
}

// Finish sets the final status (and error) and writes everything once more.
func (f *Folder) Finish(status string, runErr error) error {
	f.mu.Lock()
	now := time.Now().UTC()
	f.run.Status, f.run.EndedAt = status, now
	f.sum.Status, f.sum.EndedAt = status, now
	if runErr != nil {
		f.run.Error = runErr.Error()
	}
	f.mu.Unlock()
	return f.flush()
}

// SetNotRun records the plan's phases the run will not start (a phase
// before them failed, or the run was interrupted).
func (f *Folder) SetNotRun(names []string) {
	f.mu.Lock()
	f.sum.NotRun = append([]string(nil), names...)
	f.mu.Unlock()
}

// Summary returns a copy of the summary so far.
func (f *Folder) Summary() Summary {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.sum
	s.Phases = append([]PhaseSummary(nil), f.sum.Phases...)
	return s
}

// flush writes run.json, summary.json and the files of the renderers that
// are not Final, trying every one; it returns an *UnsavedError when any failed.
func (f *Folder) flush() error {
	f.mu.Lock()
	run, err := json.MarshalIndent(f.run, "", "  ")
	sum := f.sum
	sum.Phases = append([]PhaseSummary(nil), f.sum.Phases...)
	f.mu.Unlock()
	if err != nil {
		return err
	}
	failed := f.Save("run.json", run) != nil
	b, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	failed = f.Save("summary.json", b) != nil || failed
	failed = f.renderLive(&sum) || failed
	if failed {
		return f.Unsaved()
	}
	return nil
}

// Save writes a file of the results folder (name relative to it)
// atomically, and keeps account of it: a file whose write fails is listed
// by Unsaved until a later write of it succeeds.
func (f *Folder) Save(name string, b []byte) error {
	err := WriteFile(filepath.Join(f.Path, name), b)
	f.note(name, err)
	return err
}

func (f *Folder) note(name string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.unsaved == nil {
		f.unsaved = map[string]error{}
	}
	if err == nil {
		delete(f.unsaved, name)
		return
	}
	f.unsaved[name] = err
}

// Unsaved returns an *UnsavedError listing what the folder could not
// save, or nil when everything written so far is on disk.
func (f *Folder) Unsaved() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.unsaved) == 0 && len(f.dropped) == 0 {
		return nil
	}
	e := &UnsavedError{Path: f.Path, Phases: append([]string(nil), f.dropped...)}
	for name := range f.unsaved {
		e.Files = append(e.Files, name)
	}
	sort.Strings(e.Files)
	for _, name := range e.Files {
		// The cause without the path, which the list already gives.
		err := f.unsaved[name]
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		e.Err = err
		break
	}
	return e
}

func (f *Folder) covWarn() float64 {
	if f.CoVWarn > 0 {
		return f.CoVWarn
	}
	return DefaultCoVWarn
}

// WriteFile replaces a file atomically: a reader sees the old or the new
// content, never half of it, even if storbench dies mid-write. The
// temporary file is removed when anything fails (a full disk).
func WriteFile(path string, b []byte) error {
	tmp := path + ".tmp"
	err := os.WriteFile(tmp, b, 0o644)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// NeverFinishedNote is said of a results folder whose run never recorded
// its end.
const NeverFinishedNote = "this run never finished: run.json still says running " +
	"(storbench was killed, e.g. by kill -9 or a power cut, or could not write to its results disk, or the run is still going); " +
	"the phases it saved are shown"

// ReadSummary reads summary.json from a results folder. Its Status is
// running when run.json says so: a run killed, or whose disk filled up,
// never wrote its end there, whatever summary.json got to.
func ReadSummary(dir string) (*Summary, error) {
	path := filepath.Join(dir, "summary.json")
	b, err := infile.Read("", path, infile.ResultLimit)
	if infile.IsRefusal(err) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%s is not a storbench results folder: %w", dir, err)
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s is damaged: %s", path, damaged(err))
	}
	if s.SchemaVersion > SchemaVersion {
		// Fields may have changed meaning: read as this version's, figures
		// could be missing or misread without a word.
		return nil, fmt.Errorf("%s/summary.json: schema_version %d is newer than this storbench reads (up to %d): read it with the storbench that wrote it, or a newer one", dir, s.SchemaVersion, SchemaVersion)
	}
	if s.SchemaVersion < 2 {
		if err := upgradeV1(b, &s); err != nil {
			return nil, fmt.Errorf("%s is damaged: %s", path, damaged(err))
		}
	}
	if s.SchemaVersion == 4 {
		if err := upgradeV4(b, &s); err != nil {
			return nil, fmt.Errorf("%s is damaged: %s", path, damaged(err))
		}
	}
	if err := checkSummary(dir, path, &s); err != nil {
		return nil, err
	}
	if r, err := ReadRunInfo(dir); err == nil && r.Status == StatusRunning {
		s.Status = StatusRunning
	}
	if s.IO500 != nil { // judged again: older summaries lack IO500's validity
		s.IO500 = ComputeIO500(s.Phases)
	}
	return &s, nil
}

// opV1 is what version 1 of summary.json wrote of an operation where
// version 2 differs: flat latency fields, and 0 for figures not measured.
type opV1 struct {
	LatNsMean   float64 `json:"lat_ns_mean"`
	LatNsStddev float64 `json:"lat_ns_stddev"`
	LatNsMin    int64   `json:"lat_ns_min"`
	LatNsMax    int64   `json:"lat_ns_max"`
	LatNsP50    int64   `json:"lat_ns_p50"`
	LatNsP90    int64   `json:"lat_ns_p90"`
	LatNsP99    int64   `json:"lat_ns_p99"`
	LatNsP995   int64   `json:"lat_ns_p99_5"`
	LatNsP999   int64   `json:"lat_ns_p99_9"`
}

// upgradeV1 reads a version 1 summary.json (b) into s, read as version 2:
// latency moves into Lat, where any was recorded, and the 0 that version
// 1 wrote for a figure not measured becomes absent.
func upgradeV1(b []byte, s *Summary) error {
	var v1 struct {
		Phases []struct {
			Ops     []opV1 `json:"ops"`
			PerHost []struct {
				Ops []opV1 `json:"ops"`
			} `json:"per_host"`
		} `json:"phases"`
	}
	if err := json.Unmarshal(b, &v1); err != nil {
		return err
	}
	fix := func(o *OpSummary, old opV1) {
		if old.LatNsMean != 0 || old.LatNsMax != 0 || old.LatNsP50 != 0 {
			o.Lat = &LatencySummary{MeanNs: old.LatNsMean, StddevNs: old.LatNsStddev, MinNs: old.LatNsMin, MaxNs: old.LatNsMax,
				P50Ns: old.LatNsP50, P90Ns: old.LatNsP90, P99Ns: old.LatNsP99, P995Ns: old.LatNsP995, P999Ns: old.LatNsP999}
		}
		if o.Bytes == 0 {
			o.BwBytesPerS = nil
		}
		if o.OpsPerS != nil && *o.OpsPerS == 0 && o.DurationS == 0 {
			o.OpsPerS = nil
		}
	}
	for i := range s.Phases {
		if i >= len(v1.Phases) {
			break
		}
		p, old := &s.Phases[i], v1.Phases[i]
		for j := range p.Ops {
			if j < len(old.Ops) {
				fix(&p.Ops[j], old.Ops[j])
			}
		}
		for h := range p.PerHost {
			for j := range p.PerHost[h].Ops {
				if h < len(old.PerHost) && j < len(old.PerHost[h].Ops) {
					fix(&p.PerHost[h].Ops[j], old.PerHost[h].Ops[j])
				}
			}
		}
	}
	return nil
}

// DamagedError is a file of a results folder that is there but cannot be
// read: Why says so in the user's words.
type DamagedError struct {
	Path, Why string
}

func (e *DamagedError) Error() string { return e.Path + " is damaged: " + e.Why }

// ReadRunInfo reads run.json from a results folder.
func ReadRunInfo(dir string) (*RunInfo, error) {
	path := filepath.Join(dir, "run.json")
	b, err := infile.Read("", path, infile.RunInfoLimit)
	if infile.IsRefusal(err) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%s is not a storbench results folder: %w", dir, err)
	}
	var r RunInfo
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, &DamagedError{Path: path, Why: damaged(err)}
	}
	return &r, nil
}

// ReadHostResult reads one host's result.json of a phase. Its errors name
// the file.
func ReadHostResult(dir, phaseDir, host string) (*model.HostResult, error) {
	path := filepath.Join(dir, phaseDir, "hosts", SafeName(host), "result.json")
	b, err := infile.Read("", path, infile.ResultLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s is missing: host %s's figures of phase %s cannot be read", path, host, phaseDir)
	}
	if err != nil {
		return nil, err
	}
	var h model.HostResult
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, fmt.Errorf("%s is damaged (%s): host %s's figures of phase %s cannot be read", path, damaged(err), host, phaseDir)
	}
	if err := checkHostResult(path, &h); err != nil {
		return nil, err
	}
	return &h, nil
}

// ReadHostLatency reads one host's per-second latency file of a phase
// (record.LatSecondsFile, in the format record.EncodeLatSeconds writes),
// undecoded; nil when the host kept none (results written before
// storbench kept them, or fio with latency off). What it may decode to
// is bounded where it is decoded (record.LatSecondsBound).
func ReadHostLatency(dir, phaseDir, host string) ([]byte, error) {
	path := filepath.Join(dir, phaseDir, "hosts", SafeName(host), record.LatSecondsFile)
	b, err := infile.Read("", path, infile.CompressedLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// TargetOf finds the mount that holds dir (model.TargetOf).
func TargetOf(dir string) Target { return model.TargetOf(dir) }
