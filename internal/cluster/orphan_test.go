package cluster

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A controller's "the run is over" (RemoteAgent.End) ends an agent started
// for that run alone (OneRun: Over is closed), and not an agent started on
// its own machine to serve any controller: a controller holding the token
// could otherwise end an agent others share.
func TestEndOnlyEndsAnAgentOfOneRun(t *testing.T) {
	for _, oneRun := range []bool{false, true} {
		srv := &Server{Agent: &LocalAgent{Host: "h"}, Token: testToken, OneRun: oneRun}
		hs := httptest.NewServer(srv)
		a := &RemoteAgent{Addr: strings.TrimPrefix(hs.URL, "http://"), Host: "h", Token: testToken, HeartbeatTimeout: testKnob}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		a.End(ctx)
		cancel()
		var over bool
		select {
		case <-srv.Over():
			over = true
		default:
		}
		if over != oneRun {
			t.Errorf("OneRun %v: the agent ends %v after End, want %v", oneRun, over, oneRun)
		}
		a.Close()
		hs.Close()
	}
}
