package cli

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/cluster"
	s3e "github.com/storbench/storbench/internal/engine/s3"
)

func init() { extraCommands = append(extraCommands, newAgentCommand) }

// AgentServeOptions are the flags of `storbench agent`.
type AgentServeOptions struct {
	Listen    string
	TokenFile string
	TLSCert   string
	TLSKey    string
	TLSCA     string
	FioBin    string
	AllowExec bool
	// S3CredentialsFile holds STORBENCH_ACCESS_KEY=... and
	// STORBENCH_SECRET_KEY=... lines, for s3 phases.
	S3CredentialsFile string
	// Stdin makes the agent read its token from the first line of stdin
	// and exit when stdin closes: how --ssh starts it, so the agent ends
	// with the ssh session that started it.
	Stdin bool
	// ClockSkew is a test hook: the agent's clock looks this far off.
	ClockSkew time.Duration
}

// AddFlags registers the options' flags.
func (o *AgentServeOptions) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&o.Listen, "listen", fmt.Sprintf("127.0.0.1:%d", cluster.DefaultPort), "address to listen on (give the host's address, or :7761, to serve other machines)")
	f.StringVar(&o.TokenFile, "token-file", "", "file holding the shared token the controller must send (its first line)")
	f.StringVar(&o.TLSCert, "tls-cert", "", "serve HTTPS with this certificate (PEM)")
	f.StringVar(&o.TLSKey, "tls-key", "", "the certificate's key (PEM)")
	f.StringVar(&o.TLSCA, "tls-ca", "", "require controllers to present a client certificate signed by this CA (PEM)")
	f.StringVar(&o.FioBin, "fio-bin", "fio", "fio binary (never taken from the controller)")
	f.BoolVar(&o.AllowExec, "allow-exec", false, "allow fio job files that run commands (exec_prerun, exec_postrun, ioengine=exec, external engines)")
	f.StringVar(&o.S3CredentialsFile, "s3-credentials-file", "", "file with STORBENCH_ACCESS_KEY=... and STORBENCH_SECRET_KEY=... lines for s3 phases (default: those environment variables)")
	f.BoolVar(&o.Stdin, "stdin", false, "read the token from stdin's first line and exit when stdin closes (used by --ssh)")
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

Every request must carry the shared token from --token-file, or the controller
must present a client certificate signed by --tls-ca. The agent listens on
loopback unless --listen says otherwise. It never takes a program path from the
network (fio is its own --fio-bin), and refuses fio options that run commands
unless started with --allow-exec.

If the controller dies or is cut off, the agent stops the load within a few
seconds and removes what the phase created.

S3 keys never travel from the controller: the agent reads STORBENCH_ACCESS_KEY
and STORBENCH_SECRET_KEY from its own environment (or --s3-credentials-file)
when it starts.`,
		Example: `  head -c 32 /dev/urandom | base64 > ~/.storbench-token   # the same file on every host
  storbench agent --listen :7761 --token-file ~/.storbench-token
  # on the controller:
  storbench fio -d /mnt/weka --token-file ~/.storbench-token client{1...8}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAgent(cmd.Context(), st, o, nil)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runAgent serves until ctx ends (or stdin closes with --stdin). ready, if
// set, is called with the address listened on.
func runAgent(ctx context.Context, st *State, o AgentServeOptions, ready func(addr string)) error {
	var stdin *bufio.Reader
	token := ""
	switch {
	case o.Stdin:
		stdin = bufio.NewReader(os.Stdin)
		l, err := stdin.ReadString('\n')
		if err != nil && l == "" {
			return usageErr("--stdin: no token on stdin")
		}
		token = strings.TrimSpace(l)
		// Then KEY=VALUE lines (S3 keys from an --ssh controller) up to a
		// blank line; they are set in this process only.
		for {
			l, err := stdin.ReadString('\n')
			l = strings.TrimSpace(l)
			if l == "" || err != nil {
				break
			}
			if k, v, ok := strings.Cut(l, "="); ok && (k == s3e.EnvAccessKey || k == s3e.EnvSecretKey) {
				os.Setenv(k, v)
			}
		}
	case o.TokenFile != "":
		t, err := cluster.ReadToken(o.TokenFile)
		if err != nil {
			return asUsage(err)
		}
		token = t
	}
	tlsConf, err := cluster.ServerTLS(o.TLSCert, o.TLSKey, o.TLSCA)
	if err != nil {
		return asUsage(err)
	}
	if token == "" && (tlsConf == nil || tlsConf.ClientCAs == nil) {
		return usageErr("the agent needs --token-file F, or --tls-cert/--tls-key/--tls-ca so controllers prove themselves with a client certificate")
	}
	if err := agentCredentials(st, o.S3CredentialsFile); err != nil {
		return asUsage(err)
	}

	hn, _ := os.Hostname()
	if hn == "" {
		hn = "localhost"
	}
	srv := &cluster.Server{
		Agent:     &cluster.LocalAgent{Host: hn, Version: version(), FioBin: o.FioBin, AllowExec: o.AllowExec, Engines: st.Engines},
		Token:     token,
		ClockSkew: o.ClockSkew,
		Logf: func(format string, args ...any) {
			fmt.Fprintf(st.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
		},
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return usageErr("--listen %s: %v", o.Listen, err)
	}
	if tlsConf != nil {
		ln = tls.NewListener(ln, tlsConf)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	scheme := "token"
	if tlsConf != nil {
		scheme = "TLS"
		if tlsConf.ClientCAs != nil {
			scheme += " client certificates"
		}
		if token != "" {
			scheme += " and token"
		}
	}
	fmt.Fprintf(st.Stdout, "storbench agent %s listening on %s (protocol %d, %s)\n", version(), ln.Addr(), cluster.Protocol, scheme)
	if ready != nil {
		ready(ln.Addr().String())
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if stdin != nil {
		go func() {
			_, _ = io.Copy(io.Discard, stdin)
			cancel()
		}()
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()
	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	// Told to stop (a signal, or stdin closed): a phase in progress ends
	// gracefully, its result goes to the controller marked as stopped, the
	// agent cleans up, then closes.
	why := "stopped"
	if c := context.Cause(ctx); c != nil && c != context.Canceled {
		why = c.Error()
	}
	cctx, ccancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer ccancel()
	if err := srv.Stop(cctx, why); err != nil {
		_ = srv.Close(cctx)
	}
	// Let the last line of a stream reach the controller.
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	if hs.Shutdown(sctx) != nil {
		_ = hs.Close()
	}
	fmt.Fprintln(st.Stdout, "storbench agent stopped")
	return nil
}

// agentCredentials gives s3 phases the keys from the agent's own
// environment or credentials file.
func agentCredentials(st *State, file string) error {
	getenv := st.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	ak, sk := getenv(s3e.EnvAccessKey), getenv(s3e.EnvSecretKey)
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("--s3-credentials-file: %v", err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(strings.TrimSpace(l), "=")
			switch {
			case !ok:
			case k == s3e.EnvAccessKey:
				ak = strings.TrimSpace(v)
			case k == s3e.EnvSecretKey:
				sk = strings.TrimSpace(v)
			}
		}
		if ak == "" || sk == "" {
			return fmt.Errorf("--s3-credentials-file %s: want %s=... and %s=... lines", file, s3e.EnvAccessKey, s3e.EnvSecretKey)
		}
	}
	if ak != "" && sk != "" {
		s3e.SetLocalCredentials(ak, sk)
	}
	return nil
}
