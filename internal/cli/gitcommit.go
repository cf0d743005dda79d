package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/run"
)

// gitFiles are the files --git-commit copies: the summaries and the run's
// settings, not the raw data.
var gitFiles = []string{"summary.json", "summary.md", "sweep.tsv", "run.json"}

func checkGitRepo(repo string) error {
	out, err := exec.Command("git", "-C", repo, "rev-parse", "--is-inside-work-tree").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "true" {
		return fmt.Errorf("--git-commit %s: not a git work tree", repo)
	}
	return nil
}

// gitCommit copies the run's summary files into repo/<results folder name>/
// and commits them with a message naming the run and its settings, as the
// Gluster procedure does by hand. It returns the message's first line.
func gitCommit(repo string, res *run.Result) (string, error) {
	name := filepath.Base(res.Folder.Path)
	dst := filepath.Join(repo, name)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return "", err
	}
	var added []string
	for _, f := range gitFiles {
		b, err := os.ReadFile(filepath.Join(res.Folder.Path, f))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
			return "", err
		}
		added = append(added, filepath.Join(name, f))
	}
	run := res.Folder.RunInfo()
	subject := fmt.Sprintf("storbench %s: %s (%s)", run.Name, res.Summary.Status, run.RunID)
	var body bytes.Buffer
	fmt.Fprintf(&body, "%s\n\ncommand: %s\n", subject, strings.Join(run.CommandLine, " "))
	fmt.Fprintf(&body, "storbench %s, fio %s, kernel %s\n", run.Versions.Storbench, run.Versions.Fio, run.Versions.Kernel)
	for _, t := range run.Targets {
		fmt.Fprintf(&body, "target: %s (%s)\n", t.Dir, t.FSType)
	}
	for _, p := range res.Summary.Phases {
		fmt.Fprintf(&body, "phase: %s (%s) %s\n", p.Name, p.Engine, p.Status)
	}
	if res.Summary.Status != results.StatusCompleted {
		fmt.Fprintf(&body, "run status: %s\n", res.Summary.Status)
	}
	if out, err := exec.Command("git", append([]string{"-C", repo, "add", "--"}, added...)...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("git add: %s", strings.TrimSpace(string(out)))
	}
	cmd := exec.Command("git", "-C", repo, "commit", "-q", "-F", "-")
	cmd.Stdin = &body
	// A repository without an identity still takes the commit.
	if id, _ := exec.Command("git", "-C", repo, "config", "user.email").Output(); len(bytes.TrimSpace(id)) == 0 {
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=storbench", "GIT_COMMITTER_NAME=storbench",
			"GIT_AUTHOR_EMAIL=storbench@localhost", "GIT_COMMITTER_EMAIL=storbench@localhost")
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("git commit: %s", strings.TrimSpace(string(out)))
	}
	return subject, nil
}
