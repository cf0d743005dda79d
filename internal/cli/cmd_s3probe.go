package cli

import (
	"context"
	"encoding/json"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/report"
)

// newS3ProbeCommand is `storbench s3 probe`: which of the S3 features
// storbench uses the server takes.
func newS3ProbeCommand(st *State) *cobra.Command {
	var o S3Options
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "probe",
		Short: "Say which S3 features the server takes, each tried with one small request and removed",
		Long: `Tries, on the first endpoint, each S3 feature storbench's benchmarks use,
with one small request each, and says what it did: works, refused (the
server answered with an error), ignored (taken without doing it: an
upload's encryption, storage class or checksum that does not read back),
fails (answered wrongly) or not tried. The features: list v2 and v1, user
metadata in listings (MinIO's extension), multipart, conditional writes
(If-None-Match), SSE-S3 and SSE-C (HTTPS only), a storage class other than
STANDARD, each checksum --checksum takes in the two forms storbench sends
(in a trailer: single PUTs and PUTs in parts; in a part's header:
multipart-put), versioning, and object lock. Everything is tried in
buckets of the probe's own (storbench-probe-*), removed afterwards with
all they hold. Any s3 benchmark takes --probe to do the same first.`,
		Example: `  storbench s3 probe --host s3.example:7480
  storbench s3 probe --host s3.example:443 --tls --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runS3Probe(cmd.Context(), st, o, asJSON, cmd.Flags())
		},
	}
	o.addServerFlags(cmd.Flags(), st.Engines.Info(model.EngineS3).Flags)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was found as JSON")
	return cmd
}

// runS3Probe runs `storbench s3 probe`.
func runS3Probe(ctx context.Context, st *State, o S3Options, asJSON bool, fs *pflag.FlagSet) error {
	env, err := st.environment()
	if err != nil {
		return err
	}
	p := o.serverParams(fs, "", st.Engines.Info(model.EngineS3).Flags)
	secrets, err := o.target(env, p, false)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return err
	}
	probe, err := probeS3(ctx, st, engine.Phase{Name: "s3-probe", Engine: model.EngineS3, Params: raw}, secrets)
	if probe != nil {
		var perr error
		if asJSON {
			perr = printJSONValue(st.Stdout, probe)
		} else {
			perr = report.ProbeText(st.Stdout, probe)
		}
		if err == nil {
			err = perr
		}
	}
	return err
}

// probeS3 probes the server phase ph names, with secrets' keys, through its
// engine (engine.Plan.Probe). A server that cannot be probed at all (no
// answer, keys refused, bad settings) is bad input; a probe that could
// not remove all it made returns what it found with that error (a
// failure).
func probeS3(ctx context.Context, st *State, ph engine.Phase, secrets engine.Secrets) (*model.Probe, error) {
	probe, ok, err := st.Engines.Probe(ctx, engine.Env{Host: "probe", Secrets: secrets}, ph)
	switch {
	case !ok:
		return nil, usageErr("the %s engine cannot probe a server", ph.Engine)
	case ctx.Err() != nil:
		return nil, interrupted()
	case probe == nil && err != nil:
		return nil, asUsage(err)
	}
	return probe, err
}
