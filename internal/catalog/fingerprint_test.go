package catalog

import (
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/model"
)

// The fingerprint of a directory on a disk partition and of an S3
// endpoint: the file system, mount options and device model under the
// directory, the endpoint's Server header, never the keys the phase holds.
// /proc is the real one but for the mount table, and /sys is a fake
// tree shaped as the kernel's (a partition of an NVMe disk, and an md
// RAID of two disks), as this machine's disk has no model to read.
func TestFingerprint(t *testing.T) {
	proc, sys := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(proc, "sys/kernel"), 0o755)
	os.WriteFile(filepath.Join(proc, "sys/kernel/osrelease"), []byte("6.1.0-test\n"), 0o644)
	os.MkdirAll(filepath.Join(proc, "self"), 0o755)
	os.WriteFile(filepath.Join(proc, "self/mountinfo"), []byte(
		"22 1 259:1 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p1 rw,errors=remount-ro\n"+
			"40 22 9:0 / /mnt/raid\\040set rw,noatime shared:2 - xfs /dev/md0 rw,attr2,inode64\n"+
			"41 22 0:50 / /mnt/nfs rw,relatime - nfs4 server:/export rw,vers=4.2\n"), 0o644)
	// /sys/class/block: links to devices; a partition sits in its disk's
	// folder; md0's slaves are its disks.
	mk := func(path, model string) {
		os.MkdirAll(filepath.Join(sys, path, "device"), 0o755)
		if model != "" {
			os.WriteFile(filepath.Join(sys, path, "device/model"), []byte(model+"  \n"), 0o644)
		}
	}
	mk("devices/nvme0n1", "Samsung SSD 980 PRO 1TB")
	os.MkdirAll(filepath.Join(sys, "devices/nvme0n1/nvme0n1p1"), 0o755)
	os.WriteFile(filepath.Join(sys, "devices/nvme0n1/nvme0n1p1/partition"), []byte("1\n"), 0o644)
	mk("devices/sda", "ST4000NM0035")
	mk("devices/sdb", "ST8000NM0055")
	os.MkdirAll(filepath.Join(sys, "devices/md0/slaves"), 0o755)
	os.MkdirAll(filepath.Join(sys, "class/block"), 0o755)
	for name, target := range map[string]string{"nvme0n1": "devices/nvme0n1", "nvme0n1p1": "devices/nvme0n1/nvme0n1p1",
		"sda": "devices/sda", "sdb": "devices/sdb", "md0": "devices/md0"} {
		os.Symlink(filepath.Join(sys, target), filepath.Join(sys, "class/block", name))
	}
	os.Symlink(filepath.Join(sys, "devices/sda"), filepath.Join(sys, "devices/md0/slaves/sda"))
	os.Symlink(filepath.Join(sys, "devices/sdb"), filepath.Join(sys, "devices/md0/slaves/sdb"))

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Authorization"), "AKfp") || r.URL.RawQuery != "" {
			t.Errorf("the fingerprint's request carried credentials: %v %v", r.Header, r.URL)
		}
		w.Header().Set("Server", "TestS3/1.0")
		w.WriteHeader(http.StatusForbidden)
	}))
	defer srv.Close()
	ep := strings.TrimPrefix(srv.URL, "http://")
	fp := TakeFingerprint(t.Context(), FingerprintOptions{
		Dirs:  []string{"/mnt/raid set/bench", "/", "/mnt/nfs/x"},
		S3:    model.Endpoint{Host: ep},
		Hosts: 3, Sys: sys, Proc: proc, AskS3: true,
	})
	want := model.Fingerprint{Kernel: "6.1.0-test", S3Endpoint: ep, S3Server: "TestS3/1.0", Hosts: 3, Targets: []model.TargetPrint{
		{Dir: "/mnt/raid set/bench", FSType: "xfs", MountOptions: "rw,noatime,attr2,inode64", Source: "/dev/md0", Devices: []string{"ST4000NM0035", "ST8000NM0055"}},
		{Dir: "/", FSType: "ext4", MountOptions: "rw,relatime,errors=remount-ro", Source: "/dev/nvme0n1p1", Devices: []string{"Samsung SSD 980 PRO 1TB"}},
		{Dir: "/mnt/nfs/x", FSType: "nfs4", MountOptions: "rw,relatime,vers=4.2", Source: "server:/export"},
	}}
	if !reflect.DeepEqual(fp, want) {
		t.Errorf("fingerprint:\n got %+v\nwant %+v", fp, want)
	}
	// An endpoint that does not answer: no Server header, and no wait
	// beyond the bound.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := l.Addr().String()
	l.Close()
	fp = TakeFingerprint(t.Context(), FingerprintOptions{S3: model.Endpoint{Host: dead}, Sys: sys, Proc: proc, AskS3: true})
	if fp.S3Endpoint != dead || fp.S3Server != "" || fp.Hosts != 1 {
		t.Errorf("a dead endpoint: %+v", fp)
	}
}

// The endpoint is asked for its name only when asked to (a run the
// catalog indexes), and not at all when a probe read the name already.
func TestFingerprintAsksTheServerOnlyWhenUsed(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.Header().Set("Server", "TestS3/1.0")
		w.WriteHeader(http.StatusForbidden)
	}))
	defer srv.Close()
	ep := strings.TrimPrefix(srv.URL, "http://")
	s3 := model.Endpoint{Host: ep}
	for _, tc := range []struct {
		o      FingerprintOptions
		server string
		asked  int32
	}{
		{FingerprintOptions{S3: s3}, "", 0},
		{FingerprintOptions{S3: s3, AskS3: true, S3Server: "Ceph Object Gateway"}, "Ceph Object Gateway", 0},
		{FingerprintOptions{S3: s3, AskS3: true}, "TestS3/1.0", 1},
	} {
		asked.Store(0)
		fp := TakeFingerprint(t.Context(), tc.o)
		if fp.S3Endpoint != ep || fp.S3Server != tc.server || asked.Load() != tc.asked {
			t.Errorf("AskS3 %v, S3Server %q: endpoint %q, server %q, %d requests; want %q, %d", tc.o.AskS3, tc.o.S3Server, fp.S3Endpoint, fp.S3Server, asked.Load(), tc.server, tc.asked)
		}
	}
}

// A fake S3 server that answers every request as radosgw 16 answers an
// unsigned HEAD / (seen against the real one in TestRadosgwCommands,
// internal/engine/s3): a chunked body, sent with the headers, also after a
// HEAD. Asking it for its name leaves nothing for net/http to find on an
// idle connection, which it would log ("Unsolicited response received on
// idle HTTP channel") where the user reads storbench's output.
func TestFingerprintAsksCleanlyAServerThatSendsABodyAfterHEAD(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						return
					}
					c.Write([]byte("HTTP/1.1 200 OK\r\nServer: FakeRGW\r\nTransfer-Encoding: chunked\r\nContent-Type: application/xml\r\n\r\n5\r\n<a/>\n\r\n0\r\n\r\n"))
				}
			}()
		}
	}()
	var logged strings.Builder
	var mu sync.Mutex
	log.SetOutput(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logged.Write(p)
	}))
	defer log.SetOutput(os.Stderr)
	for range 5 {
		fp := TakeFingerprint(t.Context(), FingerprintOptions{S3: model.Endpoint{Host: l.Addr().String()}, AskS3: true})
		if fp.S3Server != "FakeRGW" {
			t.Fatalf("server %q, want FakeRGW", fp.S3Server)
		}
	}
	// net/http logs from the connection's reading goroutine, after the
	// answer: give it time to.
	time.Sleep(300 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if logged.Len() != 0 {
		t.Errorf("net/http logged:\n%s", logged.String())
	}
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
