package catalog

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/model"
)

// FingerprintOptions say what a run measures, for TakeFingerprint.
type FingerprintOptions struct {
	// Dirs are the target directories of file phases.
	Dirs []string
	// S3 is the object service the run's first phase that talks to one
	// talks to, as its engine says (engine.Plan.Endpoint); its Host is
	// empty when none does.
	S3 model.Endpoint
	// S3Server, when set, is that endpoint's Server header as a probe of
	// it read it from signed answers (engine.Plan.Probe): it is kept as it
	// is, and nothing is asked.
	S3Server string
	// AskS3 asks that endpoint for its Server header when S3Server is
	// empty: only a run a catalog indexes uses the name.
	AskS3 bool
	// Hosts is how many hosts run the load.
	Hosts int
	// Sys and Proc are where /sys and /proc are ("" : the real ones;
	// tests give their own).
	Sys, Proc string
}

// TakeFingerprint describes the system under test as this machine sees
// it now: kernel, each target's file system, mount options and device
// models, and the S3 endpoint's Server header (o.S3Server, or with
// o.AskS3 one GET request, bounded by two seconds; none when the endpoint
// does not answer). What cannot be read is left empty.
func TakeFingerprint(ctx context.Context, o FingerprintOptions) model.Fingerprint {
	if o.Sys == "" {
		o.Sys = "/sys"
	}
	if o.Proc == "" {
		o.Proc = "/proc"
	}
	fp := model.Fingerprint{Hosts: max(1, o.Hosts)}
	if b, err := os.ReadFile(filepath.Join(o.Proc, "sys/kernel/osrelease")); err == nil {
		fp.Kernel = strings.TrimSpace(string(b))
	}
	mounts := readMounts(filepath.Join(o.Proc, "self/mountinfo"))
	for _, d := range o.Dirs {
		fp.Targets = append(fp.Targets, targetPrint(d, mounts, o.Sys))
	}
	if ep := o.S3; ep.Host != "" {
		fp.S3Endpoint, fp.S3Server = ep.Host, o.S3Server
		if fp.S3Server == "" && o.AskS3 {
			fp.S3Server = serverHeader(ctx, ep.Host, ep.TLS, ep.Insecure)
		}
	}
	return fp
}

// readMounts reads a mountinfo file, each mount's options (the mount's,
// then the file system's) listed once.
func readMounts(path string) []model.Mount {
	mounts := model.ReadMounts(path)
	for i := range mounts {
		var opts []string
		for _, o := range strings.Split(mounts[i].Options, ",") {
			opts = appendNew(opts, o)
		}
		mounts[i].Options = strings.Join(opts, ",")
	}
	return mounts
}

// targetPrint finds the mount holding dir (the longest mount point that
// is a prefix of it, the last mounted winning) and the devices under it.
func targetPrint(dir string, mounts []model.Mount, sys string) model.TargetPrint {
	t := model.TargetPrint{Dir: dir}
	abs, err := filepath.Abs(dir)
	if err == nil {
		// The directory may not exist yet (the run makes it): its
		// nearest existing parent is on the same mount.
		for p := abs; ; p = filepath.Dir(p) {
			if r, err := filepath.EvalSymlinks(p); err == nil {
				abs = filepath.Join(r, strings.TrimPrefix(abs, p))
				break
			}
			if p == filepath.Dir(p) {
				break
			}
		}
		t.Dir = abs
	}
	m, ok := model.MountOf(abs, mounts)
	if !ok {
		return t
	}
	t.FSType, t.MountOptions, t.Source = m.FSType, m.Options, m.Source
	if strings.HasPrefix(m.Source, "/dev/") {
		t.Devices = deviceModels(m.Source, sys)
	}
	return t
}

// deviceModels reads the models of the disks under a block device: the
// device itself, a partition's disk, and what a device mapper or md
// device is made of.
func deviceModels(dev, sys string) []string {
	if r, err := filepath.EvalSymlinks(dev); err == nil {
		dev = r
	}
	var out []string
	seen := map[string]bool{}
	var walk func(name string, depth int)
	walk = func(name string, depth int) {
		if depth > 8 || seen[name] {
			return
		}
		seen[name] = true
		dir := filepath.Join(sys, "class/block", name)
		if _, err := os.Stat(filepath.Join(dir, "partition")); err == nil {
			if r, err := filepath.EvalSymlinks(dir); err == nil {
				walk(filepath.Base(filepath.Dir(r)), depth+1)
			}
			return
		}
		if slaves, _ := os.ReadDir(filepath.Join(dir, "slaves")); len(slaves) > 0 {
			for _, s := range slaves {
				walk(s.Name(), depth+1)
			}
			return
		}
		b, err := os.ReadFile(filepath.Join(dir, "device/model"))
		if m := strings.TrimSpace(string(b)); err == nil && m != "" {
			out = appendNew(out, m)
		}
	}
	walk(filepath.Base(dev), 0)
	return out
}

// serverHeader asks the endpoint for its Server header with one
// unsigned GET / (an S3 server answers it, usually 403 or an anonymous
// empty bucket list, with its name). Not HEAD: radosgw answers an
// unsigned HEAD / with a body, which net/http finds on the idle
// connection and logs. The connection is closed after the answer, whose
// body is read (at most 64 KiB), so nothing arrives on an idle one.
func serverHeader(ctx context.Context, ep string, useTLS, insecure bool) string {
	if strings.ContainsAny(ep, "{}") {
		return "" // a range of endpoints: not one to ask
	}
	scheme := "http://"
	if useTLS {
		scheme = "https://"
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, scheme+ep+"/", nil)
	if err != nil {
		return ""
	}
	tr := &http.Transport{DisableKeepAlives: true, TLSClientConfig: &tls.Config{InsecureSkipVerify: insecure}} // #nosec: a name is read, nothing sent
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return ""
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return resp.Header.Get("Server")
}
