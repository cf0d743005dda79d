// Package infile reads the files storbench is given: those a user names
// (a suite, a job file, a host list, a token, a certificate, a spec,
// credentials) and those of a results folder (summary.json, run.json,
// result.json, latency-seconds.zst) or a benchdata file. Each is read the
// same way, here: it must be a regular file (a FIFO, a device such as
// /dev/zero, a directory or a socket is refused without reading a byte,
// and a FIFO never blocks the open), no larger than the limit stated for
// its kind, and what it decompresses to is bounded too. A refusal is one
// line naming the file and what to give, with exit code 2 (bad input).
//
// It imports nothing of storbench's but the exit codes, so every
// layer may use it: the results readers, the engines, the cluster and the
// command line.
package infile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/storbench/storbench/internal/exit"
)

// The size limits of what storbench reads, by kind. Each is far above
// what storbench writes or a user writes by hand, and low enough that
// reading a file at the limit leaves the machine usable.
const (
	// TextLimit bounds a file a user writes: a suite, a fio job file, a
	// host list (--agents-file, --hostfile), a spec, an S3 credentials
	// file, the AWS shared files.
	TextLimit = 16 << 20
	// SecretLimit bounds a key or certificate file (--tls-cert,
	// --tls-key, --tls-ca, --ca-cert): a chain of certificates.
	SecretLimit = 1 << 20
	// TokenLimit bounds a token file (--token-file): its first line is
	// the token.
	TokenLimit = 64 << 10
	// RunInfoLimit bounds a results folder's run.json.
	RunInfoLimit = 64 << 20
	// ResultLimit bounds a results folder's summary.json and a host's
	// result.json (a day-long phase's per-second series is tens of MB).
	ResultLimit = 256 << 20
	// LatencyLimit bounds what a host's latency-seconds.zst may decode
	// to, whatever its phase's length; the bound a phase's own figures
	// allow is usually far lower (record.LatSecondsBound).
	LatencyLimit = 256 << 20
	// CompressedLimit bounds a compressed file read whole (a host's
	// latency-seconds.zst).
	CompressedLimit = 64 << 20
)

// Read reads the regular file at path whole: what names it in errors
// before its path (a flag, "suite"; "" for the path alone). A path that is not a regular file, or a
// file larger than limit bytes, is refused with exit code 2 before more
// than limit bytes are read. Errors opening the file (it does not exist,
// no permission) keep their *fs.PathError, so errors.Is still tells them
// apart.
func Read(what, path string, limit int64) ([]byte, error) {
	f, err := Open(what, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, TooLarge(what, path, limit)
	}
	return b, nil
}

// Open opens the regular file at path for reading, for a reader that
// streams it: what names it in errors. Anything but a regular file is
// refused (exit code 2): it is looked at first (a device is never opened:
// opening one may act), then opened without blocking (a FIFO swapped in
// after the look would otherwise wait for a writer forever) and looked at
// again through the open file.
func Open(what, path string) (*os.File, error) {
	fi, err := os.Stat(path)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		// Said as the open that was asked for (no such file, no
		// permission), as messages always said it.
		return nil, &fs.PathError{Op: "open", Path: pe.Path, Err: pe.Err}
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(what, path, fi.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	fi, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(what, path, fi.Mode())
	}
	return f, nil
}

// Check refuses a path that is there but is not a regular file, as Open
// would, without opening it; a path that is not there passes (the caller
// says what that means).
func Check(what, path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	if !fi.Mode().IsRegular() {
		return notRegular(what, path, fi.Mode())
	}
	return nil
}

// IsRefusal reports an error of this package's refusals (not a regular
// file, too large, decoding to too much), as opposed to one of the file
// system.
func IsRefusal(err error) bool {
	var r *refusal
	return errors.As(err, &r)
}

// refusal is a file refused for its kind or size: bad input.
type refusal struct{ msg string }

func (r *refusal) Error() string { return r.msg }

func refuse(format string, args ...any) error {
	return &exit.Error{Code: exit.BadInput, Err: &refusal{msg: fmt.Sprintf(format, args...)}}
}

// notRegular says what the file is instead of a regular file.
func notRegular(what, path string, m fs.FileMode) error {
	return refuse("%s is %s: give a regular file", name(what, path), Kind(m))
}

// Kind says what a file of mode m is, in words: "a FIFO (named pipe)",
// "a character device", "a directory".
func Kind(m fs.FileMode) string {
	kind := "not a regular file"
	switch {
	case m.IsDir():
		kind = "a directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "a FIFO (named pipe)"
	case m&fs.ModeCharDevice != 0:
		kind = "a character device"
	case m&fs.ModeDevice != 0:
		kind = "a block device"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m.IsRegular():
		kind = "a regular file"
	}
	return kind
}

// name is what and path as a message names them: "--token-file /x", or
// the path alone.
func name(what, path string) string {
	if what == "" {
		return path
	}
	return what + " " + path
}

// TooLarge is the refusal of a file over its kind's limit.
func TooLarge(what, path string, limit int64) error {
	return refuse("%s is larger than %s, the most storbench reads for it: give the right file", name(what, path), Size(limit))
}

// Size says a limit in the largest binary unit that divides it ("16 MiB",
// "7 B"), as the limits are stated.
func Size(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}
