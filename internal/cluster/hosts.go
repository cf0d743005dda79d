package cluster

import (
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/storbench/storbench/internal/hosts"
	"github.com/storbench/storbench/internal/results"
)

// HostEntries gathers the hosts of a run from HOST arguments, --agents and
// --agents-file (one host[:port] or range per line, # comments), expanded
// and without duplicates.
func HostEntries(args, agents []string, agentsFile string) ([]string, error) {
	list := append(append([]string(nil), args...), agents...)
	if agentsFile != "" {
		b, err := os.ReadFile(agentsFile)
		if err != nil {
			return nil, fmt.Errorf("--agents-file: %v", err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			l, _, _ = strings.Cut(l, "#")
			list = append(list, strings.Fields(l)...)
		}
		if len(list) == len(args)+len(agents) {
			return nil, fmt.Errorf("--agents-file %s names no host", agentsFile)
		}
	}
	if len(list) == 0 {
		return nil, nil
	}
	return hosts.Expand(list, 0)
}

// IsLocal reports a host entry that means this machine without a port: it
// runs in-process, with no agent to start.
func IsLocal(h string) bool {
	switch strings.ToLower(h) {
	case "localhost", "127.0.0.1", "::1", "local":
		return true
	}
	hn, _ := os.Hostname()
	return h == hn
}

// SplitHostPort splits a host entry, host[:port], with DefaultPort when it
// names none, and refuses a malformed host name (before anything asks for
// a token or starts ssh with it).
func SplitHostPort(h string) (host string, port int, err error) {
	if _, _, e := net.SplitHostPort(h); e == nil {
		return hosts.SplitHostPort(h)
	}
	if strings.Count(h, ":") > 1 { // a bare IPv6 address
		return h, DefaultPort, hosts.CheckName(h)
	}
	if strings.Contains(h, ":") {
		return "", 0, fmt.Errorf("host %s: want host or host:port", h)
	}
	return h, DefaultPort, hosts.CheckName(h)
}

// HostNames gives every entry a unique name for results and per-host
// paths: the host alone when hosts differ, host-port when two share a host.
func HostNames(entries []string) []string {
	count := map[string]int{}
	hs := make([]string, len(entries))
	for i, e := range entries {
		h, _, err := SplitHostPort(e)
		if err != nil {
			h = e
		}
		hs[i] = h
		count[h]++
	}
	out := make([]string, len(entries))
	for i, e := range entries {
		n := hs[i]
		if count[n] > 1 {
			n = e
		}
		out[i] = results.SafeName(strings.ReplaceAll(n, ":", "-"))
	}
	return out
}
