package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/report"
	"github.com/storbench/storbench/internal/run"
	"github.com/storbench/storbench/internal/suite"
	"github.com/storbench/storbench/internal/units"
)

// S3Options are the flags of `storbench s3 OP`, named as warp names them.
type S3Options struct {
	Host             string `setting:"host"`
	AccessKey        string `setting:"access_key"`
	SecretKey        string `setting:"secret_key"`
	Region           string `setting:"region"`
	Bucket           string `setting:"bucket"`
	Lookup           string `setting:"lookup"`
	TLS              bool   `setting:"tls"`
	Insecure         bool   `setting:"insecure"`
	CACert           string `setting:"ca_cert"`
	Concurrent       int    `setting:"concurrent"`
	ObjSize          string `setting:"obj_size"`
	ObjRandSize      bool   `setting:"obj_randsize"`
	Objects          int    `setting:"objects"`
	Range            bool   `setting:"range"`
	NoPrefix         bool   `setting:"noprefix"`
	NoClear          bool   `setting:"noclear"`
	HostSelect       string `setting:"host_select"`
	HostLimit        int    `setting:"host_limit"`
	MD5              bool   `setting:"md5"`
	Checksum         string `setting:"checksum"`
	Encrypt          bool   `setting:"encrypt"`
	SignPayload      bool   `setting:"sign_payload"`
	BenchData        string `setting:"benchdata"`
	SyncStart        string
	Full             bool
	Duration         string  `setting:"duration"`
	RequestTimeout   string  `setting:"request_timeout"`
	Grace            string  `setting:"grace"`
	AutoTerm         bool    `setting:"autoterm"`
	AutoTermPct      float64 `setting:"autoterm_pct"`
	AutoTermDur      string  `setting:"autoterm_dur"`
	Rate             float64 `setting:"rate"`
	GetDistrib       float64 `setting:"get_distrib"`
	StatDistrib      float64 `setting:"stat_distrib"`
	PutDistrib       float64 `setting:"put_distrib"`
	DelDistrib       float64 `setting:"delete_distrib"`
	Batch            int     `setting:"batch"`
	Parts            int     `setting:"parts"`
	PartConcurrency  int     `setting:"part_concurrency"`
	PartSize         string  `setting:"part_size"`
	ObjDist          string  `setting:"obj_dist"`
	ObjMean          string  `setting:"obj_mean"`
	ObjSD            string  `setting:"obj_sd"`
	RangeSize        string  `setting:"range_size"`
	Bind             string  `setting:"bind"`
	Verify           bool    `setting:"verify"`
	SSES3            bool    `setting:"sse_s3_encrypt"`
	DisableMultipart bool    `setting:"disable_multipart"`
	Metadata         bool    `setting:"metadata"`
	StorageClass     string  `setting:"storage_class"`
	SSEKMS           string  `setting:"sse_kms"`
	AddMetadata      []string
	Tag              []string
	Versions         int `setting:"versions"`
	MaxKeys          int `setting:"max_keys"`
	Results          string
	Keep             bool
	SDK              bool   `setting:"sdk"`
	ListExisting     bool   `setting:"list_existing"`
	Prefix           string `setting:"prefix"`
	Probe            bool
	Scale            string
	Agents           AgentsOptions
	// Watch says how the run is watched and what it prints.
	Watch WatchOptions
}

// AddFlags registers the flags for op: the s3 engine's settings as it
// declares them for op (flags: Info.Flags; settingFlags: mixed and
// versioned get the distributions, multipart the part settings, delete
// the batch), then the command's own.
func (o *S3Options) AddFlags(f *pflag.FlagSet, op string, flags []engine.Flag) {
	settingFlags(f, o, flags, op, nil)
	f.StringArrayVar(&o.AddMetadata, "add-metadata", nil, "user metadata KEY=VALUE on every upload (repeat the flag for more)")
	f.StringArrayVar(&o.Tag, "tag", nil, "object tag KEY=VALUE on every upload (repeat the flag for more, up to 10)")
	f.BoolVar(&o.Full, "full", false, "keep every request in benchdata.tsv.zst in the results folder (storbench analyze reads it)")
	f.StringVar(&o.SyncStart, "syncstart", "", "start at this local time, hh:mm (for runs started by hand on several clients)")
	scaleFlag(f, &o.Scale, "concurrent")
	f.BoolVar(&o.Probe, "probe", false, "first try which S3 features the server takes, each with one small request (as storbench s3 probe), and print them; the run's fingerprint (run.json, the catalog) keeps them")
	f.StringVar(&o.Results, "results", "results", "folder that receives the results folder")
	f.BoolVar(&o.Keep, "keep", false, "keep created objects (same as --noclear)")
}

// serverSettings are the settings that say where the server is, with
// which keys and how to reach it: what s3 probe takes.
var serverSettings = []string{"host", "access_key", "secret_key", "tls", "insecure", "ca_cert", "region", "lookup"}

// addServerFlags registers the flags of the server's settings.
func (o *S3Options) addServerFlags(f *pflag.FlagSet, flags []engine.Flag) {
	settingFlags(f, o, flags, "", nil, serverSettings...)
}

var s3Short = map[string]string{
	"get":           "Upload --objects objects, then GET random ones for --duration",
	"put":           "PUT objects of --obj.size for --duration",
	"delete":        "Upload --objects objects, then DELETE them in batches of --batch",
	"list":          "Upload --objects objects under one prefix per worker, then LIST them",
	"stat":          "Upload --objects objects, then HEAD random ones",
	"mixed":         "GET, STAT, PUT and DELETE on a pool of objects, by --*-distrib weights",
	"multipart":     "Multipart uploads of --parts parts of --part.size, --part.concurrent at a time",
	"multipart-put": "warp's multipart-put: uploads of --parts parts, --part.concurrent at a time, per part (PUTPART) and per object (UPLOAD)",
	"versioned":     "Like mixed, on object versions (the bucket must have versioning)",
	"retention":     "Upload --objects objects in --versions versions with object lock retention, then read (GETRETENTION) and update (RETENTION) retentions",
}

func newS3Command(st *State) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "s3 get|put|delete|list|stat|mixed|multipart|multipart-put|versioned|retention",
		Short: "Native S3 benchmark (warp's benchmarks, on minio-go)",
		Long: `Runs one of warp's S3 benchmarks: prepare objects, run for --duration (or
until --autoterm), clean up. Objects live under storbench/<run id>/ in the
bucket; only those are deleted, and the bucket only if storbench created it and
it is empty. Prints average MiB/s and obj/s, the fastest, median and slowest
second, and request and first-byte latency percentiles from merged histograms.

storbench s3 probe says which of the S3 features storbench uses the
server takes, each tried with one small request; --probe on a benchmark
does the same first.

With --list-existing, get, stat, list and mixed (reads only) run on the
objects already in --bucket under --prefix, listed once: nothing is uploaded,
written or deleted.

` + wrapHelp("Keys come from --access-key/--secret-key, "+st.Engines.Info(model.EngineS3).SecretsFrom+
			", in that order. Over HTTPS (--tls, or an https:// AWS endpoint URL) requests take the same lean path as over HTTP."),
		Example: `  storbench s3 get --host 10.0.0.{1...4}:9000 --obj.size 4KiB --concurrent 16 --duration 30s
  storbench s3 mixed --host s3:9000 --autoterm   # keys from the environment or the AWS profile
  storbench s3 put --host s3:9000 --obj.size 64KiB --rate 500 --benchdata put.tsv.zst
  storbench s3 get --bucket data --list-existing --prefix images/ --duration 1m`,
		// Only a benchmark name may follow "s3": anything else is an unknown
		// benchmark, named as such, not a complaint about the flags after it.
		Args:               cobra.ArbitraryArgs,
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			ops := st.Engines.Operations(model.EngineS3)
			known := strings.Join(ops, ", ")
			if len(args) == 0 {
				return usageErr("name a benchmark: storbench s3 %s (see 'storbench s3 --help')", strings.Join(ops, "|"))
			}
			msg := fmt.Sprintf("unknown benchmark %q (known: %s)", args[0], known)
			if s := suite.Suggest(args[0], ops); s != "" {
				msg = fmt.Sprintf("unknown benchmark %q (did you mean %q? known: %s)", args[0], s, known)
			}
			return usageErr("%s", msg)
		},
	}
	for _, op := range st.Engines.Operations(model.EngineS3) {
		var o S3Options
		sub := &cobra.Command{
			Use:   op,
			Short: s3Short[op],
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				_, err := runS3(cmd.Context(), st, op, o, cmd.Flags())
				return err
			},
		}
		o.AddFlags(sub.Flags(), op, st.Engines.Info(model.EngineS3).Flags)
		o.Agents.AddFlags(sub.Flags())
		o.Watch.AddFlags(sub.Flags())
		cmd.AddCommand(sub)
	}
	cmd.AddCommand(newS3ProbeCommand(st))
	return cmd
}

// runS3 runs `storbench s3 OP`. The keys travel in the plan, typed as
// secrets, never in the phase, so run.json cannot hold them.
func runS3(ctx context.Context, st *State, op string, o S3Options, fs *pflag.FlagSet) (*run.Result, error) {
	env, err := st.environment()
	if err != nil {
		return nil, err
	}
	// Durations are read here with their flag's name (the engine names
	// its settings by the suite's keys).
	for flag, v := range map[string]string{"duration": o.Duration, "autoterm.dur": o.AutoTermDur, "request-timeout": o.RequestTimeout, "grace": o.Grace} {
		if fs.Changed(flag) {
			if _, err := units.ParseDuration(v); err != nil {
				return nil, usageErr("--%s: %v", flag, err)
			}
		}
	}
	p := o.params(op, fs, st.Engines.Info(model.EngineS3).Flags)
	if err := o.keyValues(p); err != nil {
		return nil, err
	}
	// Agents on other machines use their own keys (storbench agent
	// --help); a probe is made here, with keys from here.
	secrets, err := o.target(env, p, o.Agents.remote() && !o.Probe)
	if err != nil {
		return nil, err
	}
	phases, labels, err := o.phases(st, op, p)
	if err != nil {
		return nil, err
	}
	ph := phases[0]
	var startAt time.Time
	if o.SyncStart != "" {
		if startAt, err = syncStart(o.SyncStart, st.Now()); err != nil {
			return nil, usageErr("--syncstart: %v", err)
		}
		// Objects are prepared first; the measured stage starts at hh:mm.
		fmt.Fprintf(o.Watch.textState(st).Stdout, "the measured stage starts at %s\n", startAt.Format("15:04:05"))
	}
	if o.Full && o.BenchData != "" {
		return nil, usageErr("--full and --benchdata both name where requests go: give one")
	}
	agents, err := o.Agents.runAgents(st, nil)
	if err != nil {
		return nil, err
	}
	plan := run.Plan{
		Name: "s3-" + op, Phases: phases, Labels: labels, ResultsRoot: o.Results, Keep: o.Keep || o.NoClear,
		Agents: agents, MaxErrorShare: o.Agents.MaxErrorShare, Secrets: secrets,
		Settings: maps.Clone(p), StartAt: startAt, BenchdataInFolder: o.Full,
	}
	if o.Probe {
		// The run's first lines; its fingerprint keeps what was found.
		probe, err := probeS3(ctx, st, ph, secrets)
		if probe != nil {
			_ = report.ProbeText(o.Watch.textState(st).Stdout, probe)
			plan.Fingerprint = &model.Fingerprint{Probe: probe}
		}
		if err != nil {
			return nil, err
		}
	}
	return runPlan(ctx, st, o.Watch, plan)
}

// phases are the benchmark's phase, or with --scale one per step, each
// checked by the engine.
func (o S3Options) phases(st *State, op string, p map[string]any) ([]engine.Phase, []suite.Labels, error) {
	build := func(p map[string]any) ([]engine.Phase, error) {
		raw, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		ph := engine.Phase{Name: "s3-" + op, Engine: model.EngineS3, Params: raw}
		return []engine.Phase{ph}, asUsage(st.Engines.Validate(ph))
	}
	if o.Scale == "" {
		phases, err := build(p)
		return phases, nil, err
	}
	return scalePhases(st, model.EngineS3, o.Scale, "s3-"+op, p, build)
}

// target completes the settings p of an s3 command with the
// environment's endpoint and TLS settings, checks them, and returns the
// secrets with the keys: bad input without an endpoint, or without keys
// unless agents elsewhere bring their own (remoteKeys). The keys the
// flags give are the engine's settings while it completes them from the
// environment, and then travel as secrets, never in the phase.
func (o S3Options) target(env environment, p map[string]any, remoteKeys bool) (engine.Secrets, error) {
	applied, err := env.apply(model.EngineS3, p)
	for _, k := range env.engines.Info(model.EngineS3).Secrets {
		delete(p, k)
	}
	if err != nil {
		return nil, err
	}
	if ep, ok := env.engines.Endpointed(model.EngineS3); ok && !ep.HasEndpoint(p) {
		return nil, usageErr("no S3 endpoint: give --host or %s", ep.FromEnvironment)
	}
	if applied.SecretsErr != nil {
		return nil, asUsage(applied.SecretsErr)
	}
	if applied.Secrets.Empty() && !remoteKeys {
		return nil, usageErr("no credentials: give --access-key and --secret-key, or %s", applied.Missing)
	}
	return applied.Secrets, nil
}

// params turns the flags given for op into the s3 engine's settings, by
// the keys the engine declares (changedSettings): what was left out
// stays out, for the environment or the engine's default.
func (o S3Options) params(op string, fs *pflag.FlagSet, flags []engine.Flag) map[string]any {
	p := o.serverParams(fs, op, flags)
	p["op"] = op
	return p
}

// serverParams turns the flags given (for benchmark op; "" for s3 probe,
// whose flags are the server's: addServerFlags) into the s3 engine's
// settings, the keys among them while the environment completes them
// (target).
func (o S3Options) serverParams(fs *pflag.FlagSet, op string, flags []engine.Flag) map[string]any {
	p := map[string]any{}
	changedSettings(fs, &o, p, flags, op)
	return p
}

// keyValues adds --add-metadata and --tag (KEY=VALUE, each key once) to
// the s3 engine's settings.
func (o S3Options) keyValues(p map[string]any) error {
	for _, kv := range []struct {
		key, flag string
		vals      []string
	}{{"add_metadata", "add-metadata", o.AddMetadata}, {"tag", "tag", o.Tag}} {
		if len(kv.vals) == 0 {
			continue
		}
		m := map[string]string{}
		for _, v := range kv.vals {
			k, val, ok := strings.Cut(v, "=")
			if !ok || k == "" {
				return usageErr("--%s %q: want KEY=VALUE", kv.flag, v)
			}
			if _, dup := m[k]; dup {
				return usageErr("--%s: key %q given twice", kv.flag, k)
			}
			m[k] = val
		}
		p[kv.key] = m
	}
	return nil
}

// syncAhead is how near tomorrow's hh:mm must be for an hh:mm that has
// passed today to be read as tomorrow's: clients started by hand just
// before midnight for a start just after it. Any other time that has
// passed is refused (a typo, or a command started late), never a wait of
// most of a day.
const syncAhead = time.Hour

// syncStart reads hh:mm as today's local time, or tomorrow's when that
// comes within syncAhead; a time that has passed otherwise is refused,
// naming the time now.
func syncStart(s string, now time.Time) (time.Time, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 2 {
		return time.Time{}, fmt.Errorf("%q: want hh:mm", s)
	}
	h, err1 := strconv.Atoi(parts[0])
	m, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil || h < 0 || h > 23 || m < 0 || m > 59 {
		return time.Time{}, fmt.Errorf("%q: want hh:mm in 24h local time", s)
	}
	at := time.Date(now.Year(), now.Month(), now.Day(), h, m, 0, 0, now.Location())
	if !at.After(now) {
		if next := at.AddDate(0, 0, 1); next.Sub(now) <= syncAhead {
			return next, nil
		}
		return time.Time{}, fmt.Errorf("%s has passed today (it is %s now): give a time to come (tomorrow's only within %v before it)", s, now.Format("15:04"), syncAhead)
	}
	return at, nil
}
