package infile_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/storbench/storbench/internal/exit"
	. "github.com/storbench/storbench/internal/infile"
	"github.com/storbench/storbench/internal/testutil"
)

// A regular file is read whole; anything else (a FIFO with no writer, a
// device that never ends, a directory) is refused at once, in one line
// naming it and what it is, exit code 2; a file over its limit is refused
// without reading past it; a missing file keeps Go's error, so callers
// can tell it apart.
func TestReadRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	regular := filepath.Join(dir, "suite.yaml")
	if err := os.WriteFile(regular, []byte("name: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, want string
	}{
		{fifo, "is a FIFO (named pipe)"},
		{link, "is a FIFO (named pipe)"},
		{"/dev/zero", "is a character device"},
		{"/dev/urandom", "is a character device"},
		{dir, "is a directory"},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := Read("suite", c.path, TextLimit)
			done <- err
		}()
		select {
		case err := <-done:
			if exit.CodeOf(err) != exit.BadInput || !strings.Contains(err.Error(), "suite "+c.path+" "+c.want) ||
				!strings.Contains(err.Error(), "give a regular file") || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: exit %d, %v", c.path, exit.CodeOf(err), err)
			}
			if !IsRefusal(err) {
				t.Errorf("%s: %v is not a refusal", c.path, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("reading %s did not end within 5s", c.path)
		}
	}
	if b, err := Read("suite", regular, TextLimit); err != nil || string(b) != "name: x\n" {
		t.Errorf("a regular file: %q, %v", b, err)
	}
	if b, err := Read("suite", regular, 8); err != nil || len(b) != 8 {
		t.Errorf("a file of exactly the limit: %q, %v", b, err)
	}
	if _, err := Read("suite", regular, 7); exit.CodeOf(err) != exit.BadInput || !strings.Contains(err.Error(), "larger than 7 B") {
		t.Errorf("a file over the limit: exit %d, %v", exit.CodeOf(err), err)
	}
	_, err := Read("suite", filepath.Join(dir, "missing"), TextLimit)
	if !errors.Is(err, fs.ErrNotExist) || IsRefusal(err) {
		t.Errorf("a missing file: %v", err)
	}
	if err := Check("suite", fifo); exit.CodeOf(err) != exit.BadInput {
		t.Errorf("Check of a FIFO: %v", err)
	}
	if err := Check("suite", filepath.Join(dir, "missing")); err != nil {
		t.Errorf("Check of a missing file: %v", err)
	}
}

// A zstd bomb (1 MB that decompresses to 32 GiB) is refused once past
// the limit, holding no more than it; what fits is decoded whole. The
// deadline is generous (a loaded machine, the race detector): decoding
// the whole bomb would take hours.
func TestUnzstdStopsABomb(t *testing.T) {
	bomb := testutil.ZstdBomb(1 << 20)
	start := time.Now()
	_, err := Unzstd("latency-seconds.zst", bomb, 4<<20)
	if exit.CodeOf(err) != exit.BadInput || !strings.Contains(err.Error(), "latency-seconds.zst decompresses to more than 4 MiB") {
		t.Errorf("bomb: exit %d, %v", exit.CodeOf(err), err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("refusing the bomb took %v", d)
	}
	enc, _ := zstd.NewWriter(nil)
	plain := bytes.Repeat([]byte("storbench "), 1000)
	small := enc.EncodeAll(plain, nil)
	if b, err := Unzstd("x", small, int64(len(plain))); err != nil || !bytes.Equal(b, plain) {
		t.Errorf("exactly the limit: %d bytes, %v", len(b), err)
	}
	if _, err := Unzstd("x", small, int64(len(plain))-1); exit.CodeOf(err) != exit.BadInput {
		t.Errorf("one byte over: %v", err)
	}
}
