//go:build !linux

package fio

import (
	"errors"
	"io"
)

// growPipe leaves the pipe as it is where its size cannot be set.
func growPipe(io.Reader) {}

// statusAsker is Linux's only: elsewhere fio prints no status while it
// runs, and the phase has its final figures alone.
func statusAsker(int) (func() bool, func() error, func(), error) {
	return nil, nil, nil, errors.New("no pidfd")
}

// statusArgs are fio's own status timer where storbench cannot ask.
var statusArgs = []string{"--status-interval=1"}
