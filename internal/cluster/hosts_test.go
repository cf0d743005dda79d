package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every host gets a unique name for results and per-host paths: the host
// alone when hosts differ, host-port when two share a host.
func TestHostNames(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"client1:7761,client2:7761", "client1,client2"},
		{"client1,client2:7000", "client1,client2"},
		{"127.0.0.1:7761,127.0.0.1:7762", "127.0.0.1-7761,127.0.0.1-7762"},
		{"[::1]:7761,[::1]:7762", "1--7761,1--7762"},
		// shared is the run's shared area (DIR/storbench/<run id>/shared),
		// in any case: such a host is renamed, to a name no other host has.
		{"shared:7761,client2", "shared-host,client2"},
		{"SHARED", "SHARED-host"},
		{"shared,shared-host:7000", "shared-host-host,shared-host"},
	} {
		got := strings.Join(HostNames(strings.Split(tc.in, ",")), ",")
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestHostEntries(t *testing.T) {
	f := filepath.Join(t.TempDir(), "agents")
	_ = os.WriteFile(f, []byte("# the rack\nnode{1...3}:7761  # three\n\nnode9\n"), 0o644)
	es, err := HostEntries([]string{"pos"}, []string{"extra:1"}, f, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.String())
	}
	if strings.Join(got, ",") != "pos,extra:1,node1:7761,node2:7761,node3:7761,node9" {
		t.Errorf("entries %v", got)
	}
	empty := filepath.Join(t.TempDir(), "none")
	_ = os.WriteFile(empty, []byte("# nothing\n"), 0o644)
	if _, err := HostEntries(nil, nil, empty, ""); err == nil || !strings.Contains(err.Error(), "names no host") {
		t.Errorf("empty agents file: %v", err)
	}
	for _, bad := range []string{"h:0", "h:99999", "h:x"} {
		if _, _, err := SplitHostPort(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
