package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/storbench/storbench/internal/cluster"
	s3e "github.com/storbench/storbench/internal/engine/s3"
)

// sshAgents starts an agent on every host with ssh (--ssh) and returns them;
// close stops them all. Each run gets its own random token. S3 keys in the
// controller's environment go to the agents over ssh's stdin.
func (o AgentsOptions) sshAgents(ctx context.Context, st *State, entries []string) (*agentSet, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, usageErr("--ssh: cannot find this storbench binary: %v", err)
	}
	var b [32]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	l := &cluster.SSHLauncher{
		SSH: "ssh", User: o.SSHUser, Opts: strings.Fields(o.SSHOpts), Version: version(), Binary: self,
		Logf: func(format string, args ...any) { st.logf(0, "ssh: "+format, args...) },
	}
	getenv := st.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	for _, k := range []string{s3e.EnvAccessKey, s3e.EnvSecretKey} {
		if v := getenv(k); v != "" {
			l.Secrets = append(l.Secrets, k+"="+v)
		}
	}
	names := cluster.HostNames(entries)
	started := make([]*cluster.SSHAgent, len(entries))
	errs := make([]error, len(entries))
	done := make(chan struct{})
	for i, e := range entries {
		go func() {
			defer func() { done <- struct{}{} }()
			h, port, err := cluster.SplitHostPort(e)
			if err != nil {
				errs[i] = err
				return
			}
			started[i], errs[i] = l.Start(ctx, h, port, names[i], token)
		}()
	}
	for range entries {
		<-done
	}
	stopAll := func() {
		var wg sync.WaitGroup
		for _, a := range started {
			if a != nil {
				wg.Go(a.Shutdown)
			}
		}
		wg.Wait()
	}
	var msgs []string
	for i, err := range errs {
		if err != nil {
			msgs = append(msgs, fmt.Sprintf("%s: %v", entries[i], err))
		}
	}
	if len(msgs) > 0 {
		stopAll()
		return nil, usageErr("--ssh: %s", strings.Join(msgs, "; "))
	}
	set := &agentSet{remote: true, close: stopAll}
	hn, _ := os.Hostname()
	for _, a := range started {
		a.Controller = hn
		a.DropCaches = o.DropCaches
		set.agents = append(set.agents, a)
	}
	return set, nil
}
