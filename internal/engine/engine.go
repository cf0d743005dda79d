// Package engine defines the contract between the controller and the things
// that generate load (fio, md, s3), and the Registry through which the rest
// of storbench finds them by name. The list of engines itself is explicit
// (internal/engine/all), never filled in by importing an engine.
//
// An engine is given a phase, prepares what it needs under its own namespace,
// waits for a common start time, runs until its duration, op count or stop
// signal, records every operation, and cleans up only what it created.
// Engines never print: they report through live snapshots and their result.
package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
)

// Phase is one unit of work sent to every agent (model.Phase: run.json's
// plan records it).
type Phase = model.Phase

// Env is what an agent tells an engine about where it runs.
type Env struct {
	// Host is this agent's name in results and in per-host paths.
	Host string
	// RunID names the run; every file or object an engine creates lives under
	// a path or prefix that contains it.
	RunID string
	// Keep leaves created files and objects in place after the phase.
	Keep bool
	// AllowExec lets fio job files use options that run commands.
	AllowExec bool
	// Tools are where this agent's outside tools are (Info.Tool); they
	// never come from the network.
	Tools Tools
	// Secrets are the values of the secret variables the engines declare
	// (Info.Environment), by name: on an agent its own, or those its
	// launcher carried from the controller. An engine takes the names it
	// declared (s3: the keys for phases that carry none of their own).
	Secrets Secrets
	// Hosts is how many hosts run the phase (0 or 1: this one alone) and
	// Rank this host's place among them, from 0, the same on every host.
	Hosts, Rank int
	// Next is the name of the host of the next rank, (Rank+1) mod Hosts,
	// when several run the phase (empty on one host): a host that reads
	// what its neighbour wrote (fio's read_from: neighbour, as mdtest -N
	// and IOR -C shift by one) finds it under that host's name. One name,
	// not every host's: each host's prepare carried all of them, 120 KB
	// each among 10,000 hosts, 1.2 GB a phase.
	Next string
	// Barrier, set when several hosts run the phase, makes them meet
	// between the stages of a phase; nil when this host runs it alone.
	Barrier Barrier
	// CPUs is how many workers a phase that asks for one per CPU starts
	// on this agent: under Slurm the task's CPUs (SLURM_CPUS_PER_TASK,
	// else 1), as a task of an MPI job runs one rank; 0 means the CPUs
	// the process may run on.
	CPUs int
	// AwaitRemovals, when set, waits until this host's removals of earlier
	// phases' files, going on in the background, have ended. An engine
	// whose files do not fit the free space calls it and looks again:
	// space still being freed counts as free only once it is.
	AwaitRemovals func(ctx context.Context) `json:"-"`
}

// Barrier lets the hosts of a phase wait for each other, as MPI_Barrier lets
// mdtest's ranks: every host arrives under the same name, and when all have
// arrived (or left the phase), each learns one common start, a short lead
// ahead, and what every host brought. An engine calls Wait between stages,
// never inside measured time, and begins the next stage at Start.
type Barrier interface {
	// Wait arrives at the barrier called name with this host's payload and
	// blocks until it opens, ctx ends, or the phase can no longer meet (the
	// controller is gone): then it returns an error and the engine stops.
	// Names must be unique within the phase and called in the same order on
	// every host. A host whose run ends no longer counts: the others are
	// released without it.
	Wait(ctx context.Context, name string, data []byte) (Release, error)
}

// Release is what every host learns when a barrier opens.
type Release struct {
	// Start is when every host begins what follows, in this host's clock
	// (the controller converts it with each host's measured clock offset).
	Start time.Time
	// Hosts holds every host's arrival, by rank.
	Hosts []Arrival
}

// Arrival is one host at a barrier.
type Arrival struct {
	Host string `json:"host"`
	// Data is what the host brought to the barrier (an engine's own
	// encoding: items done per rank, say).
	Data []byte `json:"data,omitempty"`
	// Left says the host left the phase (lost, failed or stopped) before
	// it arrived; Data is then empty.
	Left bool `json:"left,omitempty"`
}

// Snapshot is the live state of a phase on one host, sent about once a second.
type Snapshot struct {
	Host  string `json:"host"`
	Phase string `json:"phase"`
	// Stage is what the engine is doing now: "prepare", "run", "create", ...
	Stage string `json:"stage"`
	// Elapsed and Planned are the time run so far and the planned total
	// (0 when the engine cannot tell).
	Elapsed time.Duration `json:"elapsed"`
	Planned time.Duration `json:"planned"`
	// Ops are cumulative counts per operation since the phase started.
	Ops []record.Count `json:"ops"`
	// Lat is each operation's latency since the phase started, cumulative
	// and in Prometheus' native buckets (record.LiveLat: about 32 buckets
	// of 12 bytes for every doubling of latency, 1 to 3 KB per operation),
	// absent until some was collected. On the native engines it trails Ops
	// by up to a second: a worker hands its second's latencies over at its
	// next operation, never waiting for the sampler.
	Lat []record.LiveLat `json:"lat,omitempty"`
}

// Starting is the snapshot an engine sends as its run begins, before the
// common start: every operation at zero, so live counters start from zero
// and a rate over the phase sees all of it.
func Starting(host, phase string, ops []string, planned time.Duration) Snapshot {
	s := Snapshot{Host: host, Phase: phase, Stage: "start", Planned: planned, Ops: make([]record.Count, len(ops))}
	for i, op := range ops {
		s.Ops[i].Op = op
	}
	return s
}

// LiveFunc receives snapshots. It must not block for long.
type LiveFunc func(Snapshot)

// HostResult is everything one host measured in one phase; it is a
// persisted type and lives in model.
type HostResult = model.HostResult

// Unreachable is the time one host could not reach one endpoint.
type Unreachable = model.Unreachable

// Engine creates prepared phases. Info is what it is for every phase; Plan
// decodes one phase's settings, once, into the engine's typed plan, which
// answers what the spine asks of that phase.
type Engine interface {
	Info() Info
	Plan(p Phase) (Plan, error)
	// Prepare checks the phase's parameters and lays out what it needs
	// (directories, files, objects). A prepared phase must be cleaned up.
	Prepare(ctx context.Context, env Env, p Phase) (Prepared, error)
}

// Prepared is a phase ready to start.
type Prepared interface {
	// Run waits until startAt, runs the phase, and returns what was measured.
	// Cancelling ctx stops the load; Run then returns what it has, with an
	// error made by Interrupted.
	Run(ctx context.Context, startAt time.Time, live LiveFunc) (*HostResult, error)
	// Cleanup removes what Prepare and Run created, unless the env said Keep.
	Cleanup(ctx context.Context) error
}

// WaitUntil sleeps until t or until ctx ends, whichever is first.
func WaitUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// DecodeStrict decodes a phase's params into v, refusing unknown keys, so a
// typo in a suite fails instead of being ignored. A value that does not
// decode is named by its key ("obj_mean: invalid size ..."): encoding/json
// leaves the key out when a type's own UnmarshalJSON refuses the value.
func DecodeStrict(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	// encoding/json says "cannot unmarshal string into Go struct field
	// Params.objects of type int": said in the suite's words instead.
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		key := te.Field[strings.LastIndex(te.Field, ".")+1:]
		var obj map[string]json.RawMessage
		_ = json.Unmarshal(raw, &obj)
		return fmt.Errorf("%s: %s: want %s", key, shortJSON(obj[key]), wantOf(te.Type))
	}
	if key := refusedKey(raw, v); key != "" && !strings.HasPrefix(err.Error(), key+":") {
		return fmt.Errorf("%s: %w", key, err)
	}
	return err
}

// shortJSON is a value as an error quotes it, cut when long.
func shortJSON(v json.RawMessage) string {
	s := string(bytes.TrimSpace(v))
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

// wantOf says what a value of type t is, in a suite writer's words.
func wantOf(t reflect.Type) string {
	if t == nil {
		return "another kind of value"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list"
	default:
		return "a mapping of keys to values"
	}
}

// refusedKey returns the first key (in name order) of the object raw whose
// value alone does not decode into a new value of v's type, or "".
func refusedKey(raw json.RawMessage, v any) string {
	var obj map[string]json.RawMessage
	t := reflect.TypeOf(v)
	if json.Unmarshal(raw, &obj) != nil || t == nil || t.Kind() != reflect.Pointer {
		return ""
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		one, err := json.Marshal(map[string]json.RawMessage{k: obj[k]})
		if err == nil && json.Unmarshal(one, reflect.New(t.Elem()).Interface()) != nil {
			return k
		}
	}
	return ""
}

// JSONKeys lists the JSON names of a struct's fields (and of its embedded
// structs' fields), for engines listing their Params in Info.ParamKeys.
func JSONKeys(v any) []string {
	var out []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			name, _, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				walk(f.Type)
				continue
			}
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			out = append(out, name)
		}
	}
	walk(reflect.TypeOf(v))
	sort.Strings(out)
	return out
}
