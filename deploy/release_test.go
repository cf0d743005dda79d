package deploy_test

// The release: scripts/release.sh run for this machine's architecture (make
// release builds amd64 and arm64), then every artefact checked the way a
// user meets it - the checksums, the static binary's `version`, the .deb
// installed into this system and removed again, the .rpm's files, and the
// OCI image unpacked and its binary run.

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/s3test"
)

// The release the tests build: a version and commit of their own, so what
// the artefacts print can only come from this build's stamps.
const (
	relVersion = "v0.9.9-deploytest.1"
	relCommit  = "0123456789abcdef0123456789abcdef01234567"
	relImage   = "localhost/storbench-deploytest"
)

var rel struct {
	once  sync.Once
	dir   string
	image bool // an image was built (podman is here)
	err   error
	skip  string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if rel.dir != "" {
		os.RemoveAll(rel.dir)
	}
	os.Exit(code)
}

// nfpmBin finds nfpm: $STORBENCH_NFPM (make test sets it), <repo>/.tools/nfpm
// or PATH.
func nfpmBin(root string) string {
	if p := os.Getenv("STORBENCH_NFPM"); p != "" {
		return p
	}
	if p := filepath.Join(root, ".tools", "nfpm"); fileExists(p) {
		return p
	}
	p, _ := exec.LookPath("nfpm")
	return p
}

// release builds the artefacts once and returns their folder.
func release(t *testing.T) string {
	t.Helper()
	rel.once.Do(func() {
		if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
			rel.skip = "releases are built on linux/amd64 or linux/arm64"
			return
		}
		root, err := s3test.RepoRoot()
		if err != nil {
			rel.err = err
			return
		}
		nfpm := nfpmBin(root)
		if nfpm == "" {
			rel.skip = "nfpm is missing: `make test` installs it into .tools/ (go install github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2); or set STORBENCH_NFPM"
			return
		}
		dir, err := os.MkdirTemp("", "storbench-release-")
		if err != nil {
			rel.err = err
			return
		}
		rel.dir = dir
		var extra []string
		if _, err := exec.LookPath("podman"); err == nil {
			rel.image = true
		} else {
			extra = append(extra, "NO_IMAGE=1")
		}
		rel.err = runRelease(root, nfpm, dir, extra...)
	})
	if rel.skip != "" {
		t.Skip(rel.skip)
	}
	if rel.err != nil {
		t.Fatal(rel.err)
	}
	return rel.dir
}

// runRelease runs scripts/release.sh into dir for this machine's
// architecture.
func runRelease(root, nfpm, dir string, extraEnv ...string) error {
	env := append(baseEnv(), "GOCACHE="+goEnv("GOCACHE"), "GOMODCACHE="+goEnv("GOMODCACHE"), "GOPATH="+goEnv("GOPATH"),
		"GOFLAGS="+os.Getenv("GOFLAGS"), "GOPROXY="+goEnv("GOPROXY"),
		"VERSION="+relVersion, "COMMIT="+relCommit, "ARCHES="+runtime.GOARCH, "NFPM="+nfpm, "IMAGE="+relImage)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(root, "scripts", "release.sh"), dir)
	cmd.Env = append(env, extraEnv...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("scripts/release.sh: %v\n%s", err, out)
	}
	return nil
}

// A release made a second time into the same folder replaces its
// packages (nfpm keeps their names) instead of failing to find them.
func TestReleaseTwiceInOneFolder(t *testing.T) {
	t.Parallel()
	release(t) // skips where releases cannot be built
	root, err := s3test.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i := range 2 {
		if err := runRelease(root, nfpmBin(root), dir, "NO_IMAGE=1"); err != nil {
			t.Fatalf("release %d: %v", i+1, err)
		}
	}
	artefact(t, dir, "*.deb")
	artefact(t, dir, "*.rpm")
}

func goEnv(key string) string {
	out, _ := exec.Command("go", "env", key).Output()
	return strings.TrimSpace(string(out))
}

// artefact returns the one file in dir matching pattern.
func artefact(t *testing.T, dir, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, pattern))
	if len(m) != 1 {
		t.Fatalf("want one %s in the release, found %v", pattern, m)
	}
	return m[0]
}

// checkVersionOutput checks `storbench version` text from a release binary.
func checkVersionOutput(t *testing.T, what string, out []byte) {
	t.Helper()
	lines := strings.Split(string(out), "\n")
	if lines[0] != "storbench "+relVersion || !slices.Contains(lines, "commit: "+relCommit) || !slices.Contains(lines, "cgo: off") {
		t.Errorf("%s version says:\n%s\nwant storbench %s, commit %s, cgo off", what, out, relVersion, relCommit)
	}
}

func TestReleaseArtefacts(t *testing.T) {
	t.Parallel()
	dir := release(t)
	// SHA256SUMS covers every artefact, with the right sums.
	f, err := os.Open(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	listed := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q", sc.Text())
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("SHA256SUMS names %s: %v", name, err)
		}
		if h := sha256.Sum256(b); hex.EncodeToString(h[:]) != sum {
			t.Errorf("%s: SHA256SUMS says %s, the file hashes to %x", name, sum, h)
		}
		listed[name] = true
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "SHA256SUMS" && !listed[e.Name()] {
			t.Errorf("%s is not in SHA256SUMS", e.Name())
		}
	}
	want := []string{"storbench-" + relVersion + "-linux-" + runtime.GOARCH, "*.deb", "*.rpm"}
	if rel.image {
		want = append(want, "storbench-"+relVersion+"-linux-"+runtime.GOARCH+".oci.tar")
	}
	for _, p := range want {
		artefact(t, dir, p)
	}
	if len(listed) != len(want) {
		t.Errorf("SHA256SUMS lists %d artefacts, want %d (%q)", len(listed), len(want), want)
	}

	// The binary is static and says which release it is.
	bin := artefact(t, dir, "storbench-"+relVersion+"-linux-"+runtime.GOARCH)
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s has a program interpreter: not a static binary", filepath.Base(bin))
		}
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s version: %v\n%s", bin, err, out)
	}
	checkVersionOutput(t, "the release binary", out)
	out, err = exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("version --json: %v\n%s", err, out)
	}
	for k, w := range map[string]any{"version": relVersion, "commit": relCommit, "os": "linux", "arch": runtime.GOARCH, "cgo": false, "race": false, "s3_raw_syscalls": true} {
		if v[k] != w {
			t.Errorf("version --json %s: %v, want %v", k, v[k], w)
		}
	}
}

// debFiles are what the packages must install.
var debFiles = []string{
	"/usr/bin/storbench",
	"/usr/lib/systemd/system/storbench-agent.service",
	"/usr/share/bash-completion/completions/storbench",
	"/usr/share/zsh/vendor-completions/_storbench",
	"/usr/share/fish/vendor_completions.d/storbench.fish",
	"/usr/share/man/man1/storbench.1.gz",
	"/usr/share/man/man1/storbench-fio.1.gz",
	"/usr/share/man/man1/storbench-s3-get.1.gz",
	"/usr/share/doc/storbench/copyright",
}

// dpkg runs dpkg, waiting while another package manager holds its lock.
func dpkg(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		cmd := exec.Command("dpkg", args...)
		cmd.Env = append(baseEnv(), "DEBIAN_FRONTEND=noninteractive")
		out, err := cmd.CombinedOutput()
		if err == nil || !bytes.Contains(out, []byte("lock")) || time.Now().After(deadline) {
			return out, err
		}
		time.Sleep(2 * time.Second)
	}
}

// The .deb installs into this system with dpkg -i, `storbench version` from
// /usr/bin says the release, the completions and the unit are in place and
// load, and dpkg --purge leaves the system as it was.
func TestReleaseDebInstalls(t *testing.T) {
	t.Parallel()
	dir := release(t)
	deb := artefact(t, dir, "*.deb")
	if _, err := exec.LookPath("dpkg"); err != nil {
		t.Skip("dpkg is missing: the .deb installs on Debian and Ubuntu")
	}
	out, err := exec.Command("dpkg-deb", "--contents", deb).Output()
	if err != nil {
		t.Fatalf("dpkg-deb --contents: %v", err)
	}
	for _, p := range debFiles {
		if !bytes.Contains(out, []byte(" ."+p+"\n")) {
			t.Errorf("the .deb lacks %s:\n%s", p, out)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("installing the .deb needs root")
	}
	if st, _ := exec.Command("dpkg-query", "-W", "-f", "${Status}", "storbench").Output(); strings.Contains(string(st), "installed") {
		t.Skip("a storbench package is installed here: the test would replace it")
	}
	for _, p := range debFiles {
		if fileExists(p) {
			t.Skipf("%s exists: installing the .deb would overwrite it", p)
		}
	}
	etcBefore := fileExists("/etc/storbench")

	installed := false
	t.Cleanup(func() {
		if !installed {
			return
		}
		if out, err := dpkg(t, "--purge", "storbench"); err != nil {
			t.Errorf("dpkg --purge storbench: %v\n%s", err, out)
		}
		for _, p := range debFiles {
			if fileExists(p) {
				t.Errorf("%s is left after dpkg --purge", p)
			}
		}
		if !etcBefore && fileExists("/etc/storbench") {
			t.Errorf("/etc/storbench is left after dpkg --purge")
		}
	})
	if out, err := dpkg(t, "-i", deb); err != nil {
		installed = true // half-installed: purge it
		t.Fatalf("dpkg -i: %v\n%s", err, out)
	}
	installed = true
	out, err = exec.Command("/usr/bin/storbench", "version").CombinedOutput()
	if err != nil {
		t.Fatalf("/usr/bin/storbench version: %v\n%s", err, out)
	}
	checkVersionOutput(t, "the installed /usr/bin/storbench", out)
	if fi, err := os.Stat("/etc/storbench"); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("/etc/storbench (the token's folder): %v, want mode 0700", err)
	}
	// bash loads the completion and it completes storbench's commands.
	out, err = exec.Command("bash", "-c", `source /usr/share/bash-completion/completions/storbench && complete -p storbench`).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "storbench") {
		t.Errorf("bash completion does not load: %v\n%s", err, out)
	}
	out, err = exec.Command("/usr/bin/storbench", "__complete", "ver").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "version") {
		t.Errorf("completion of 'ver': %v\n%s", err, out)
	}
	// man finds the pages, made from the commands' help.
	if _, err := exec.LookPath("man"); err == nil {
		for page, want := range map[string]string{"storbench": "storbench fio", "storbench-fio": "--runtime"} {
			cmd := exec.Command("man", page)
			cmd.Env = append(baseEnv(), "MANPAGER=cat", "MANWIDTH=100")
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), want) {
				t.Errorf("man %s: %v (want %q in it)\n%s", page, err, want, out)
			}
		}
	}
	if b, err := os.ReadFile("/usr/share/doc/storbench/copyright"); err != nil || !strings.Contains(string(b), "License: Apache-2.0") {
		t.Errorf("/usr/share/doc/storbench/copyright: %v, want the Apache-2.0 licence named", err)
	}
	if sa, err := exec.LookPath("systemd-analyze"); err == nil {
		if out, err := exec.Command(sa, "verify", "/usr/lib/systemd/system/storbench-agent.service").CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
			t.Errorf("systemd-analyze verify of the installed unit: %v\n%s", err, out)
		}
	}
}

// The .rpm holds the same files (zsh's completion where RPM distributions
// look for it) and says the release's version.
func TestReleaseRPM(t *testing.T) {
	t.Parallel()
	dir := release(t)
	rpmFile := artefact(t, dir, "*.rpm")
	if _, err := exec.LookPath("rpm"); err != nil {
		t.Skip("rpm is missing (Debian's rpm package): `make test` installs it")
	}
	out, err := exec.Command("rpm", "-qpl", rpmFile).CombinedOutput()
	if err != nil {
		t.Fatalf("rpm -qpl: %v\n%s", err, out)
	}
	files := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, p := range debFiles {
		switch {
		case strings.Contains(p, "vendor-completions"):
			p = "/usr/share/zsh/site-functions/_storbench"
		case p == "/usr/share/doc/storbench/copyright":
			p = "/usr/share/licenses/storbench/LICENSE"
		}
		if !slices.Contains(files, p) {
			t.Errorf("the .rpm lacks %s: %q", p, files)
		}
	}
	if out, err := exec.Command("rpm", "-qp", "--qf", "%{LICENSE}", rpmFile).CombinedOutput(); err != nil || string(out) != "Apache-2.0" {
		t.Errorf("the .rpm's License: %v %q, want Apache-2.0", err, out)
	}
	out, err = exec.Command("rpm", "-qp", "--qf", "%{NAME} %{VERSION} %{ARCH}", rpmFile).CombinedOutput()
	want := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
	if err != nil || !strings.HasPrefix(string(out), "storbench 0.9.9") || !strings.HasSuffix(string(out), want) {
		t.Errorf("rpm -qp: %v: %q, want storbench 0.9.9... %s", err, out, want)
	}
}

// ociArchive is an OCI image layout read from a tar (podman image save
// --format oci-archive).
type ociArchive map[string][]byte

func readOCIArchive(t *testing.T, p string) ociArchive {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a := ociArchive{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return a
		}
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if h.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			a[strings.TrimPrefix(h.Name, "./")] = b
		}
	}
}

type ociDescriptor struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
}

// blob returns a blob by digest, checking the digest.
func (a ociArchive) blob(t *testing.T, d ociDescriptor) []byte {
	t.Helper()
	hexDigest, ok := strings.CutPrefix(d.Digest, "sha256:")
	b, found := a["blobs/sha256/"+hexDigest]
	if !ok || !found {
		t.Fatalf("the archive has no blob %s", d.Digest)
	}
	if h := sha256.Sum256(b); hex.EncodeToString(h[:]) != hexDigest {
		t.Fatalf("blob %s hashes to %x", d.Digest, h)
	}
	return b
}

// The image built FROM scratch: its entrypoint is the binary, which is in
// its layers with CA certificates, and runs; running the container itself
// is tried, and skipped where this machine forbids containers.
func TestReleaseImage(t *testing.T) {
	t.Parallel()
	dir := release(t)
	if !rel.image {
		t.Skip("podman is missing: `make test` installs it; no image was built")
	}
	archive := artefact(t, dir, "*.oci.tar")
	a := readOCIArchive(t, archive)
	var index struct {
		Manifests []ociDescriptor `json:"manifests"`
	}
	if err := json.Unmarshal(a["index.json"], &index); err != nil || len(index.Manifests) != 1 {
		t.Fatalf("index.json: %v, %d manifests, want 1", err, len(index.Manifests))
	}
	var manifest struct {
		Config ociDescriptor   `json:"config"`
		Layers []ociDescriptor `json:"layers"`
	}
	if err := json.Unmarshal(a.blob(t, index.Manifests[0]), &manifest); err != nil {
		t.Fatal(err)
	}
	var config struct {
		Architecture string `json:"architecture"`
		OS           string `json:"os"`
		Config       struct {
			Entrypoint []string          `json:"Entrypoint"`
			Labels     map[string]string `json:"Labels"`
		} `json:"config"`
	}
	if err := json.Unmarshal(a.blob(t, manifest.Config), &config); err != nil {
		t.Fatal(err)
	}
	if config.Architecture != runtime.GOARCH || config.OS != "linux" {
		t.Errorf("image platform %s/%s, want linux/%s", config.OS, config.Architecture, runtime.GOARCH)
	}
	if !slices.Equal(config.Config.Entrypoint, []string{"/usr/bin/storbench"}) {
		t.Errorf("entrypoint %q, want [/usr/bin/storbench]", config.Config.Entrypoint)
	}
	if v := config.Config.Labels["org.opencontainers.image.version"]; v != relVersion {
		t.Errorf("image version label %q, want %s", v, relVersion)
	}

	// The files of every layer, the last layer winning.
	files := map[string][]byte{}
	for _, l := range manifest.Layers {
		var r io.Reader = bytes.NewReader(a.blob(t, l))
		if strings.HasSuffix(l.MediaType, "+gzip") {
			zr, err := gzip.NewReader(r)
			if err != nil {
				t.Fatal(err)
			}
			r = zr
		}
		tr := tar.NewReader(r)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("layer %s: %v", l.Digest, err)
			}
			if h.Typeflag == tar.TypeReg {
				b, _ := io.ReadAll(tr)
				files[strings.TrimPrefix(h.Name, "./")] = b
			}
		}
	}
	var names []string
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"etc/ssl/certs/ca-certificates.crt", "usr/bin/storbench"}) {
		t.Errorf("image files %q, want the binary and the CA certificates alone", names)
	}
	bin := writeFile(t, t.TempDir(), "storbench", string(files["usr/bin/storbench"]), 0o755)
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("the image's binary: %v\n%s", err, out)
	}
	checkVersionOutput(t, "the image's binary", out)

	// Now the container itself.
	out, err = exec.Command("podman", "load", "-q", "-i", archive).CombinedOutput()
	if err != nil {
		t.Fatalf("podman load: %v\n%s", err, out)
	}
	ref := relImage + ":" + relVersion + "-" + runtime.GOARCH
	t.Cleanup(func() { _ = exec.Command("podman", "rmi", "-f", ref).Run() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err = exec.CommandContext(ctx, "podman", "run", "--rm", "--network", "none", ref, "version").CombinedOutput()
	if err != nil {
		for _, forbidden := range []string{"OCI permission denied", "setrlimit", "namespace", "cgroup", "newuidmap", "operation not permitted"} {
			if strings.Contains(strings.ToLower(string(out)), strings.ToLower(forbidden)) {
				t.Skipf("this machine cannot run containers (the image itself was checked above): podman run: %s", strings.TrimSpace(string(out)))
			}
		}
		t.Fatalf("podman run %s version: %v\n%s", ref, err, out)
	}
	checkVersionOutput(t, "the container", out)
}
