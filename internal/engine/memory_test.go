package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// MemAvailable is read in kB as the kernel writes it, and a plan past
// what this host has is refused as bad input naming both figures.
func TestMemoryAvailable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "meminfo")
	_ = os.WriteFile(p, []byte("MemTotal:       32768000 kB\nMemFree:          100 kB\nMemAvailable:    2048 kB\n"), 0o644)
	if n, ok := memAvailable(p); !ok || n != 2048<<10 {
		t.Errorf("memAvailable = %d, %v; want %d", n, ok, 2048<<10)
	}
	avail, ok := AvailableMemory()
	if !ok {
		t.Skip("no /proc/meminfo here")
	}
	if avail <= 0 {
		t.Fatalf("AvailableMemory = %d", avail)
	}
	if err := CheckMemory("x", avail/2, "y"); err != nil {
		t.Errorf("half of what is available refused: %v", err)
	}
	err := CheckMemory("--objects 9", 1<<62, "give fewer")
	if err == nil || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "--objects 9 needs about 4096 PiB") || !strings.Contains(err.Error(), "give fewer") {
		t.Errorf("CheckMemory(4 EiB) = %v", err)
	}
}
