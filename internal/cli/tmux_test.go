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

	"github.com/storbench/storbench/internal/s3test"
	"github.com/storbench/storbench/internal/testutil"
)

// The README's first command, run on a terminal, shows a bar with a
// percentage while its phase runs (issue 36 item 3), read off the screen
// of a real terminal (tmux, from Debian: make tools installs it). Before,
// the line had only "3s/5s (2s left)". The phase runs its whole 5 s
// (--time-based): reading 16M alone can end before the first line.
func TestTerminalShowsABar(t *testing.T) {
	t.Parallel()
	needFio(t)
	bin := testutil.StorbenchBin(t)
	dir, res := t.TempDir(), t.TempDir()
	screenShowsABar(t, t.TempDir(), strings.Join([]string{bin, "fio", "--rw", "randread", "--bs", "4k", "--iodepth", "16", "--ioengine", "libaio", "--size", "16M", "--runtime", "5s", "--time-based",
		"-d", dir, "--results", res, "--no-catalog"}, " "), false)
}

// make demo's command (scripts/demo.sh: the built-in quick suite against
// a versitygw of its own) shows a bar with a percentage on a terminal
// while its phases run (issue 36's must-show). It runs in a folder of its
// own, its run kept out of the user's catalog. Once the bar showed, the
// demo is stopped with Ctrl-C, as a person would (its whole run is
// make demo's and takes a minute and a half), and waited for to its end,
// so the script's trap stops its server.
func TestDemoShowsABar(t *testing.T) {
	t.Parallel()
	needFio(t)
	vgw, err := s3test.Binary()
	if err != nil {
		t.Skipf("versitygw: %v", err)
	}
	root, err := testutil.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := testutil.StorbenchBin(t)
	screenShowsABar(t, t.TempDir(), "STORBENCH_CATALOG=off VERSITYGW="+vgw+" "+filepath.Join(root, "scripts", "demo.sh")+" "+bin, true)
}

// screenShowsABar runs command in a tmux terminal in dir and reads its
// screen until a bar with a percentage shows, then (with interrupt, after
// typing Ctrl-C) waits for the run's last line.
func screenShowsABar(t *testing.T, dir, command string, interrupt bool) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed (make tools installs it)")
	}
	session := fmt.Sprintf("storbench-bar-%d", os.Getpid())
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	tm := func(args ...string) (string, error) {
		out, err := exec.CommandContext(ctx, tmux, append([]string{"-S", sock}, args...)...).CombinedOutput()
		return string(out), err
	}
	cmd := "cd " + dir + " && " + command + "; sleep 600"
	if out, err := tm("new-session", "-d", "-s", session, "-x", "200", "-y", "50", cmd); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	defer tm("kill-server")
	bar := regexp.MustCompile(`\[#*\.*\] +\d{1,3}% \d+s/\d+s`)
	ended := regexp.MustCompile(`run \S+ (completed|failed|interrupted)`)
	var screen string
	seen := false
	for ctx.Err() == nil {
		screen, _ = tm("capture-pane", "-p", "-t", session)
		if !seen && bar.MatchString(screen) {
			seen = true
			if interrupt {
				if out, err := tm("send-keys", "-t", session, "C-c"); err != nil {
					t.Fatalf("tmux send-keys: %v\n%s", err, out)
				}
			}
		}
		if ended.MatchString(screen) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !seen {
		t.Errorf("the terminal showed no bar with a percentage while the phases ran:\n%s", screen)
	}
	if !ended.MatchString(screen) {
		t.Errorf("the run did not end within its bound:\n%s", screen)
	}
}
