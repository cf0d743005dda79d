// Package results writes and reads the results folder: run.json, one folder
// per phase with every host's raw output, summary.json and summary.md. It is
// the only writer of these files, and it writes as the run goes, so a crash
// or Ctrl-C keeps everything finished so far.
package results

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// Run statuses, in run.json and summary.json.
const (
	StatusRunning     = "running"
	StatusCompleted   = "completed"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
)

// RunInfo is run.json: what is needed to reproduce and judge the run.
type RunInfo struct {
	SchemaVersion int       `json:"schema_version"`
	RunID         string    `json:"run_id"`
	Name          string    `json:"name"`
	Status        string    `json:"status"`
	Error         string    `json:"error,omitempty"`
	StartedAt     time.Time `json:"started_at"`
	EndedAt       time.Time `json:"ended_at,omitzero"`
	CommandLine   []string  `json:"command_line"`
	Versions      Versions  `json:"versions"`
	// Agents describes every host (cluster.Info values).
	Agents any `json:"agents,omitempty"`
	// Targets are the target directories with their filesystem types.
	Targets []Target `json:"targets,omitempty"`
	// Plan is every phase as sent to the agents, with resolved parameters
	// (fio job text included). It never holds secrets.
	Plan []engine.Phase `json:"plan"`
	// Settings are the run's own settings (suite file, overrides).
	Settings map[string]any `json:"settings,omitempty"`
}

// Versions of what measured.
type Versions struct {
	Storbench string `json:"storbench"`
	Go        string `json:"go"`
	Fio       string `json:"fio,omitempty"`
	Kernel    string `json:"kernel"`
}

// Target is a target directory and the filesystem it is on.
type Target struct {
	Dir    string `json:"dir"`
	FSType string `json:"fs_type"`
	Mount  string `json:"mount_point"`
	Source string `json:"source"`
}

// Folder is an open results folder.
type Folder struct {
	// Path is the folder, results/<run id>_<name>.
	Path string
	// Markdown renders summary.md; nil writes no summary.md.
	Markdown func(*Summary) []byte
	// Extra renders further files from the summary after every phase
	// (sweep.tsv), by file name.
	Extra map[string]func(*Summary) []byte
	// CoVWarn is the coefficient of variation above which a sweep point is
	// flagged unstable (0: DefaultCoVWarn).
	CoVWarn float64
	// Confidence is the confidence level of sweep intervals (0.95 for 95%;
	// 0: stats.DefaultConfidence).
	Confidence float64

	mu  sync.Mutex
	run RunInfo
	sum Summary
}

// NewRunID returns a run id: UTC time and a random suffix, safe in paths and
// object keys ("20261121T051502Z-3fa9").
func NewRunID(now time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

var nameRE = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// SafeName turns a run or phase name into a path element.
func SafeName(s string) string {
	s = strings.Trim(nameRE.ReplaceAllString(s, "-"), "-.")
	if s == "" {
		return "run"
	}
	return s
}

// Create makes results/<run id>_<name>/ under root and writes run.json with
// status running.
func Create(root string, info RunInfo) (*Folder, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("results folder: %v", err)
	}
	path := filepath.Join(root, info.RunID+"_"+SafeName(info.Name))
	if err := os.Mkdir(path, 0o755); err != nil {
		return nil, fmt.Errorf("results folder: %v", err)
	}
	info.SchemaVersion = SchemaVersion
	info.Status = StatusRunning
	f := &Folder{Path: path, run: info, sum: Summary{
		SchemaVersion: SchemaVersion, RunID: info.RunID, Name: info.Name,
		Status: StatusRunning, StartedAt: info.StartedAt, Phases: []PhaseSummary{},
	}}
	return f, f.flush()
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
// summary.md. ps.Dir is set here.
func (f *Folder) AddPhase(ps PhaseSummary, hosts []*engine.HostResult) error {
	ps.Dir = f.NextPhaseDir(ps.Name)
	for _, h := range hosts {
		if h == nil {
			continue
		}
		dir := filepath.Join(f.Path, ps.Dir, "hosts", SafeName(h.Host))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for name, b := range h.Raw {
			if err := writeFile(filepath.Join(dir, SafeName(name)), b); err != nil {
				return err
			}
		}
		stripped := *h
		stripped.Raw = nil
		b, err := json.MarshalIndent(stripped, "", " ")
		if err != nil {
			return err
		}
		if err := writeFile(filepath.Join(dir, "result.json"), b); err != nil {
			return err
		}
	}
	f.mu.Lock()
	f.sum.Phases = append(f.sum.Phases, ps)
	f.sum.Sweeps = Sweeps(f.sum.Phases, SweepOptions{CoVWarn: f.CoVWarn, Confidence: f.Confidence})
	f.sum.Score = ComputeScore(f.sum.Phases)
	f.mu.Unlock()
	return f.flush()
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

// Summary returns a copy of the summary so far.
func (f *Folder) Summary() Summary {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.sum
	s.Phases = append([]PhaseSummary(nil), f.sum.Phases...)
	return s
}

func (f *Folder) flush() error {
	f.mu.Lock()
	run, err1 := json.MarshalIndent(f.run, "", "  ")
	sum := f.sum
	sum.Phases = append([]PhaseSummary(nil), f.sum.Phases...)
	f.mu.Unlock()
	if err1 != nil {
		return err1
	}
	if err := writeFile(filepath.Join(f.Path, "run.json"), run); err != nil {
		return err
	}
	b, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(f.Path, "summary.json"), b); err != nil {
		return err
	}
	if f.Markdown != nil {
		if err := writeFile(filepath.Join(f.Path, "summary.md"), f.Markdown(&sum)); err != nil {
			return err
		}
	}
	for name, render := range f.Extra {
		if b := render(&sum); len(b) > 0 {
			if err := writeFile(filepath.Join(f.Path, name), b); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeFile replaces a file atomically: a reader sees the old or the new
// content, never half of it, even if storbench dies mid-write.
func writeFile(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %v", path, err)
	}
	return os.Rename(tmp, path)
}

// ReadSummary reads summary.json from a results folder.
func ReadSummary(dir string) (*Summary, error) {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, fmt.Errorf("%s is not a storbench results folder: %v", dir, err)
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s/summary.json: %v", dir, err)
	}
	return &s, nil
}

// ReadRunInfo reads run.json from a results folder.
func ReadRunInfo(dir string) (*RunInfo, error) {
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		return nil, fmt.Errorf("%s is not a storbench results folder: %v", dir, err)
	}
	var r RunInfo
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s/run.json: %v", dir, err)
	}
	return &r, nil
}

// ReadHostResult reads one host's result.json of a phase.
func ReadHostResult(dir, phaseDir, host string) (*engine.HostResult, error) {
	b, err := os.ReadFile(filepath.Join(dir, phaseDir, "hosts", SafeName(host), "result.json"))
	if err != nil {
		return nil, err
	}
	var h engine.HostResult
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, err
	}
	return &h, nil
}

// TargetOf finds the mount that holds dir in /proc/self/mountinfo.
func TargetOf(dir string) Target {
	t := Target{Dir: dir, FSType: "unknown"}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return t
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	t.Dir = abs
	fh, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return t
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		// id parent major:minor root mountpoint opts ... - fstype source superopts
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		a, b := strings.Fields(pre), strings.Fields(post)
		if len(a) < 5 || len(b) < 2 {
			continue
		}
		mp := unescape(a[4])
		if (abs == mp || strings.HasPrefix(abs, strings.TrimSuffix(mp, "/")+"/")) && len(mp) >= len(t.Mount) {
			t.Mount, t.FSType, t.Source = mp, b[0], b[1]
		}
	}
	return t
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v int
			if _, err := fmt.Sscanf(s[i+1:i+4], "%o", &v); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
