package metrics

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Path is where metrics are served.
const Path = "/metrics"

// Handler serves r under Path in the OpenMetrics text format, or
// Prometheus' protobuf when the scraper asks for it (native histograms).
// The process's own figures (CPU, memory, Go runtime) are left to the
// machine's exporters: reading them cost more than the run's metrics. With a
// token, every request must carry it as a bearer token (Prometheus:
// authorization.credentials_file); without one, the caller must serve
// only on loopback (Listen refuses anything else).
func Handler(r *Registry, token string) http.Handler {
	// Scrapes are not compressed, in any format: compressing cost more CPU
	// than writing the figures.
	proto := promhttp.HandlerFor(r, promhttp.HandlerOpts{MaxRequestsInFlight: 4, Timeout: 10 * time.Second, DisableCompression: true})
	mux := http.NewServeMux()
	mux.Handle(Path, scrapeHandler(r, proto))
	if token == "" {
		return mux
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !bearerOK(req, token) {
			// Nothing else is served to a caller without the token: not
			// even which paths exist.
			w.Header().Set("WWW-Authenticate", `Bearer realm="storbench"`)
			http.Error(w, "metrics need the agent's token as a bearer token (Prometheus: authorization.credentials_file)", http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, req)
	})
}

// bearerOK says the request carries token as its bearer token.
func bearerOK(r *http.Request, token string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

// Loopback says addr (host:port) names only this machine: a loopback
// address, or localhost.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Listen opens addr for metrics and returns the token a scrape must
// carry: none on loopback, token anywhere else. Without a token only
// loopback is accepted: metrics would otherwise be open to anyone who can
// reach the port. flag names the option in errors.
func Listen(flag, addr, token string) (net.Listener, string, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, "", fmt.Errorf("%s %s: give host:port (127.0.0.1:9761)", flag, addr)
	}
	need := ""
	if !Loopback(addr) {
		if token == "" {
			return nil, "", fmt.Errorf("%s %s: metrics without a token are served on loopback only (127.0.0.1:PORT); give --token-file to serve them to other machines", flag, addr)
		}
		need = token
	}
	ln, err := net.Listen("tcp", addr)
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, "", fmt.Errorf("%s %s: the port is taken by another program: pick a free port", flag, addr)
	case err != nil:
		return nil, "", fmt.Errorf("%s %s: %v", flag, addr, err)
	}
	return ln, need, nil
}

// Serve serves h on ln until ctx ends.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_ = srv.Shutdown(sctx)
			cancel()
		case <-done:
		}
	}()
	err := srv.Serve(ln)
	close(done)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
