package s3

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
)

var (
	_ engine.PlanChecker = Engine{}
)

// CheckPlan refuses, on this machine (env.Local), an s3 phase's --bind
// address that is not one of the machine's, and its benchdata file that
// cannot be created: its directory missing, or the file already there
// (storbench writes only files it creates).
func (Engine) CheckPlan(_ context.Context, env engine.CheckEnv, phases []engine.Phase) error {
	if !env.Local {
		return nil
	}
	for _, ph := range phases {
		if ph.Engine != model.EngineS3 {
			continue
		}
		p, err := phaseParams(ph)
		if err != nil {
			continue // Validate names what is wrong
		}
		if p.Bind != "" {
			// The workers are this process's: their addresses are
			// checked before a results folder is made.
			if err := CheckBind(p.Bind); err != nil {
				return err
			}
		}
		if p.BenchData == "" {
			continue
		}
		if fi, err := os.Stat(filepath.Dir(p.BenchData)); err != nil || !fi.IsDir() {
			return fmt.Errorf("--benchdata %s: directory %s does not exist", p.BenchData, filepath.Dir(p.BenchData))
		}
		if _, err := os.Lstat(p.BenchData); err == nil {
			return fmt.Errorf("--benchdata %s: the file exists; give a new file name (storbench writes only files it creates)", p.BenchData)
		}
	}
	return nil
}

// LogRequestsIn points the phase's benchdata file into dir.
func (pl plan) LogRequestsIn(dir string) (engine.Phase, error) {
	ph := pl.phase
	var m map[string]any
	if err := json.Unmarshal(ph.Params, &m); err != nil {
		return ph, err
	}
	m["benchdata"] = filepath.Join(dir, "benchdata.tsv.zst")
	b, err := json.Marshal(m)
	if err != nil {
		return ph, err
	}
	ph.Params = b
	return ph, nil
}

// phaseParams are p's settings, decoded. Hosts is clipped: resolve
// appends host to it, which must not write into the array a plan keeps.
func phaseParams(p engine.Phase) (Params, error) {
	ps, err := DecodeParams(p.Params)
	ps.Hosts = slices.Clip(ps.Hosts)
	return ps, err
}

// OwnKeys says the phase carries both keys (a suite's s3 block).
func (pl plan) OwnKeys() bool { return pl.ps.AccessKey != "" && pl.ps.SecretKey != "" }

// endpoint is how s3 phases name their endpoint: host or hosts; the
// stand-in resolves nowhere (.invalid).
var endpoint = &engine.Endpoint{
	Keys:            []string{"host", "hosts"},
	Placeholder:     map[string]any{"host": "endpoint.invalid:9000"},
	Planned:         "s3 phases have no S3 endpoint yet: set STORBENCH_HOST or host: in the suite's s3 block before running",
	Skipped:         "s3 phase skipped: no S3 endpoint (set STORBENCH_HOST and keys, or s3: host: in the suite)",
	FromEnvironment: "set " + envS3Host + " (or " + envAWSEndpointS3 + ")",
}

// Endpoint is the phase's first endpoint, as host:port (a key pair
// written before it, KEY:SECRET@host, left out), and how it is spoken to.
func (pl plan) Endpoint() (model.Endpoint, bool) {
	h := pl.ps.Host
	if len(pl.ps.Hosts) > 0 {
		h = pl.ps.Hosts[0]
	}
	h, _, _ = strings.Cut(h, ",")
	h = strings.TrimSpace(h)
	if i := strings.LastIndex(h, "@"); i >= 0 {
		h = h[i+1:]
	}
	if h == "" {
		return model.Endpoint{}, false
	}
	return model.Endpoint{Host: h, TLS: pl.ps.TLS != nil && *pl.ps.TLS, Insecure: pl.ps.Insecure}, true
}

// CheckResources refuses a plan whose objects need more memory than this
// machine has.
func (pl plan) CheckResources() (string, error) { return "", CheckPlanMemory(pl.phase) }

// MatchOps takes the requests an s3 phase records: those of its benchmark
// (GET for get), or of any benchmark when its op is none (Check names
// what is wrong with it).
func (pl plan) MatchOps() func(string) bool {
	ops := Ops
	if op := strings.ToLower(strings.TrimSpace(pl.ps.Op)); slices.Contains(Ops, op) {
		ops = []string{op}
	}
	var names []string
	for _, op := range ops {
		names = append(names, opNames(op)...)
	}
	return func(op string) bool { return slices.Contains(names, op) }
}

// OpNames are the requests an s3 phase's benchmark records (GET for
// get); nil when its settings cannot be read (Validate says why).
func (pl plan) OpNames() []string {
	op := strings.ToLower(strings.TrimSpace(pl.ps.Op))
	if !slices.Contains(Ops, op) {
		return nil
	}
	return opNames(op)
}
