package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/testutil"
)

// The README's first command, run on a terminal, shows a bar with a
// percentage while its phase runs (issue 36 item 3), read off the screen
// of a real terminal (tmux, from Debian: make tools installs it). Before,
// the line had only "3s/5s (2s left)". The phase runs its whole 5 s
// (--time-based): reading 16M alone can end before the first line.
func TestTerminalShowsABar(t *testing.T) {
	needFio(t)
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed (make tools installs it)")
	}
	bin := testutil.StorbenchBin(t)
	dir, res := t.TempDir(), t.TempDir()
	session := fmt.Sprintf("storbench-bar-%d", os.Getpid())
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tm := func(args ...string) (string, error) {
		out, err := exec.CommandContext(ctx, tmux, append([]string{"-S", sock}, args...)...).CombinedOutput()
		return string(out), err
	}
	cmd := strings.Join([]string{bin, "fio", "--rw", "randread", "--bs", "4k", "--iodepth", "16", "--ioengine", "libaio", "--size", "16M", "--runtime", "5s", "--time-based",
		"-d", dir, "--results", res, "--no-catalog", ";", "sleep", "600"}, " ")
	if out, err := tm("new-session", "-d", "-s", session, "-x", "200", "-y", "50", cmd); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	defer tm("kill-server")
	bar := regexp.MustCompile(`\[#*\.*\] +\d{1,3}% \d+s/\d+s`)
	ended := regexp.MustCompile(`run \S+ (completed|failed|interrupted)`)
	var screen string
	for ctx.Err() == nil {
		screen, _ = tm("capture-pane", "-p", "-t", session)
		if bar.MatchString(screen) || ended.MatchString(screen) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !bar.MatchString(screen) {
		t.Errorf("the terminal showed no bar with a percentage while the phase ran:\n%s", screen)
	}
}
