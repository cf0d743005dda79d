package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/figures"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
)

// StatusUnfinished is the status of a run whose run.json still said
// running when it was indexed: it crashed, or was killed, before it wrote
// its end. Its phases that completed are indexed with their figures.
const StatusUnfinished = "unfinished"

// Run is one run as the catalog holds it.
type Run struct {
	// RunHead is the run as run.json names it (its status "unfinished"
	// for a folder a run never finished writing).
	model.RunHead
	// Finished is false for a folder a run never finished writing.
	Finished  bool   `json:"finished"`
	Storbench string `json:"storbench"`
	Fio       string `json:"fio,omitempty"`
	// Command is the command line as run.json recorded it (secrets
	// already redacted there).
	Command []string `json:"command"`
	// Path is the results folder, absolute, where it was indexed from.
	Path   string            `json:"path"`
	Labels map[string]string `json:"labels,omitempty"`
	// The fingerprint's fields, flattened for queries: several targets'
	// values are joined with ",".
	Kernel       string `json:"kernel,omitempty"`
	FSType       string `json:"fs_type,omitempty"`
	MountOptions string `json:"mount_options,omitempty"`
	Devices      string `json:"devices,omitempty"`
	S3Endpoint   string `json:"s3_endpoint,omitempty"`
	S3Server     string `json:"s3_server,omitempty"`
	Hosts        int    `json:"hosts"`
	// S3Features is what a probe of the S3 endpoint found before the run
	// (--probe): each feature's result ("versioning": "works").
	S3Features map[string]string `json:"s3_features,omitempty"`
}

// Figure names, with their units: what the catalog keeps of every
// operation of every phase, in the totals and per host (package figures
// names them for all).
const (
	FigRate   = figures.Rate   // operations per second
	FigBW     = figures.BW     // bytes per second
	FigMean   = figures.Mean   // mean latency, ns
	FigP50    = figures.P50    // latency percentiles, ns
	FigP99    = figures.P99    //
	FigP999   = figures.P999   //
	FigErrors = figures.Errors // failed operations, a count
	FigKnee   = figures.Knee   // a scale's knee (figures.Knee)
)

// FigureNames are the figures kept per operation, in the order they are
// shown.
var FigureNames = figures.Names

// Unit is the unit of a figure: "ops/s", "B/s", "ns" or "" (a count).
func Unit(figure string) string { return figures.Unit(figure) }

// HigherIsBetter says whether a larger value of the figure is better.
func HigherIsBetter(figure string) bool { return figures.HigherIsBetter(figure) }

// Figure is one figure of one operation of one phase: the total across
// hosts (Host ""), or one host's.
type Figure struct {
	Phase string  `json:"phase"`
	Op    string  `json:"op"`
	Host  string  `json:"host,omitempty"`
	Name  string  `json:"figure"`
	Value float64 `json:"value"`
}

// Record is what the catalog keeps of one results folder.
type Record struct {
	Run     Run
	Figures []Figure
	// Limits are the limits the run was given and its verdicts, as its
	// summary.json keeps them.
	Limits []Limit
	// ClientLimits are the limits of their own the hosts reached in the
	// run's completed phases.
	ClientLimits []ClientLimit
}

// ReadFolder reads what the catalog keeps of a results folder. A folder a
// run never finished (run.json says running, summary.json may be missing)
// reads as StatusUnfinished with the phases it completed. Only completed
// phases give figures: a failed or interrupted phase's partial figures
// would pass for a measurement.
func ReadFolder(dir string) (*Record, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	info, err := results.ReadRunInfo(abs)
	if err != nil {
		return nil, err
	}
	if info.RunID == "" {
		return nil, fmt.Errorf("%s/run.json has no run_id: not a storbench results folder", abs)
	}
	rec := &Record{Run: runOf(info, abs)}
	sum, err := results.ReadSummary(abs)
	switch {
	case err == nil:
		rec.Figures, rec.Limits = figuresOf(sum), limitsOf(sum)
		rec.ClientLimits = clientLimitsOf(sum)
		if sum.Status == results.StatusRunning {
			rec.Run.Status, rec.Run.Finished = StatusUnfinished, false
		}
	case rec.Run.Finished:
		return nil, err
	case errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), "no such file"):
		// A run that crashed before its first phase ended: no figures.
	default:
		return nil, err
	}
	return rec, nil
}

// runOf flattens run.json into a Run.
func runOf(info *results.RunInfo, path string) Run {
	r := Run{
		RunHead: info.RunHead, Finished: info.Status != results.StatusRunning, Storbench: info.Versions.Storbench,
		Fio: info.Versions.Fio, Command: info.CommandLine, Path: path, Labels: info.Labels,
		Kernel: info.Versions.Kernel, Hosts: max(1, len(info.Agents)),
	}
	if r.Command == nil {
		r.Command = []string{}
	}
	r.StartedAt, r.EndedAt = r.StartedAt.UTC(), r.EndedAt.UTC()
	if !r.Finished {
		r.Status = StatusUnfinished
	}
	if info.EndedAt.IsZero() {
		r.EndedAt = time.Time{}
	}
	fp := info.Fingerprint
	if fp == nil {
		// Folders written before runs took a fingerprint: what run.json
		// already says.
		fp = &model.Fingerprint{Kernel: info.Versions.Kernel, Hosts: r.Hosts}
		for _, t := range info.Targets {
			fp.Targets = append(fp.Targets, model.TargetPrint{Dir: t.Dir, FSType: t.FSType, Source: t.Source})
		}
	}
	if fp.Kernel != "" {
		r.Kernel = fp.Kernel
	}
	if fp.Hosts > 0 {
		r.Hosts = fp.Hosts
	}
	r.S3Endpoint, r.S3Server = fp.S3Endpoint, fp.S3Server
	if fp.Probe != nil {
		r.S3Features = map[string]string{}
		for _, f := range fp.Probe.Features {
			r.S3Features[f.Name] = f.Result
		}
	}
	var fsTypes, opts, devs []string
	for _, t := range fp.Targets {
		fsTypes = appendNew(fsTypes, t.FSType)
		opts = appendNew(opts, t.MountOptions)
		for _, d := range t.Devices {
			devs = appendNew(devs, d)
		}
	}
	r.FSType, r.MountOptions, r.Devices = strings.Join(fsTypes, ","), strings.Join(opts, ","), strings.Join(devs, ",")
	return r
}

func appendNew(list []string, s string) []string {
	if s == "" {
		return list
	}
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// figuresOf lists the figures of every completed phase, totals then
// hosts. A figure not measured is left out, never stored as 0.
func figuresOf(sum *results.Summary) []Figure {
	var out []Figure
	for _, p := range sum.Phases {
		if p.Status != results.StatusCompleted {
			continue
		}
		for _, o := range p.Ops {
			out = appendOp(out, p.Name, "", o)
		}
		if len(p.PerHost) < 2 {
			continue // one host's figures are the totals
		}
		for _, h := range p.PerHost {
			for _, o := range h.Ops {
				out = appendOp(out, p.Name, h.Host, o)
			}
		}
	}
	for _, sc := range sum.Scales {
		if sc.Knee != nil && sc.StopKind != model.ScaleRangeEnd {
			out = append(out, Figure{Phase: sc.Group, Op: sc.Param, Name: FigKnee, Value: float64(*sc.Knee)})
		}
	}
	return out
}

func appendOp(out []Figure, phase, host string, o results.OpSummary) []Figure {
	for _, f := range o.Figures() {
		out = append(out, Figure{Phase: phase, Op: o.Op, Host: host, Name: f.Name, Value: f.Value})
	}
	return out
}

// Folders expands the arguments of `catalog add`: a results folder is
// itself; a folder without run.json is searched one level down for
// results folders (a results/ root).
func Folders(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if _, err := os.Stat(filepath.Join(a, "run.json")); err == nil {
			out = append(out, a)
			continue
		}
		fi, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("catalog add %s: %v", a, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("catalog add %s: not a folder: give a results folder or a folder of them", a)
		}
		ents, err := os.ReadDir(a)
		if err != nil {
			return nil, fmt.Errorf("catalog add %s: %v", a, err)
		}
		var found []string
		for _, e := range ents {
			if _, err := os.Stat(filepath.Join(a, e.Name(), "run.json")); err == nil && e.IsDir() {
				found = append(found, filepath.Join(a, e.Name()))
			}
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("catalog add %s: no run.json in it or in its folders: not a storbench results folder", a)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// Add indexes a results folder. A run indexed before (by run id) is
// replaced, so a folder added twice is in the catalog once, and a run
// indexed while it was unfinished is brought up to date.
func (c *Catalog) Add(ctx context.Context, dir string) (*Run, error) {
	rec, err := ReadFolder(dir)
	if err != nil {
		return nil, err
	}
	if err := c.Put(ctx, rec); err != nil {
		return nil, err
	}
	return &rec.Run, nil
}

// Put writes a record, replacing any of the same run id, in one
// transaction: a reader sees the run whole or not at all.
func (c *Catalog) Put(ctx context.Context, rec *Record) error {
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return c.writeErr(err)
	}
	defer tx.Rollback()
	if err := c.putTx(ctx, tx, rec); err != nil {
		return err
	}
	return c.writeErr(tx.Commit())
}

// putTx writes a record in transaction tx, replacing any of its run id.
func (c *Catalog) putTx(ctx context.Context, tx *sql.Tx, rec *Record) error {
	r := rec.Run
	if c.pg {
		// Two writers of one run id wait for each other.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, r.RunID); err != nil {
			return c.writeErr(err)
		}
	}
	for _, t := range runTables(c.schema) {
		if _, err := tx.ExecContext(ctx, c.q(`DELETE FROM `+t+` WHERE run_id = ?`), r.RunID); err != nil {
			return c.writeErr(err)
		}
	}
	cmd, _ := json.Marshal(r.Command)
	fin := 0
	if r.Finished {
		fin = 1
	}
	if _, err := tx.ExecContext(ctx, c.q(`INSERT INTO sb_runs (run_id, name, status, finished, started_ns, ended_ns, storbench, fio,
		command, path, kernel, fs_type, mount_options, devices, s3_endpoint, s3_server, hosts, indexed_ns)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		r.RunID, r.Name, r.Status, fin, ns(r.StartedAt), ns(r.EndedAt), r.Storbench, r.Fio, string(cmd), r.Path,
		r.Kernel, r.FSType, r.MountOptions, r.Devices, r.S3Endpoint, r.S3Server, r.Hosts, time.Now().UnixNano()); err != nil {
		return c.writeErr(err)
	}
	for k, v := range r.Labels {
		if _, err := tx.ExecContext(ctx, c.q(`INSERT INTO sb_labels (run_id, key, value) VALUES (?, ?, ?)`), r.RunID, k, v); err != nil {
			return c.writeErr(err)
		}
	}
	for f, res := range r.S3Features {
		if c.schema < 3 {
			break // an older catalog's tables (tests)
		}
		if _, err := tx.ExecContext(ctx, c.q(`INSERT INTO sb_s3_features (run_id, feature, result) VALUES (?, ?, ?)`), r.RunID, f, res); err != nil {
			return c.writeErr(err)
		}
	}
	if err := c.putLimits(ctx, tx, r.RunID, rec.Limits); err != nil {
		return c.writeErr(err)
	}
	for _, l := range rec.ClientLimits {
		if c.schema < 5 {
			break // an older catalog's tables (tests)
		}
		if _, err := tx.ExecContext(ctx, c.q(`INSERT INTO sb_client_limits (run_id, phase, host, kind, verdict) VALUES (?, ?, ?, ?, ?)`),
			r.RunID, l.Phase, l.Host, l.Kind, l.Text); err != nil {
			return c.writeErr(err)
		}
	}
	return c.writeErr(c.putFigures(ctx, tx, r.RunID, rec.Figures))
}

// addBatch is how many folders AddAll writes in one transaction.
const addBatch = 100

// AddAll indexes many results folders, a transaction per hundred (a
// transaction per folder spends its time committing). done hears every
// folder: its run, or why it could not be read (such a folder is skipped)
// or written. It stops at the first write error, which it returns.
func (c *Catalog) AddAll(ctx context.Context, dirs []string, done func(dir string, r *Run, err error)) error {
	var recs []*Record
	var from []string
	flush := func() error {
		if len(recs) == 0 {
			return nil
		}
		var err error
		if perr := c.putMany(ctx, recs); perr != nil {
			err = &WriteError{Err: perr}
		}
		for i, rec := range recs {
			if err != nil {
				done(from[i], nil, err)
			} else {
				done(from[i], &rec.Run, nil)
			}
		}
		recs, from = recs[:0], from[:0]
		return err
	}
	for _, d := range dirs {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := ReadFolder(d)
		if err != nil {
			done(d, nil, err)
			continue
		}
		recs, from = append(recs, rec), append(from, d)
		if len(recs) == addBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// WriteError is a catalog that could not be written (the folder read
// well): the catalog's fault, not the folder's.
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }
