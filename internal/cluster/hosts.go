package cluster

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/hosts"
	"github.com/storbench/storbench/internal/infile"
	"github.com/storbench/storbench/internal/model"
)

// HostEntries gathers the hosts of a run from HOST arguments, --agents,
// --agents-file and --hostfile (an MPI hostfile), expanded (ranges, Slurm
// lists) and without duplicates, with the slots the files give them.
func HostEntries(args, agents []string, agentsFile, hostfile string) ([]hosts.Entry, error) {
	var out []hosts.Entry
	if list := append(append([]string(nil), args...), agents...); len(list) > 0 {
		names, err := hosts.Expand(list, 0)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			e, err := hosts.ParseEntry(n)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
	}
	for _, file := range []struct {
		flag, path string
		format     hosts.Format
	}{{"--agents-file", agentsFile, hosts.AgentsFormat}, {"--hostfile", hostfile, hosts.MPIFormat}} {
		if file.path == "" {
			continue
		}
		room := hosts.DefaultLimit - len(out)
		if room < 1 {
			return nil, fmt.Errorf("%s: more than %d hosts in all", file.flag, hosts.DefaultLimit)
		}
		b, err := infile.Read(file.flag, file.path, infile.TextLimit)
		if infile.IsRefusal(err) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", file.flag, err)
		}
		es, err := hosts.ParseHostfile(file.path, b, file.format, room)
		if err != nil {
			return nil, fmt.Errorf("%s %v", file.flag, err)
		}
		for _, e := range es {
			i := slices.IndexFunc(out, func(x hosts.Entry) bool { return x.Host == e.Host && x.Port == e.Port })
			switch {
			case i < 0:
				out = append(out, e)
			case out[i].Slots != e.Slots:
				return nil, fmt.Errorf("%s: %s is given twice, with different slots; list it once", file.flag, e)
			}
		}
	}
	return out, nil
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
// A host whose name would be the run's shared area, engine.SharedName in
// any case, is renamed (HostName), and a name longer than a host name may
// be is shortened (fitName).
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
		out[i] = model.SafeName(strings.ReplaceAll(n, ":", "-"))
	}
	for i, n := range out {
		taken := func(c string) bool {
			for j, o := range out {
				if j != i && strings.EqualFold(o, c) {
					return true
				}
			}
			return false
		}
		for isReserved(n) || n != out[i] && taken(n) {
			n += "-host"
		}
		out[i] = n
	}
	for i, n := range out {
		out[i] = fitName(n)
	}
	return out
}

// fitName is name, or, where it or a label of it is longer than a host
// name may be (hosts.CheckName, which an agent applies to the name it is
// given: 253 bytes, 63 a label), name shortened to fit: what fits of its
// start, '-', 8 hex digits of the SHA-256 of the whole name, and its end
// when short (the port or slot that sets agents of one host apart). A
// host label of 59 bytes with "-7761" added (two agents on one host) is
// 64, and the agent refused it; shortened, the same name always gives the
// same, and names that differed still differ.
func fitName(name string) string {
	long := func(l string) bool { return len(l) > hosts.MaxLabel }
	labels := strings.Split(name, ".")
	if len(name) <= hosts.MaxName && !slices.ContainsFunc(labels, long) {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	tag := hex.EncodeToString(sum[:4])
	// cut shortens s to at most n bytes.
	cut := func(s string, n int) string {
		end := ""
		if i := strings.LastIndexByte(s, '-'); i > 0 && len(s)-i <= 9 {
			end = s[i:]
		}
		if head := strings.TrimRight(s[:n-len(tag)-1-len(end)], ".-"); head != "" {
			return head + "-" + tag + end
		}
		return tag + end
	}
	if len(name) > hosts.MaxName {
		labels = strings.Split(cut(name, hosts.MaxName), ".")
	}
	for i, l := range labels {
		if long(l) {
			labels[i] = cut(l, hosts.MaxLabel)
		}
	}
	return strings.Join(labels, ".")
}

// HostName is the name a host with this name gets in a run: the name
// itself, or, when it is the run's shared area (engine.SharedName, in any
// case, since a file system may ignore case), the name with "-host" added;
// a name longer than a host name may be, shortened (fitName).
// Every host's files live in DIR/storbench/<run id>/<host>/, next to the
// shared/ directory that all hosts share.
func HostName(name string) string {
	if isReserved(name) {
		return name + "-host"
	}
	return fitName(name)
}

func isReserved(name string) bool { return strings.EqualFold(name, engine.SharedName) }
