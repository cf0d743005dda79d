package cluster

import (
	"context"
	"net"
	"net/http"
	"time"
)

// Serve serves the agent's protocol on ln until ctx ends or serving fails.
// When ctx ends (a signal, or the ssh session that started the agent
// closed), a phase in progress ends gracefully, its result goes to the
// controller marked as stopped by context.Cause(ctx), the agent cleans up
// (for at most two minutes), and the last line of every stream is given
// five seconds to reach the controller before the connections close.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := s.HTTPServer()
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()
	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	why := "stopped"
	if c := context.Cause(ctx); c != nil && c != context.Canceled {
		why = c.Error()
	}
	cctx, ccancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer ccancel()
	if err := s.Stop(cctx, why); err != nil {
		_ = s.Close(cctx)
	}
	// The shared areas this agent pinned go with it: a controller still
	// running removes what is left in them after its last phase.
	_ = s.unpinAll()
	// Files still being removed in the background go before the agent.
	for _, r := range s.Agent.Settle(cctx) {
		for _, l := range r.Leftovers {
			s.logf("run %s: phase %s left behind: %s", r.RunID, r.Phase, l.Text())
		}
	}
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	if hs.Shutdown(sctx) != nil {
		_ = hs.Close()
	}
	return nil
}

// HTTPServer is the http.Server an agent serves its protocol with. It
// speaks HTTP/2 over TLS and over plain TCP (h2c, with prior knowledge),
// so that a controller's calls to one agent (streams, heartbeats, releases,
// stops) are streams on one connection: a controller of 10,000 agents
// holds 10,000 descriptors for them, not three times as many. HTTP/1.1
// stays for controllers that speak only it.
func (s *Server) HTTPServer() *http.Server {
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetHTTP2(true)
	p.SetUnencryptedHTTP2(true)
	// Frames of at most frameSize: the controller's end of each of its
	// thousands of connections keeps a buffer of the largest.
	return &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, Protocols: p,
		HTTP2: &http.HTTP2Config{MaxReadFrameSize: frameSize}}
}
