package fio

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
)

// versions keeps what `fio --version` said for each binary, by the file's
// identity: a run asked it four times before its first job (finding fio,
// the run's record, the agent's hello, the phase's hooks), and fio, linked
// against many libraries, takes 40-900 ms to start on a loaded machine.
// A binary replaced in place (an upgrade) is another file and is asked
// again.
var versions = struct {
	sync.Mutex
	m map[fileID]string
}{m: map[fileID]string{}}

// fileID is what tells one file from another at a path.
type fileID struct {
	path       string
	dev, ino   uint64
	size, nsec int64
}

// Version returns "fio-3.33" for the given binary.
func Version(bin string) (string, error) {
	id, known := identify(bin)
	if known {
		versions.Lock()
		v, ok := versions.m[id]
		versions.Unlock()
		if ok {
			return v, nil
		}
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %v", bin, err)
	}
	v := strings.TrimSpace(string(out))
	if known {
		versions.Lock()
		versions.m[id] = v
		versions.Unlock()
	}
	return v, nil
}

// identify returns the identity of the file bin names (known false when
// it cannot be told: the binary is then asked every time).
func identify(bin string) (fileID, bool) {
	path, err := exec.LookPath(bin)
	if err != nil {
		return fileID{}, false
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{path: path, dev: uint64(st.Dev), ino: st.Ino, size: fi.Size(), nsec: fi.ModTime().UnixNano()}, true
}
