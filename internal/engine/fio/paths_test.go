package fio

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/testutil"
)

// pathCase is one job file (or one override) and what the path rules must
// say about it: refused with a message holding want, or accepted (want "").
type pathCase struct {
	name string
	job  string
	// options are command-line / suite overrides (fio.Overrides.Options).
	options map[string]string
	// allowExec is the agent's --allow-exec.
	allowExec bool
	want      string
}

// pathCases hold at least one case for every row of PathRules (checked by
// TestPathRulesHaveCases), and the spellings fio accepts that a naive check
// misses: case, blanks around '=', global sections, options given as
// overrides, '..', absolute paths, ':' lists, ${VAR}, inline comments.
var pathCases = []pathCase{
	// directory: storbench replaces it.
	{name: "directory", job: "[j]\ndirectory=/etc\n"},
	{name: "directory in global", job: "[global]\ndirectory=/mnt/weka:/etc\n[j]\n"},

	// filename: a ':' list of names relative to the job's directory.
	{name: "filename relative", job: "[j]\nfilename=a:sub/b\n"},
	{name: "filename absolute", job: "[j]\nfilename=/dev/sda\n", want: "absolute path"},
	{name: "filename list hides absolute", job: "[j]\nfilename=a:/etc/passwd\n", want: "absolute path"},
	{name: "filename list hides dotdot", job: "[j]\nfilename=a:../b\n", want: "'..'"},
	{name: "filename dotdot inside", job: "[j]\nfilename=sub/../../../x\n", want: "'..'"},
	{name: "filename stdin", job: "[j]\nfilename=-\n", want: "stdin"},
	{name: "filename case and blanks", job: "[j]\n  FileName   =   /etc/x  \n", want: "absolute path"},
	{name: "filename env", job: "[j]\nfilename=${HOME}/x\n", want: "${VAR}"},
	{name: "filename inline comment kept out", job: "[j]\nfilename=ok ; /etc/x\n"},
	{name: "filename before inline comment", job: "[j]\nfilename=/etc/x#ok\n", want: "absolute path"},
	{name: "filename in global", job: "[global]\nfilename=/tmp/x\n[j]\n", want: "absolute path"},
	{name: "filename in global-prefixed section", job: "[globalstuff]\nfilename=/tmp/x\n[j]\n", want: "absolute path"},
	{name: "filename as override", job: "[j]\nrw=read\n", options: map[string]string{"filename": "/tmp/x"}, want: "absolute path"},

	// filename_format: checked after fio's keywords are filled in.
	{name: "filename_format", job: "[j]\nfilename_format=$jobname/$jobnum/$filenum\n"},
	{name: "filename_format absolute", job: "[j]\nfilename_format=/tmp/$jobnum\n", want: "absolute path"},
	{name: "filename_format dotdot", job: "[j]\nfilename_format=$filenum/../../$jobnum\n", want: "'..'"},
	{name: "filename_format keyword case", job: "[j]\nfilename_format=$JOBNAME/$JobNum\n"},

	// opendir: fio adds every file below it.
	{name: "opendir", job: "[j]\nopendir=data\n"},
	{name: "opendir root", job: "[j]\nopendir=/\n", want: "absolute path"},

	// name and section names: fio names files and logs after them.
	{name: "name", job: "[j]\nname=fine\n"},
	{name: "name with slash", job: "[j]\nname=../../tmp/x\n", want: "one path element"},
	{name: "section name with slash", job: "[a/../../../tmp/x]\nrw=read\n", want: "one path element"},
	{name: "section name dotdot", job: "[..]\nfilename_format=$jobname/x\n", want: "one path element"},

	// the logs.
	{name: "write_iolog", job: "[j]\nwrite_iolog=io.log\n"},
	{name: "write_iolog absolute", job: "[j]\nwrite_iolog=/any/file\n", want: "absolute path"},
	{name: "write_iolog as override", job: "[j]\n", options: map[string]string{"write_iolog": "/any/file"}, want: "absolute path"},
	{name: "write_iolog upper case override", job: "[j]\n", options: map[string]string{"WRITE_IOLOG": "/any/file"}, want: "absolute path"},
	{name: "write_bw_log", job: "[j]\nwrite_bw_log=bw\n"},
	{name: "write_bw_log bare", job: "[j]\nwrite_bw_log\n"},
	{name: "write_bw_log absolute", job: "[j]\nwrite_bw_log=/any/prefix\n", want: "absolute path"},
	{name: "write_bw_log blanks", job: "[j]\nwrite_bw_log = /any/prefix\n", want: "absolute path"},
	{name: "write_bw_log dotdot", job: "[global]\nwrite_bw_log=logs/../../x\n[j]\n", want: "'..'"},
	{name: "write_lat_log", job: "[j]\nwrite_lat_log=/any/prefix\n", want: "absolute path"},
	{name: "write_iops_log", job: "[j]\nwrite_iops_log=/any/prefix\n", want: "absolute path"},
	{name: "write_hist_log", job: "[j]\nwrite_hist_log=../prefix\n", want: "'..'"},

	// memory backed by a file.
	{name: "mem malloc", job: "[j]\nmem=malloc\n"},
	{name: "mem mmap file", job: "[j]\nmem=mmap:buf\n"},
	{name: "mem mmap absolute", job: "[j]\nmem=mmap:/dev/shm/x\n", want: "absolute path"},
	{name: "iomem mmaphuge absolute", job: "[j]\niomem=mmaphuge:/hugepages/x\n", want: "absolute path"},

	// patterns that name files fio reads into the data it writes.
	{name: "buffer_pattern bytes", job: "[j]\nbuffer_pattern=0xdeadbeef\n"},
	{name: "buffer_pattern string with quote", job: "[j]\nbuffer_pattern=\"it's\"\n"},
	{name: "buffer_pattern file", job: "[j]\nbuffer_pattern='/etc/shadow'\n", want: "absolute path"},
	{name: "verify_pattern file", job: "[j]\nverify_pattern=0x01'../../secret'\n", want: "'..'"},

	// state files land in fio's working directory, the job's directory.
	{name: "verify_state_save", job: "[j]\nverify_state_save=1\n"},
	{name: "verify_state_load", job: "[j]\nverify_state_load=1\n"},

	// refused whatever the value.
	{name: "read_iolog", job: "[j]\nread_iolog=trace.log\n", want: "read_iolog"},
	{name: "replay_redirect", job: "[j]\nreplay_redirect=/dev/sdb\n", want: "replay_redirect"},
	{name: "merge_blktrace_file", job: "[j]\nmerge_blktrace_file=m\n", want: "merge_blktrace_file"},
	{name: "ioscheduler", job: "[j]\nioscheduler=none\n", want: "ioscheduler"},
	{name: "cgroup", job: "[j]\ncgroup=bench\n", want: "cgroup"},
	{name: "profile", job: "[j]\nprofile=tiobench\n", want: "profile"},
	{name: "output", job: "[j]\noutput=/tmp/out\n", want: "output"},
	{name: "aux-path", job: "[j]\naux-path=/tmp\n", want: "aux-path"},
	{name: "trigger-file", job: "[j]\ntrigger-file=/tmp/t\n", want: "trigger-file"},
	{name: "trigger", job: "[j]\ntrigger=reboot\n", want: "trigger"},
	{name: "trigger-remote", job: "[j]\ntrigger-remote=reboot\n", want: "trigger-remote"},
	{name: "read_iolog whatever the case", job: "[j]\nRead_IOLog = x\n", want: "replays I/O"},
	{name: "include", job: "[j]\ninclude evil.fio\n", want: "include"},
	{name: "env in a name", job: "[j]\n${VAR}=/tmp/x\n", want: "${VAR}"},
	{name: "env in a plain value", job: "[j]\nbs=${BS}\n"},

	// commands and external code: the agent's --allow-exec decides.
	{name: "exec_prerun", job: "[j]\nexec_prerun=rm -rf /\n", want: "--allow-exec"},
	{name: "exec_prerun allowed", job: "[j]\nexec_prerun=true\n", allowExec: true},
	{name: "exec_postrun", job: "[global]\nexec_postrun=x\n[j]\n", want: "--allow-exec"},
	{name: "ioengine libaio", job: "[j]\nioengine=libaio\n"},
	{name: "ioengine exec", job: "[j]\nioengine=exec\n", want: "--allow-exec"},
	{name: "ioengine external", job: "[j]\nioengine=external:/tmp/x.so\n", want: "--allow-exec"},
	{name: "ioengine path", job: "[j]\nioengine=/tmp/x.so\n", want: "--allow-exec"},
	{name: "ioengine unknown name is a typo", job: "[j]\nioengine=Libaio\n", want: `fio has no engine "Libaio": give one of the engines that work on the job's files: sync, psync`},
	{name: "ioengine nosuch", job: "[j]\nioengine=nosuch\n", want: "libaio, io_uring"},
	{name: "ioengine unknown but allowed", job: "[j]\nioengine=nosuch\n", allowExec: true},
	{name: "ioengine network", job: "[j]\nioengine=net\n", want: "--allow-exec"},
	{name: "ioengine env", job: "[j]\nioengine=${E}\n", want: "--allow-exec"},
	{name: "ioengine external allowed", job: "[j]\nioengine=external:/tmp/x.so\n", allowExec: true},
	{name: "ioengine as override", job: "[j]\nrw=read\n", options: map[string]string{"ioengine": "http"}, want: "--allow-exec"},

	// overrides cannot smuggle a second option line past the check.
	{name: "override value with a line break", job: "[j]\nrw=read\n", options: map[string]string{"bs": "4k\nwrite_iolog=/tmp/x"}, want: "one option line"},
	{name: "override name with '='", job: "[j]\nrw=read\n", options: map[string]string{"write_iolog=/tmp/x;": "1"}, want: "one option line"},
}

func TestPathRules(t *testing.T) {
	for _, c := range pathCases {
		t.Run(c.name, func(t *testing.T) {
			jf, err := ParseJobFile("j", c.job)
			if err == nil {
				jf.Apply(Overrides{Options: c.options})
				err = jf.CheckSafe("j", c.allowExec)
			}
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && err == nil:
				t.Fatalf("accepted; fio would run:\n%s", c.job)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Fatalf("error %q does not say %q", err, c.want)
			case err != nil && strings.Contains(err.Error(), "\n"):
				t.Fatalf("error is not one line: %q", err)
			}
		})
	}
}

// Every row of the table is exercised by a case that names it.
func TestPathRulesHaveCases(t *testing.T) {
	for _, r := range PathRules {
		found := false
		for _, c := range pathCases {
			text := strings.ToLower(c.job)
			for k := range c.options {
				text += strings.ToLower(k)
			}
			if strings.Contains(text, strings.ToLower(r.Option)) {
				found = true
			}
		}
		if !found {
			t.Errorf("no case for %s", r.Option)
		}
	}
}

// include reads options from a file storbench never sees; fio honours it on
// any line of a section that starts with "include".
func TestIncludeRefused(t *testing.T) {
	for _, text := range []string{
		"include other.fio\n[j]\n",
		"[j]\ninclude /etc/evil.fio\n",
		"[j]\n  include evil.fio\n",
		"[j]\nINCLUDE evil.fio\n",
	} {
		_, err := ParseJobFile("j", text)
		if err == nil || !strings.Contains(err.Error(), "include") {
			t.Errorf("%q: %v", text, err)
		}
	}
}

// A section header is read as fio reads it: everything between '[' and the
// line's last character, so "[a]/../../x]" is not the harmless job "a".
func TestSectionNamesAsFioReadsThem(t *testing.T) {
	for _, text := range []string{"[a]/../../x]\nrw=read\n", "[a]b\nrw=read\n", "[]\nrw=read\n", "[j]\nrw=read\x00\n"} {
		jf, err := ParseJobFile("j", text)
		if err == nil {
			err = jf.CheckSafe("j", false)
		}
		if err == nil {
			t.Errorf("%q accepted", text)
		}
	}
}

var update = flag.Bool("update", false, "rewrite the path table in docs/fio.md")

// docs/fio.md shows the table the code applies, generated from PathRules.
func TestDocsPathTable(t *testing.T) {
	readme := filepath.Join("..", "..", "..", "docs", "fio.md")
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?s)(<!-- fio path rules: generated[^\n]*-->\n).*?(<!-- end of fio path rules -->)`)
	if !re.Match(b) {
		t.Fatal("docs/fio.md lacks the fio path rules markers")
	}
	want := re.ReplaceAll(b, []byte("${1}"+strings.ReplaceAll(PathRulesMarkdown(), "$", "$$")+"${2}"))
	if *update {
		if err := os.WriteFile(readme, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if string(want) != string(b) {
		t.Error("docs/fio.md's fio path table differs from PathRules: go test ./internal/engine/fio -run TestDocsPathTable -update")
	}
}

// fioPhase builds an engine phase for a job text under dir.
func fioPhase(t *testing.T, dir, name, text string, ov Overrides) engine.Phase {
	t.Helper()
	b, err := json.Marshal(Params{Dir: dir, Job: Job{Name: name, Text: text}, Overrides: ov})
	if err != nil {
		t.Fatal(err)
	}
	return engine.Phase{Name: name, Engine: "fio", Params: b}
}

// listTree names every file and directory under dir, for "nothing was
// written" checks.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// Validation and the agent's own Prepare refuse before anything is written:
// no workspace in DIR, and the file outside untouched.
func TestRefusedBeforeAnythingIsWritten(t *testing.T) {
	if _, err := FindFio(""); err != nil {
		t.Skip(err)
	}
	dir, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, job := range []string{
		"[j]\nrw=write\nsize=64k\nwrite_iolog=" + victim + "\n",
		"[j]\nrw=write\nsize=64k\nwrite_bw_log=" + filepath.Join(outside, "bw") + "\n",
		"[j]\nrw=write\nsize=64k\nwrite_bw_log=../../../../../.." + outside + "/bw\n",
	} {
		p := fioPhase(t, dir, "j", job, Overrides{})
		if err := validate(p); err == nil {
			t.Errorf("Validate accepted %q", job)
		}
		if err := CheckPhase(p, true); err == nil {
			t.Errorf("CheckPhase accepted %q", job)
		}
		// The agent checks on its own, whatever the controller did.
		prep, err := (Engine{}).Prepare(testutil.Ctx(t, testutil.Bound), engine.Env{Host: "h", RunID: "r1", AllowExec: true}, p)
		if err == nil {
			_, _ = prep.Run(testutil.Ctx(t, testutil.Bound), time.Now(), nil)
			_ = prep.Cleanup(context.Background())
			t.Errorf("Prepare accepted %q", job)
		}
	}
	if got := listTree(t, dir); len(got) != 0 {
		t.Errorf("DIR holds %v after refusals", got)
	}
	if got := listTree(t, outside); len(got) != 1 {
		t.Errorf("outside holds %v", got)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me\n" {
		t.Errorf("victim now holds %q", b)
	}
}

// Relative paths work, and land in the job's directory.
func TestConfinedPathsLandInTheJobDirectory(t *testing.T) {
	if _, err := FindFio(""); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	job := "[global]\nioengine=psync\nsize=64k\nbs=4k\n[j]\nrw=write\nfilename=sub/f\nwrite_bw_log=bw\nwrite_iolog=io.log\n"
	p := fioPhase(t, dir, "j", job, Overrides{})
	prep, err := (Engine{}).Prepare(testutil.Ctx(t, testutil.Bound), engine.Env{Host: "h", RunID: "r1", Keep: true}, p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := prep.Run(testutil.Ctx(t, testutil.Bound), time.Now(), nil); err != nil {
		t.Fatal(err)
	}
	jobDir := filepath.Join(dir, "storbench", "r1", "h", "j")
	for _, f := range []string{"data/sub/f", "bw_bw.1.log", "io.log"} {
		if _, err := os.Stat(filepath.Join(jobDir, f)); err != nil {
			t.Errorf("%s: %v (job directory holds %v)", f, err, listTree(t, jobDir))
		}
	}
}

// A level of DIR/storbench/<run>/<host> that is a symbolic link leading
// out of DIR is refused before anything is created through it.
func TestSymlinkedLevelRefused(t *testing.T) {
	if _, err := FindFio(""); err != nil {
		t.Skip(err)
	}
	for _, level := range []string{"storbench", "storbench/r1", "storbench/r1/h"} {
		t.Run(level, func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			link := filepath.Join(dir, level)
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, link); err != nil {
				t.Fatal(err)
			}
			p := fioPhase(t, dir, "j", "[j]\nrw=write\nsize=64k\n", Overrides{})
			prep, err := (Engine{}).Prepare(testutil.Ctx(t, testutil.Bound), engine.Env{Host: "h", RunID: "r1"}, p)
			if err == nil {
				_, _ = prep.Run(testutil.Ctx(t, testutil.Bound), time.Now(), nil)
				_ = prep.Cleanup(context.Background())
				t.Fatal("Prepare worked through a symbolic link out of DIR")
			}
			if !strings.Contains(err.Error(), "symbolic link") {
				t.Errorf("error %q does not name the link", err)
			}
			if got := listTree(t, outside); len(got) != 0 {
				t.Errorf("outside DIR now holds %v", got)
			}
		})
	}
}

// Inside the job's directory, a path through a symbolic link that leads
// out of it, or dangles (fio would create its target), is refused; one that
// stays inside is not.
func TestSymlinkInsideJobDirectory(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	_ = os.Mkdir(filepath.Join(root, "in"), 0o755)
	_ = os.Symlink(outside, filepath.Join(root, "out"))
	_ = os.Symlink(filepath.Join(outside, "new"), filepath.Join(root, "dangling"))
	_ = os.Symlink("in", filepath.Join(root, "inner"))
	for rel, ok := range map[string]bool{
		"f": true, "in/f": true, "inner/f": true, "new/dir/f": true,
		"out/f": false, "out": false, "dangling": false,
	} {
		err := checkOnDisk(root, rel)
		if (err == nil) != ok {
			t.Errorf("%s: %v, want ok=%v", rel, err, ok)
		}
	}
}

// Every engine this machine's fio has is one storbench knows by name
// (fioEngineNames), so none of them is taken for a typo.
func TestEngineNamesHoldFiosOwn(t *testing.T) {
	out, err := exec.Command("fio", "--enghelp").CombinedOutput()
	if err != nil {
		t.Skipf("fio --enghelp: %v (fio not installed?)", err)
	}
	n := 0
	for _, l := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(l, "\t") {
			continue
		}
		n++
		if name := strings.TrimSpace(l); !knownEngine(name) {
			t.Errorf("fio has engine %q, which storbench would call a typo: add it to fioEngineNames", name)
		}
	}
	if n < 5 {
		t.Fatalf("fio --enghelp listed %d engines:\n%s", n, out)
	}
}
