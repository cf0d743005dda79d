// Package testutil holds helpers shared by tests of several packages.
package testutil

import (
	"bytes"
	"strings"
	"sync"
	"time"
)

// Buffer is a bytes.Buffer a test may read while a run or a process writes
// to it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Reset empties the buffer.
func (s *Buffer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}

// WaitFor waits until sub has been written, for at most within, and says
// whether it was.
func (s *Buffer) WaitFor(sub string, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if strings.Contains(s.String(), sub) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return strings.Contains(s.String(), sub)
}
