package deploy_test

// The image's fio: its libraries, found as the dynamic loader finds them
// (ELF NEEDED entries, RUNPATH, the loader's default directories), are all
// in the image and nothing else is; the host architecture's fio runs from
// the image's files alone; the other architecture's root file system, as
// scripts/image-rootfs.sh assembles it, holds every library its fio needs.

import (
	"archive/tar"
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/s3test"
)

// elfTriplet is Debian's multiarch directory for a machine.
var elfTriplet = map[elf.Machine]string{elf.EM_X86_64: "x86_64-linux-gnu", elf.EM_AARCH64: "aarch64-linux-gnu"}

// fioClosure follows the NEEDED entries from root/usr/bin/fio the way the
// loader does and reports every library not found under root, or built for
// another machine. It returns the loader and the libraries found, as paths
// in root ("/usr/lib/...").
func fioClosure(t *testing.T, root string) (loader string, libs []string) {
	t.Helper()
	fio, err := elf.Open(filepath.Join(root, "usr/bin/fio"))
	if err != nil {
		t.Fatalf("the image's fio: %v", err)
	}
	defer fio.Close()
	for _, p := range fio.Progs {
		if p.Type == elf.PT_INTERP {
			b, _ := io.ReadAll(p.Open())
			loader = strings.TrimRight(string(b), "\x00")
		}
	}
	if loader == "" {
		t.Fatalf("fio names no program interpreter")
	}
	machine := fio.Machine
	triplet, ok := elfTriplet[machine]
	if !ok {
		t.Fatalf("fio is built for %v", machine)
	}
	if l, err := elf.Open(filepath.Join(root, loader)); err != nil {
		t.Errorf("fio's loader %s is not in the image: %v", loader, err)
	} else {
		if l.Machine != machine {
			t.Errorf("loader %s is for %v, fio for %v", loader, l.Machine, machine)
		}
		l.Close()
	}
	seen := map[string]bool{path.Base(loader): true} // the loader is its own soname
	queue := []string{"/usr/bin/fio"}
	for len(queue) > 0 {
		file := queue[0]
		queue = queue[1:]
		f, err := elf.Open(filepath.Join(root, file))
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		needed, _ := f.ImportedLibraries()
		var dirs []string
		for _, tag := range []elf.DynTag{elf.DT_RUNPATH, elf.DT_RPATH} {
			v, _ := f.DynString(tag)
			for _, s := range v {
				dirs = append(dirs, strings.Split(s, ":")...)
			}
		}
		f.Close()
		dirs = append(dirs, "/lib/"+triplet, "/usr/lib/"+triplet, "/lib", "/usr/lib")
		for _, so := range needed {
			if seen[so] {
				continue
			}
			seen[so] = true
			found := ""
			for _, d := range dirs {
				if fileExists(filepath.Join(root, d, so)) {
					found = path.Join(d, so)
					break
				}
			}
			if found == "" {
				t.Errorf("%s needs %s, which is not in the image (searched %q)", file, so, dirs)
				continue
			}
			if l, err := elf.Open(filepath.Join(root, found)); err != nil || l.Machine != machine {
				t.Errorf("%s: not a library for %v: %v", found, machine, err)
			} else {
				l.Close()
			}
			libs = append(libs, found)
			queue = append(queue, found)
		}
	}
	return loader, libs
}

// extractLayers writes the image's files under dir (the last layer
// winning) and returns the mode of every entry by its path.
func extractLayers(t *testing.T, layers []io.Reader, dir string) map[string]os.FileMode {
	t.Helper()
	modes := map[string]os.FileMode{}
	for _, r := range layers {
		tr := tar.NewReader(r)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("layer: %v", err)
			}
			name := path.Clean("/" + h.Name)
			modes[name] = h.FileInfo().Mode()
			p := filepath.Join(dir, name)
			switch h.Typeflag {
			case tar.TypeDir:
				if err := os.MkdirAll(p, 0o755); err != nil {
					t.Fatal(err)
				}
			case tar.TypeReg:
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(tr)
				if err := os.WriteFile(p, b, 0o755); err != nil {
					t.Fatal(err)
				}
			default:
				t.Errorf("image entry %s: type %c; the image holds files and folders only", name, h.Typeflag)
			}
		}
	}
	return modes
}

// checkImageFio checks the image's files extracted under dir: exactly the
// binary, the certificates, the user, /tmp, fio and fio's libraries; fio
// runs with the image's loader and libraries and no others.
func checkImageFio(t *testing.T, dir string, modes map[string]os.FileMode) {
	t.Helper()
	loader, libs := fioClosure(t, dir)
	want := append([]string{"/usr/bin/storbench", "/usr/bin/fio", "/etc/ssl/certs/ca-certificates.crt", "/etc/passwd", "/etc/group", loader}, libs...)
	var got []string
	for name, m := range modes {
		if m.IsRegular() {
			got = append(got, name)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("image files:\n%q\nwant the binary, certificates, passwd/group, fio and the libraries fio needs:\n%q", got, want)
	}
	if m := modes["/tmp"]; !m.IsDir() || m&os.ModeSticky == 0 || m.Perm() != 0o777 {
		t.Errorf("/tmp in the image: %v, want a world-writable sticky folder (drwxrwxrwt)", m)
	}
	passwd, _ := os.ReadFile(filepath.Join(dir, "etc/passwd"))
	if !strings.Contains(string(passwd), ":65532:65532:") {
		t.Errorf("etc/passwd has no user 65532 (the chart's non-root user):\n%s", passwd)
	}

	// The loader lists where each library comes from: all from the image.
	var libDirs []string
	for _, l := range libs {
		if d := filepath.Join(dir, path.Dir(l)); !slices.Contains(libDirs, d) {
			libDirs = append(libDirs, d)
		}
	}
	ld := filepath.Join(dir, loader)
	fio := filepath.Join(dir, "usr/bin/fio")
	args := []string{"--inhibit-cache", "--library-path", strings.Join(libDirs, ":")}
	out, err := exec.Command(ld, append(append(args, "--list"), fio)...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s --list fio: %v\n%s", loader, err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if _, where, ok := strings.Cut(line, "=> "); ok && !strings.HasPrefix(where, dir+"/") {
			t.Errorf("fio loads a library from outside the image: %s", strings.TrimSpace(line))
		}
	}
	out, err = exec.Command(ld, append(args, fio, "--version")...).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "fio-") {
		t.Errorf("the image's fio --version: %v: %q", err, out)
	}
}

// The other architecture's root file system, assembled from its packages
// (downloaded from the distribution's archive): every library fio needs is
// there, for that architecture, and nothing else. Slow the first time (the
// downloads); $STORBENCH_SYSROOT keeps them between runs.
func TestImageRootfsForeignArch(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads the other architecture's fio and libraries")
	}
	foreign := map[string]string{"amd64": "arm64", "arm64": "amd64"}[runtime.GOARCH]
	if runtime.GOOS != "linux" || foreign == "" || !fileExists("/usr/bin/fio") || os.Geteuid() != 0 {
		t.Skip("needs linux/amd64 or arm64, root (dpkg --add-architecture) and the distribution's fio installed")
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		t.Skip("needs apt-get (a Debian-based machine)")
	}
	root, err := s3test.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "rootfs")
	cmd := exec.Command(filepath.Join(root, "scripts", "image-rootfs.sh"), foreign, out)
	cmd.Env = os.Environ()
	if s := os.Getenv("STORBENCH_SYSROOT"); s != "" {
		cmd.Env = append(cmd.Env, "SYSROOT="+filepath.Join(s, foreign))
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		if strings.Contains(string(b), "apt-get download") {
			t.Skipf("the distribution's archive is not reachable: %s", b)
		}
		t.Fatalf("scripts/image-rootfs.sh %s: %v\n%s", foreign, err, b)
	}
	loader, libs := fioClosure(t, out)
	want := map[string]string{"amd64": "/lib64/ld-linux-x86-64.so.2", "arm64": "/lib/ld-linux-aarch64.so.1"}[foreign]
	if loader != want {
		t.Errorf("fio's loader %s, want %s", loader, want)
	}
	f, err := elf.Open(filepath.Join(out, "usr/bin/fio"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if m := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[foreign]; f.Machine != m {
		t.Errorf("fio is built for %v, want %v", f.Machine, m)
	}
	var got []string
	err = filepath.Walk(out, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			got = append(got, strings.TrimPrefix(p, out))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want2 := append([]string{"/usr/bin/fio", "/etc/passwd", "/etc/group", loader}, libs...)
	slices.Sort(got)
	slices.Sort(want2)
	if !slices.Equal(got, want2) {
		t.Errorf("%s root file system:\n%q\nwant fio, its loader, its libraries and the user:\n%q", foreign, got, want2)
	}
	if len(libs) < 5 {
		t.Errorf("fio needs %d libraries: %q; the distribution's fio links libc, libm, libz, libaio, libnuma at least", len(libs), libs)
	}
}
