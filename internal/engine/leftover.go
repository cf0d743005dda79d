package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/storbench/storbench/internal/model"
)

// Leftover is something a phase created that its cleanup could not remove
// (model.Leftover: summary.json keeps it).
type Leftover = model.Leftover

// LeftoverError is what Cleanup returns when it could not remove
// everything: the typed description of what stays, and why.
type LeftoverError struct {
	Items []Leftover
}

func (e *LeftoverError) Error() string {
	var parts []string
	for _, l := range e.Items {
		parts = append(parts, l.Text())
	}
	return "left behind: " + strings.Join(parts, "; ")
}

// Leftovers returns the leftovers an error describes: the items of a
// LeftoverError, or, for any other error, one item naming host and the
// error (nothing is known of what stayed).
func Leftovers(host string, err error) []Leftover {
	if err == nil {
		return nil
	}
	var le *LeftoverError
	if errors.As(err, &le) {
		out := append([]Leftover(nil), le.Items...)
		for i := range out {
			if out[i].Host == "" {
				out[i].Host = host
			}
		}
		return out
	}
	return []Leftover{{Host: host, What: "files or objects", Where: "unknown", Reason: "cleanup: " + err.Error()}}
}

// countEntries counts the files and directories at and under path; ok is
// false when it cannot be walked at all.
func countEntries(path string) (int64, bool) {
	var n int64
	err := filepath.WalkDir(path, func(_ string, _ fs.DirEntry, err error) error {
		if err == nil {
			n++
		}
		return nil
	})
	return n, err == nil && n > 0
}

// ErrInterrupted marks a phase stopped before its end because its context
// ended (Ctrl-C, a lost controller, an early stop): Run then returns what
// was measured and an error that is ErrInterrupted, made by Interrupted.
// The agent, not the engine, decides what that means: a stop it asked for
// (autoterm) is a normal end, anything else marks the host's result
// interrupted.
var ErrInterrupted = errors.New("interrupted")

// Interrupted returns the error Run returns when ctx ended the phase: it
// reads as cause (ctx's error) and is both cause and ErrInterrupted to
// errors.Is.
func Interrupted(cause error) error {
	if cause == nil {
		cause = ErrInterrupted
	}
	return &interrupted{cause}
}

type interrupted struct{ cause error }

func (e *interrupted) Error() string        { return e.cause.Error() }
func (e *interrupted) Unwrap() error        { return e.cause }
func (e *interrupted) Is(target error) bool { return target == ErrInterrupted }

// ErrUnsupported marks an error saying the target lacks a feature the
// phase needs (an S3 server without bucket versioning): bad input, found
// before any load ran.
var ErrUnsupported = errors.New("unsupported by the target")

// Unsupported wraps msg as an ErrUnsupported error whose text is msg alone.
func Unsupported(msg string) error { return &unsupported{msg} }

type unsupported struct{ msg string }

func (u *unsupported) Error() string        { return u.msg }
func (u *unsupported) Is(target error) bool { return target == ErrUnsupported }

// WithLeftovers returns err together with what a cleanup after it left
// (le may be nil): errors.Is and errors.As find both.
func WithLeftovers(err error, le error) error {
	var l *LeftoverError
	if le == nil || !errors.As(le, &l) {
		if le != nil && err != nil {
			return fmt.Errorf("%w; cleanup: %w", err, le)
		}
		if err == nil {
			return le
		}
		return err
	}
	if err == nil {
		return l
	}
	return &leftoverWrap{err: err, le: l}
}

type leftoverWrap struct {
	err error
	le  *LeftoverError
}

func (w *leftoverWrap) Error() string   { return w.err.Error() + "; " + w.le.Error() }
func (w *leftoverWrap) Unwrap() []error { return []error{w.err, w.le} }

// SplitLeftovers separates an error from the leftovers it carries: base is
// the error without them (nil when it was only a LeftoverError), for a
// protocol that carries the two apart.
func SplitLeftovers(err error) (base error, items []Leftover) {
	switch e := err.(type) {
	case *leftoverWrap:
		return e.err, e.le.Items
	case *LeftoverError:
		return nil, e.Items
	}
	var le *LeftoverError
	if errors.As(err, &le) {
		return err, le.Items
	}
	return err, nil
}

// OnHost names host in the leftovers err carries that name no host yet,
// and returns err.
func OnHost(err error, host string) error {
	var le *LeftoverError
	if errors.As(err, &le) {
		for i := range le.Items {
			if le.Items[i].Host == "" {
				le.Items[i].Host = host
			}
		}
	}
	return err
}
