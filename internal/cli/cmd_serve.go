package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/storbench/storbench/internal/catalog"
	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/metrics"
	"github.com/storbench/storbench/internal/serve"
)

// ServeOptions are the flags of `storbench serve`.
type ServeOptions struct {
	Catalog   string
	Listen    string
	TokenFile string
	Spec      string
}

func newServeCommand(st *State) *cobra.Command {
	var o ServeOptions
	cmd := &cobra.Command{
		Use:   "serve [--listen ADDR] [--token-file F] [--catalog FILE|URL]",
		Short: "Serve the catalog read-only over HTTP: runs, comparisons, trend charts, reports",
		Long: `Serves the catalog read-only in a web browser: the runs with filters (the
query terms of 'storbench runs'), two runs or two groups of runs compared (as
'storbench compare --a --b' does), one figure over time as a chart grouped by
a label (as 'storbench trend'), and each run's report.html from its results
folder. The catalog is opened without writes; pages have no script.

It listens on 127.0.0.1:8080 unless --listen says otherwise. On any address
but loopback a token is required (--token-file, its first line, at least 22
characters: storbench token makes one; a file open to group or others is
refused): open the page once as http://HOST:PORT/?token=TOKEN
(the token moves to a cookie and leaves the address bar), or send
Authorization: Bearer TOKEN. The token is never logged or shown.`,
		Example: `  storbench serve
  storbench serve --listen 0.0.0.0:8080 --token-file ~/.storbench-token
  storbench serve --catalog postgres://bench@db/storbench`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runServe(cmd.Context(), st, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Catalog, "catalog", "", "the catalog: a SQLite file or a postgres://USER@HOST/DB URL (default: $"+catalog.EnvCatalog+", else $XDG_DATA_HOME/storbench/catalog.db)")
	f.StringVar(&o.Listen, "listen", "127.0.0.1:8080", "address to listen on (host:port; a bare :PORT is loopback); any but loopback needs --token-file")
	f.StringVar(&o.TokenFile, "token-file", "", "file holding the token every request must carry (its first line, at least 22 characters; mode 600)")
	f.StringVar(&o.Spec, "spec", "", specFlagHelp)
	return cmd
}

func runServe(ctx context.Context, st *State, o ServeOptions) error {
	addr := loopbackPort(o.Listen)
	if _, port, err := net.SplitHostPort(addr); err != nil || !validPort(port) {
		return usageErr("--listen %s: give host:port (127.0.0.1:8080), port a number up to 65535", o.Listen)
	}
	token := ""
	if o.TokenFile != "" {
		var err error
		if token, err = cluster.ReadToken(o.TokenFile); err != nil {
			return asUsage(err)
		}
		if err := cluster.CheckToken("--token-file "+o.TokenFile, token); err != nil {
			return asUsage(err)
		}
	}
	if token == "" && !metrics.Loopback(addr) {
		return usageErr("--listen %s: the catalog is served without a token on loopback only (127.0.0.1:PORT); give --token-file to serve it to other machines", o.Listen)
	}
	sp, err := readSpec(o.Spec)
	if err != nil {
		return err
	}
	where, on, why := catalog.Location(o.Catalog, false, st.getenv)
	if !on {
		return usageErr("no catalog (%s): give --catalog FILE or URL", why)
	}
	c, err := catalog.OpenReadOnly(ctx, where)
	if err != nil {
		return usageErr("%v", err)
	}
	defer c.Close()
	ln, err := net.Listen("tcp", addr)
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return usageErr("--listen %s: the port is taken by another program: pick a free port", addr)
	case err != nil:
		return usageErr("--listen %s: %v", addr, err)
	}
	auth := "no token (loopback)"
	if token != "" {
		auth = "token required"
	}
	fmt.Fprintf(st.Stderr, "serving catalog %s read-only at http://%s/ (%s)\n", c.Where(), ln.Addr(), auth)
	srv := serve.New(c, token, st.Stderr)
	srv.SetSpec(sp)
	return metrics.Serve(ctx, ln, srv.Handler())
}

// validPort reports whether port is a TCP port number (0: any free one).
func validPort(port string) bool {
	n, err := strconv.Atoi(port)
	return err == nil && n >= 0 && n <= 65535
}
