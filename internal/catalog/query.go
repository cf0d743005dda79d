package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/model"
)

// Query selects runs. Every field set must match (AND). Text fields match
// exactly, or as a pattern when they hold '*'; Mount and Device match any
// part of the run's mount options or device models.
type Query struct {
	// Labels must all be on the run with these values.
	Labels map[string]string `json:"labels,omitempty"`
	ID     string            `json:"id,omitempty"`
	Name   string            `json:"name,omitempty"`
	Status string            `json:"status,omitempty"`
	// Since and Until bound the run's start time (Until excluded).
	Since time.Time `json:"since,omitzero"`
	Until time.Time `json:"until,omitzero"`
	// Fingerprint fields.
	Kernel     string `json:"kernel,omitempty"`
	FSType     string `json:"fs,omitempty"`
	Mount      string `json:"mount,omitempty"`
	Device     string `json:"device,omitempty"`
	S3Endpoint string `json:"s3_endpoint,omitempty"`
	S3Server   string `json:"s3_server,omitempty"`
	// S3Works is a feature a probe of the run's S3 endpoint found
	// working (--probe): "versioning", "checksum CRC32C in a trailer".
	S3Works   string `json:"s3_works,omitempty"`
	Hosts     int    `json:"hosts,omitempty"`
	Storbench string `json:"storbench,omitempty"`
	Fio       string `json:"fio,omitempty"`
	// Last keeps only the newest Last runs that match (0: all).
	Last int `json:"last,omitempty"`
}

// QueryKeys are the keys a query term may have, as `KEY=VALUE`.
var QueryKeys = []string{"label", "id", "name", "status", "since", "until", "kernel", "fs", "mount", "device",
	"s3_endpoint", "s3_server", "s3_works", "hosts", "storbench", "fio", "last"}

// ParseQuery reads query terms: each is KEY=VALUE (label=KEY=VALUE for a
// label), and one argument may hold several, separated by commas
// ("label=tuning=default,fs=xfs,last=10"). Dates (since, until) are
// 2026-01-02, 2026-01-02T15:04:05Z, or an age before now ("30d", "12h").
func ParseQuery(terms []string, now time.Time) (Query, error) {
	var q Query
	for _, t := range splitTerms(terms) {
		k, v, ok := strings.Cut(t, "=")
		if !ok {
			return q, fmt.Errorf("query term %q: give KEY=VALUE, KEY one of %s", t, strings.Join(QueryKeys, ", "))
		}
		if err := q.set(k, v, now); err != nil {
			return q, fmt.Errorf("query term %q: %v", t, err)
		}
	}
	return q, nil
}

// splitTerms splits arguments at commas, keeping a comma that does not
// begin a new KEY=VALUE term inside the value (mount=rw,noatime).
func splitTerms(args []string) []string {
	var out []string
	for _, a := range args {
		for i, p := range strings.Split(a, ",") {
			if i > 0 && !strings.Contains(p, "=") && len(out) > 0 {
				out[len(out)-1] += "," + p
				continue
			}
			if p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func (q *Query) set(k, v string, now time.Time) error {
	var err error
	switch k {
	case "label":
		lk, lv, lerr := ParseLabel(v)
		if lerr != nil {
			return lerr
		}
		if q.Labels == nil {
			q.Labels = map[string]string{}
		}
		q.Labels[lk] = lv
	case "since":
		q.Since, err = parseWhen(v, now)
	case "until":
		q.Until, err = parseWhen(v, now)
	case "hosts", "last":
		n, aerr := strconv.Atoi(v)
		if aerr != nil || n < 0 {
			return fmt.Errorf("want a whole number")
		}
		if k == "hosts" {
			q.Hosts = n
		} else {
			q.Last = n
		}
	default:
		p := q.text(k)
		if p == nil {
			return fmt.Errorf("unknown key %q: want one of %s", k, strings.Join(QueryKeys, ", "))
		}
		*p = v
	}
	return err
}

// text is the text field of key k, nil for none.
func (q *Query) text(k string) *string {
	return map[string]*string{"id": &q.ID, "name": &q.Name, "status": &q.Status, "kernel": &q.Kernel, "fs": &q.FSType,
		"mount": &q.Mount, "device": &q.Device, "s3_endpoint": &q.S3Endpoint, "s3_server": &q.S3Server,
		"s3_works": &q.S3Works, "storbench": &q.Storbench, "fio": &q.Fio}[k]
}

// MaxAgeDays is the oldest age a query may give (since=, until=): a
// century. Past it, days counted in a time.Duration wrapped around
// (200000d came out as a date in 2063), and no run is older.
const MaxAgeDays = 36500

// parseWhen reads a date, a time, or an age before now (30d, 12h, 90m) of
// at most MaxAgeDays.
func parseWhen(v string, now time.Time) (time.Time, error) {
	tooOld := fmt.Errorf("the age %s is out of range: give at most %dd (100 years), or a date", v, MaxAgeDays)
	if n, ok := strings.CutSuffix(v, "d"); ok {
		d, err := strconv.ParseUint(n, 10, 64)
		switch {
		case err == nil && d <= MaxAgeDays:
			return now.Add(-time.Duration(d) * 24 * time.Hour), nil
		case err == nil || errors.Is(err, strconv.ErrRange):
			return time.Time{}, tooOld
		}
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		if d > MaxAgeDays*24*time.Hour {
			return time.Time{}, tooOld
		}
		return now.Add(-d), nil
	}
	if isDuration(v) {
		// Go's parser refuses what does not fit in a Duration (about
		// 292 years) in its own words: it is out of range too.
		return time.Time{}, tooOld
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, v, time.UTC); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("want a date (2026-01-02, 2026-01-02T15:04:05Z) or an age (30d, 12h)")
}

// durationShape is text time.ParseDuration reads when it fits: numbers
// with units.
var durationShape = regexp.MustCompile(`^([0-9]+(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$`)

// isDuration reports text shaped as a duration, which time.ParseDuration
// refused for its size alone.
func isDuration(v string) bool { return durationShape.MatchString(v) }

// String writes the query back as terms, keys in a fixed order.
func (q Query) String() string {
	var out []string
	keys := make([]string, 0, len(q.Labels))
	for k := range q.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, "label="+k+"="+q.Labels[k])
	}
	for _, k := range QueryKeys {
		if p := q.text(k); p != nil && *p != "" {
			out = append(out, k+"="+*p)
		}
	}
	if !q.Since.IsZero() {
		out = append(out, "since="+q.Since.Format(time.RFC3339))
	}
	if !q.Until.IsZero() {
		out = append(out, "until="+q.Until.Format(time.RFC3339))
	}
	if q.Hosts > 0 {
		out = append(out, "hosts="+strconv.Itoa(q.Hosts))
	}
	if q.Last > 0 {
		out = append(out, "last="+strconv.Itoa(q.Last))
	}
	if len(out) == 0 {
		return "(every run)"
	}
	return strings.Join(out, ",")
}

// runPlan is how the runs of a query are found. SQLite plans without
// knowing how many runs carry a label's value, so storbench counts them
// and says: start from the runs of the rarest label (Drive), or walk the
// runs newest first and stop at Last (ByStart).
type runPlan struct {
	Drive   string
	ByStart bool
}

// plan chooses the runPlan of q: walking newest first costs about
// Last x runs/matches rows, starting from a label its count.
func (c *Catalog) plan(ctx context.Context, q Query) (runPlan, error) {
	if q.ID != "" && !strings.Contains(q.ID, "*") {
		return runPlan{}, nil // one run, by its key
	}
	if len(q.Labels) == 0 {
		return runPlan{ByStart: true}, nil
	}
	rarest, fewest := "", int64(-1)
	for _, k := range slices.Sorted(maps.Keys(q.Labels)) {
		var n int64
		if err := c.db.QueryRowContext(ctx, c.q(`SELECT count(*) FROM sb_labels WHERE key = ? AND value = ?`), k, q.Labels[k]).Scan(&n); err != nil {
			return runPlan{}, c.writeErr(err)
		}
		if fewest < 0 || n < fewest {
			rarest, fewest = k, n
		}
	}
	if q.Last > 0 && fewest > 0 {
		var total int64
		if err := c.db.QueryRowContext(ctx, `SELECT count(*) FROM sb_runs`).Scan(&total); err != nil {
			return runPlan{}, c.writeErr(err)
		}
		if int64(q.Last)*total/fewest < fewest {
			return runPlan{ByStart: true}, nil
		}
	}
	return runPlan{Drive: rarest}, nil
}

// from is the FROM of a query on runs as plan p says.
func (c *Catalog) from(p runPlan) string {
	if p.ByStart && !c.pg {
		return "sb_runs r INDEXED BY sb_runs_by_start"
	}
	return "sb_runs r"
}

// where is the query's SQL condition on sb_runs aliased r, with its
// arguments (? placeholders); the label drive is tested with IN, so the
// planner starts from its runs, the others each run at a time.
func (q Query) where(drive string) (string, []any) {
	conds := []string{"1 = 1"}
	var args []any
	keys := make([]string, 0, len(q.Labels))
	for k := range q.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == drive {
			conds = append(conds, "r.run_id IN (SELECT l.run_id FROM sb_labels l WHERE l.key = ? AND l.value = ?)")
		} else {
			conds = append(conds, "EXISTS (SELECT 1 FROM sb_labels l WHERE l.run_id = r.run_id AND l.key = ? AND l.value = ?)")
		}
		args = append(args, k, q.Labels[k])
	}
	match := func(col, v string, part bool) {
		if v == "" {
			return
		}
		if !part && !strings.Contains(v, "*") {
			conds = append(conds, col+" = ?")
			args = append(args, v)
			return
		}
		pat := strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(v)
		pat = strings.ReplaceAll(pat, "*", "%")
		if part {
			pat = "%" + pat + "%"
		}
		// A pattern asks for a value: s3_server=* is the runs that had an
		// S3 server, not also those that recorded none (fio's, md's).
		conds = append(conds, col+` <> '' AND `+col+` LIKE ? ESCAPE '\'`)
		args = append(args, pat)
	}
	match("r.run_id", q.ID, false)
	match("r.name", q.Name, false)
	match("r.status", q.Status, false)
	match("r.kernel", q.Kernel, false)
	match("r.fs_type", q.FSType, false)
	match("r.mount_options", q.Mount, true)
	match("r.devices", q.Device, true)
	match("r.s3_endpoint", q.S3Endpoint, false)
	match("r.s3_server", q.S3Server, false)
	match("r.storbench", q.Storbench, false)
	match("r.fio", q.Fio, false)
	if q.S3Works != "" {
		conds = append(conds, "EXISTS (SELECT 1 FROM sb_s3_features f WHERE f.run_id = r.run_id AND f.feature = ? AND f.result = ?)")
		args = append(args, q.S3Works, model.FeatureWorks)
	}
	if q.Hosts > 0 {
		conds = append(conds, "r.hosts = ?")
		args = append(args, q.Hosts)
	}
	if !q.Since.IsZero() {
		conds = append(conds, "r.started_ns >= ?")
		args = append(args, q.Since.UnixNano())
	}
	if !q.Until.IsZero() {
		conds = append(conds, "r.started_ns < ?")
		args = append(args, q.Until.UnixNano())
	}
	return strings.Join(conds, " AND "), args
}

const runColumns = `r.run_id, r.name, r.status, r.finished, r.started_ns, r.ended_ns, r.storbench, r.fio, r.command, r.path,
	r.kernel, r.fs_type, r.mount_options, r.devices, r.s3_endpoint, r.s3_server, r.hosts`

// Runs lists the runs a query matches, oldest first, with their labels.
func (c *Catalog) Runs(ctx context.Context, q Query) ([]Run, error) {
	p, err := c.plan(ctx, q)
	if err != nil {
		return nil, err
	}
	cond, args := q.where(p.Drive)
	query := `SELECT ` + runColumns + ` FROM ` + c.from(p) + ` WHERE ` + cond + ` ORDER BY r.started_ns DESC, r.run_id DESC`
	if q.Last > 0 {
		query += ` LIMIT ` + strconv.Itoa(q.Last)
	}
	rows, err := c.db.QueryContext(ctx, c.q(query), args...)
	if err != nil {
		return nil, c.writeErr(err)
	}
	defer rows.Close()
	var out []Run
	byID := map[string]int{}
	for rows.Next() {
		var r Run
		var fin int
		var start, end int64
		var cmd string
		if err := rows.Scan(&r.RunID, &r.Name, &r.Status, &fin, &start, &end, &r.Storbench, &r.Fio, &cmd, &r.Path,
			&r.Kernel, &r.FSType, &r.MountOptions, &r.Devices, &r.S3Endpoint, &r.S3Server, &r.Hosts); err != nil {
			return nil, c.writeErr(err)
		}
		r.Finished, r.StartedAt, r.EndedAt = fin != 0, fromNs(start), fromNs(end)
		_ = json.Unmarshal([]byte(cmd), &r.Command)
		byID[r.RunID] = len(out)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, c.writeErr(err)
	}
	rows.Close()
	slices.Reverse(out)
	for i := range out {
		byID[out[i].RunID] = i
	}
	if err := c.labelsOf(ctx, out, byID); err != nil {
		return nil, err
	}
	return out, c.s3FeaturesOf(ctx, out, byID)
}

// s3FeaturesOf fills what probes found of the runs' S3 endpoints, in
// batches of the run ids that name an endpoint.
func (c *Catalog) s3FeaturesOf(ctx context.Context, runs []Run, byID map[string]int) error {
	var ids []any
	for _, r := range runs {
		if r.S3Endpoint != "" {
			ids = append(ids, r.RunID)
		}
	}
	const batch = 500
	for start := 0; start < len(ids); start += batch {
		part := ids[start:min(start+batch, len(ids))]
		in := strings.TrimSuffix(strings.Repeat("?, ", len(part)), ", ")
		rows, err := c.db.QueryContext(ctx, c.q(`SELECT run_id, feature, result FROM sb_s3_features WHERE run_id IN (`+in+`)`), part...)
		if err != nil {
			return c.writeErr(err)
		}
		for rows.Next() {
			var id, f, res string
			if err := rows.Scan(&id, &f, &res); err != nil {
				rows.Close()
				return c.writeErr(err)
			}
			r := &runs[byID[id]]
			if r.S3Features == nil {
				r.S3Features = map[string]string{}
			}
			r.S3Features[f] = res
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return c.writeErr(err)
		}
	}
	return nil
}

// labelsOf fills the labels of runs, in batches of run ids, or for many
// runs in one pass over every label.
func (c *Catalog) labelsOf(ctx context.Context, runs []Run, byID map[string]int) error {
	const batch = 500
	if len(runs) > 10*batch {
		return c.allLabels(ctx, runs, byID)
	}
	for start := 0; start < len(runs); start += batch {
		part := runs[start:min(start+batch, len(runs))]
		args := make([]any, len(part))
		for i, r := range part {
			args[i] = r.RunID
		}
		in := strings.TrimSuffix(strings.Repeat("?, ", len(part)), ", ")
		rows, err := c.db.QueryContext(ctx, c.q(`SELECT run_id, key, value FROM sb_labels WHERE run_id IN (`+in+`)`), args...)
		if err != nil {
			return c.writeErr(err)
		}
		for rows.Next() {
			var id, k, v string
			if err := rows.Scan(&id, &k, &v); err != nil {
				rows.Close()
				return c.writeErr(err)
			}
			r := &runs[byID[id]]
			if r.Labels == nil {
				r.Labels = map[string]string{}
			}
			r.Labels[k] = v
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return c.writeErr(err)
		}
	}
	return nil
}

// allLabels reads every label once and keeps those of runs.
func (c *Catalog) allLabels(ctx context.Context, runs []Run, byID map[string]int) error {
	rows, err := c.db.QueryContext(ctx, `SELECT run_id, key, value FROM sb_labels`)
	if err != nil {
		return c.writeErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, k, v string
		if err := rows.Scan(&id, &k, &v); err != nil {
			return c.writeErr(err)
		}
		i, ok := byID[id]
		if !ok {
			continue
		}
		if runs[i].Labels == nil {
			runs[i].Labels = map[string]string{}
		}
		runs[i].Labels[k] = v
	}
	return c.writeErr(rows.Err())
}
