package cli

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/infile"
	"github.com/storbench/storbench/internal/metrics"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/secret"
)

// AgentServeOptions are the flags of `storbench agent`.
type AgentServeOptions struct {
	Listen    string
	TokenFile string
	TLSCert   string
	TLSKey    string
	TLSCA     string
	// Tools are where the outside tools are (--tool, --fio-bin).
	Tools     engine.Tools
	AllowExec bool
	// AllowEvents runs the commands of a suite's events that name this
	// host, with the agent's rights.
	AllowEvents bool
	// CredentialsFile holds NAME=VALUE lines of the engines' secret
	// variables (s3's keys), for their phases (--credentials-file).
	CredentialsFile string
	// oldCredentialsFile is --s3-credentials-file, CredentialsFile's old
	// name: the file carries every engine's secrets, not only s3's.
	oldCredentialsFile string
	// Stdin makes the agent read its token from the first line of stdin
	// and exit when stdin closes: how --ssh starts it, so the agent ends
	// with the ssh session that started it.
	Stdin bool
	// Slurm marks an agent started by --launcher slurm as one task of a
	// job step: it listens on a port of the kernel's choice on every
	// interface (unless --listen says otherwise) and announces its node,
	// task and port on stdout for the launcher.
	Slurm bool
	// LaunchedBy names the launcher that started this agent, when its
	// agents learn their token and keys from it and announce their port
	// (mpiexec: one rank of an MPICH job); it listens as with --slurm.
	LaunchedBy string
	// ClockSkew is a test hook: the agent's clock looks this far off.
	ClockSkew time.Duration
	// MetricsListen serves the agent's Prometheus metrics there ("":
	// none).
	MetricsListen string
}

// AddFlags registers the options' flags.
// secretNames are the engines' secret variables (Registry.SecretNames),
// which --credentials-file may give.
func (o *AgentServeOptions) AddFlags(f *pflag.FlagSet, secretNames []string) {
	f.StringVar(&o.Listen, "listen", fmt.Sprintf("127.0.0.1:%d", cluster.DefaultPort), "address to listen on (give the host's address, or :7761, to serve other machines)")
	f.StringVar(&o.TokenFile, "token-file", "", "file holding the shared token the controller must send (its first line, at least 22 characters; mode 600)")
	f.StringVar(&o.TLSCert, "tls-cert", "", "serve HTTPS with this certificate (PEM)")
	f.StringVar(&o.TLSKey, "tls-key", "", "the certificate's key (PEM)")
	f.StringVar(&o.TLSCA, "tls-ca", "", "require controllers to present a client certificate signed by this CA (PEM)")
	addToolFlags(f, &o.Tools, " (never taken from the controller)")
	f.BoolVar(&o.AllowExec, "allow-exec", false, "allow fio job files that run commands or reach past DIR (exec_prerun, exec_postrun, ioengine=exec, external, network and device engines)")
	f.BoolVar(&o.AllowEvents, "allow-events", false, "run the commands of a suite's events that name this host (sh -c, with this agent's rights, bounded by the event's timeout)")
	f.StringVar(&o.CredentialsFile, "credentials-file", "", "file with NAME=VALUE lines of the engines' secret variables ("+strings.Join(secretNames, ", ")+"), each for its engine's phases (default: the environment, as each engine's command reads it; mode 600)")
	f.StringVar(&o.oldCredentialsFile, oldCredentialsFlag, "", "deprecated: the old name of --credentials-file")
	_ = f.MarkHidden(oldCredentialsFlag)
	f.BoolVar(&o.Stdin, "stdin", false, "read the token from stdin's first line and exit when stdin closes (used by --ssh)")
	f.StringVar(&o.MetricsListen, "metrics-listen", "", "serve Prometheus metrics under /metrics at this address (a bare :PORT is loopback, unauthenticated; any other address requires the --token-file token as a bearer token)")
	f.BoolVar(&o.Slurm, "slurm", false, "run as a task of a Slurm job step (used by --launcher slurm): listen on a free port on every interface and print its node, task and port")
	f.StringVar(&o.LaunchedBy, "launched-by", "", "run as started by this --launcher (mpiexec: a rank of an MPICH job, used by --launcher mpiexec): get the token from it, listen on a free port on every interface and print that port")
	f.DurationVar(&o.ClockSkew, "test-clock-skew", 0, "test hook: make this agent's clock look off by this much")
	_ = f.MarkHidden("test-clock-skew")
	zeroMeans(f, "test-clock-skew", "no skew")
}

func newAgentCommand(st *State) *cobra.Command {
	var o AgentServeOptions
	cmd := &cobra.Command{
		Use:   "agent [--listen ADDR] [--token-file F | --tls-cert C --tls-key K --tls-ca CA]",
		Short: "Run phases for a controller on another machine (run, fio, md, s3 with hosts or --agents)",
		Long: `Serves this machine to a storbench controller: the controller prepares each
phase here, starts it at a common time on every agent, reads a snapshot each
second and collects the full results. One controller at a time; a second one
is told who holds the agent.

Every request must carry the shared token from --token-file (at least 22
characters, 16 random bytes' worth: storbench token makes one), or the
controller must present a client certificate signed by --tls-ca. The agent listens on
loopback unless --listen says otherwise. It never takes a program path from the
network (fio's is its own --tool fio=PATH), and refuses fio options that run commands
unless started with --allow-exec, nor the commands of a suite's events that
name this host unless started with --allow-events (a suite that has one is
refused before any load otherwise).

If the controller dies or is cut off, the agent stops the load within a few
seconds and removes what the phase created. An agent a controller's launcher
started for one run (--stdin, as ssh and srun start it) ends when its stdin
closes or that controller says the run is over, and also when it lost its
controller mid-phase and none came back within ten heartbeat timeouts (30 s).

With --metrics-listen it serves Prometheus metrics of its phases under
/metrics on a listener of its own: without a token on loopback, and anywhere
else only to a scraper that sends --token-file's token as a bearer token.

` + wrapHelp("S3 keys never travel from the controller: the agent reads them when it starts, "+
			"from --credentials-file or else as storbench s3 does from its own environment: "+
			st.Engines.Info(model.EngineS3).SecretsFrom+", in that order. "+
			"An agent started by a controller's --ssh gets the run's keys over ssh's stdin instead."),
		Example: `  head -c 32 /dev/urandom | base64 > ~/.storbench-token   # the same file on every host
  storbench agent --listen :7761 --token-file ~/.storbench-token
  # on the controller:
  storbench fio -d /mnt/weka --token-file ~/.storbench-token client{1...8}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if (o.Slurm || o.LaunchedBy != "") && !cmd.Flags().Changed("listen") {
				o.Listen = ":0"
			}
			return runAgent(cmd.Context(), st, o, nil)
		},
	}
	o.AddFlags(cmd.Flags(), st.Engines.SecretNames())
	return cmd
}

// runAgent serves until ctx ends (or stdin closes with --stdin). ready, if
// set, is called with the address listened on.
func runAgent(ctx context.Context, st *State, o AgentServeOptions, ready func(addr string)) error {
	if err := st.Engines.CheckTools(o.Tools); err != nil {
		return asUsage(err)
	}
	defer loadGC(st)()
	announce, err := o.slurmTask(st)
	if err != nil {
		return err
	}
	cpus, err := o.slurmCPUs(st)
	if err != nil {
		return err
	}
	c, err := o.config(st)
	if err != nil {
		return err
	}
	srv := &cluster.Server{
		Agent: &cluster.LocalAgent{Host: hostname(), Version: version(), Tools: o.Tools, AllowExec: o.AllowExec, AllowEvents: o.AllowEvents,
			Engines: st.Engines, Secrets: c.secrets, CPUs: cpus},
		Token:     c.token,
		OneRun:    o.Stdin || o.LaunchedBy != "",
		ClockSkew: o.ClockSkew,
		Logf: func(format string, args ...any) {
			fmt.Fprintf(st.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
		},
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := o.serveMetrics(ctx, st, srv); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return usageErr("--listen %s: %v", o.Listen, err)
	}
	scheme := "token"
	if c.tls != nil {
		ln = tls.NewListener(ln, c.tls)
		scheme = "TLS"
		if c.tls.ClientCAs != nil {
			scheme += " client certificates"
		}
		if c.token != "" {
			scheme += " and token"
		}
	}
	fmt.Fprintf(st.Stdout, "storbench agent %s listening on %s (protocol %d, %s)\n", version(), ln.Addr(), cluster.Protocol, scheme)
	warnAddressLimit(st, "an agent")
	if announce != nil {
		fmt.Fprintln(st.Stdout, announce(ln.Addr().(*net.TCPAddr).Port))
	}
	if c.side != nil {
		defer c.side.Close()
		fmt.Fprintln(st.Stdout, c.side.Announce(hostname(), ln.Addr().(*net.TCPAddr).Port))
		go func() { <-c.side.Done(); cancel() }()
	}
	if ready != nil {
		ready(ln.Addr().String())
	}
	if c.stdin != nil {
		go func() {
			_, _ = io.Copy(io.Discard, c.stdin)
			cancel()
		}()
	}
	go func() {
		select {
		case <-srv.Over():
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := srv.Serve(ctx, ln); err != nil {
		return err
	}
	fmt.Fprintln(st.Stdout, "storbench agent stopped")
	return nil
}

// serveMetrics serves the agent's metrics on their own listener until ctx
// ends, guarded by the agent's token unless on loopback.
func (o AgentServeOptions) serveMetrics(ctx context.Context, st *State, srv *cluster.Server) error {
	if o.MetricsListen == "" {
		return nil
	}
	ln, need, err := metrics.Listen("--metrics-listen", loopbackPort(o.MetricsListen), srv.Token)
	if err != nil {
		return asUsage(err)
	}
	reg := metrics.NewRegistry()
	srv.Watch = metrics.Agent{Registry: reg}
	auth := "bearer token"
	if need == "" {
		auth = "loopback, no token"
	}
	fmt.Fprintf(st.Stdout, "storbench agent metrics on http://%s%s (%s)\n", ln.Addr(), metrics.Path, auth)
	go func() { _ = metrics.Serve(ctx, ln, metrics.Handler(reg, need)) }()
	return nil
}

// slurmTask returns, with --slurm, the announcement of this agent as a
// task of a Slurm job step, given its port; nil without --slurm.
func (o AgentServeOptions) slurmTask(st *State) (func(port int) string, error) {
	if !o.Slurm {
		return nil, nil
	}
	node := st.getenv("SLURMD_NODENAME")
	procid, err1 := strconv.Atoi(st.getenv("SLURM_PROCID"))
	localid, err2 := strconv.Atoi(st.getenv("SLURM_LOCALID"))
	if node == "" || err1 != nil || err2 != nil {
		return nil, usageErr("--slurm: this is not a task of a Slurm job step (SLURMD_NODENAME, SLURM_PROCID, SLURM_LOCALID): --slurm is for agents started by --launcher slurm")
	}
	return func(port int) string { return cluster.FormatAnnounce(node, procid, localid, port) }, nil
}

// slurmCPUs is, with --slurm, how many CPUs the task has: Slurm's
// SLURM_CPUS_PER_TASK (set with --cpus-per-task), else one, whether or not
// Slurm pins the task to them; 0 (the process's CPU count) without --slurm.
func (o AgentServeOptions) slurmCPUs(st *State) (int, error) {
	if !o.Slurm {
		return 0, nil
	}
	v := st.getenv("SLURM_CPUS_PER_TASK")
	if v == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, usageErr("--slurm: SLURM_CPUS_PER_TASK=%q: want a whole number of CPUs, 1 or more", v)
	}
	return n, nil
}

// agentConfig is what an agent serves with: how controllers prove
// themselves, the engines' secrets (its S3 keys), and with --stdin the
// stream whose end stops it.
type agentConfig struct {
	token   string
	tls     *tls.Config
	secrets engine.Secrets
	stdin   *bufio.Reader
	// side is the agent's part in the launcher that started it
	// (--launched-by).
	side cluster.AgentSide
}

// config reads the token (from --token-file, or stdin's first line with
// --stdin), the TLS configuration and the engines' secrets. They come from
// the agent's own environment, replaced, when it sent any, by those the
// controller's launcher sent on stdin (as a whole: the controller's keys
// never go with the agent's session token); the S3 keys then by
// --credentials-file. Only both keys of one source count.
func (o AgentServeOptions) config(st *State) (agentConfig, error) {
	var c agentConfig
	credFile, credFlag, err := o.credentials(st)
	if err != nil {
		return c, err
	}
	env, err := st.environment()
	if err != nil {
		return c, err
	}
	// The environment's secrets count only when neither stdin nor the
	// file gives any: so does an error settling them.
	var envErr error
	c.secrets, envErr = env.agentSecrets()
	fromEnv := true
	// sent takes what a launcher sent, of the secrets the engines declare.
	sent := func(s engine.Secrets) {
		own := engine.Secrets{}
		for _, n := range st.Engines.SecretNames() {
			if v := s.Get(n); !v.Empty() {
				own[n] = v
			}
		}
		if !own.Empty() {
			c.secrets, fromEnv = own, false
		}
	}
	switch {
	case o.LaunchedBy != "":
		join := launchers[o.LaunchedBy].join
		if join == nil {
			return c, usageErr("--launched-by %q: no launcher by that name starts its agents so", o.LaunchedBy)
		}
		if c.side, err = join(st.getenv, os.Stdin); err != nil {
			return c, asUsage(err)
		}
		var s engine.Secrets
		c.token, s = c.side.Secrets()
		sent(s)
	case o.Stdin:
		c.stdin = bufio.NewReader(os.Stdin)
		var s engine.Secrets
		if c.token, s, err = cluster.ReadStdin(c.stdin); err != nil {
			return c, asUsage(err)
		}
		sent(s)
	case o.TokenFile != "":
		if c.token, err = cluster.ReadToken(o.TokenFile); err != nil {
			return c, asUsage(err)
		}
	}
	if c.token != "" {
		if err := cluster.CheckToken(o.tokenSource(), c.token); err != nil {
			return c, asUsage(err)
		}
	}
	if c.tls, err = cluster.ServerTLS(o.TLSCert, o.TLSKey, o.TLSCA); err != nil {
		return c, asUsage(err)
	}
	if c.token == "" && (c.tls == nil || c.tls.ClientCAs == nil) {
		return c, usageErr("the agent needs --token-file F, or --tls-cert/--tls-key/--tls-ca so controllers prove themselves with a client certificate")
	}
	if credFile != "" {
		file, err := credentialsFile(st.Engines, credFlag, credFile, c.secrets)
		if err != nil {
			return c, asUsage(err)
		}
		c.secrets, fromEnv = file, false
	}
	if envErr != nil && fromEnv {
		return c, asUsage(envErr)
	}
	return c, nil
}

// oldCredentialsFlag is --credentials-file's old name, which still works:
// it said s3, and the file carries every engine's secrets.
const oldCredentialsFlag = "s3-credentials-file"

// credentials returns the engines' credentials file and the flag that
// named it, as the user wrote it (for the errors): --credentials-file,
// or its old name with a warning.
func (o AgentServeOptions) credentials(st *State) (file, flag string, err error) {
	switch {
	case o.oldCredentialsFile == "":
		return o.CredentialsFile, "--credentials-file", nil
	case o.CredentialsFile != "":
		return "", "", usageErr("give --credentials-file alone: --%s is its old name", oldCredentialsFlag)
	}
	st.logf(0, "warning: --%s is deprecated: give --credentials-file, its new name (the file carries every engine's secrets)", oldCredentialsFlag)
	return o.oldCredentialsFile, "--" + oldCredentialsFlag, nil
}

// tokenSource names where the agent's token came from, for its errors.
func (o AgentServeOptions) tokenSource() string {
	switch {
	case o.LaunchedBy != "":
		return "--launched-by " + o.LaunchedBy
	case o.Stdin:
		return "--stdin"
	}
	return "--token-file " + o.TokenFile
}

// credentialsFile reads the file of --credentials-file (flag as given,
// for the errors): NAME=VALUE lines of the engines' secret variables ("export " before a line is allowed; others
// are not read), which each engine settles as it does its environment's
// (s3: its own key variables, else the AWS tools', each pair with a
// session token). An engine's secrets the file settles stand
// for all it had in base; the others stay.
func credentialsFile(engines engine.Registry, flag, file string, base engine.Secrets) (engine.Secrets, error) {
	if err := cluster.SecretFileMode(flag, file); err != nil {
		return nil, err
	}
	b, err := infile.Read(flag, file, infile.TextLimit)
	if infile.IsRefusal(err) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", flag, err)
	}
	names := engines.SecretNames()
	env := engine.Environ{Secrets: engine.Secrets{}}
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(l), "export "), "=")
		if k = strings.TrimSpace(k); ok && slices.Contains(names, k) {
			env.Secrets[k] = secret.New(strings.Trim(strings.TrimSpace(v), `"'`))
		}
	}
	out, settled := engine.Secrets{}, false
	maps.Copy(out, base)
	for _, name := range engines.Names() {
		a, err := engines.ApplyEnvironment(name, env, nil)
		if err == nil {
			err = a.SecretsErr
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s: %v", flag, file, err)
		}
		if a.Secrets.Empty() {
			continue
		}
		for _, v := range engines.Info(name).Environment {
			delete(out, v.Name)
		}
		maps.Copy(out, a.Secrets)
		settled = true
	}
	if !settled {
		return nil, fmt.Errorf("%s %s: no keys: want NAME=VALUE lines of %s", flag, file, strings.Join(names, ", "))
	}
	return out, nil
}

// hostname is this machine's name, "localhost" when it has none.
func hostname() string {
	hn, _ := os.Hostname()
	if hn == "" {
		hn = "localhost"
	}
	return hn
}
