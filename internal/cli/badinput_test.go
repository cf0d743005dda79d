package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Bad input gets one line naming what to fix, exit 2, and no results folder,
// whatever the command. Each case was a defect: a wrong exit code, a
// message that did not say what was wrong, or a run that should not have
// started.
func TestBadInputIsOneLineExit2(t *testing.T) {
	needFio(t)
	tmp := t.TempDir()
	badJob := workloadDir(t, map[string]string{"a": quickJob("sideways", "")})
	notes := filepath.Join(tmp, "notes.txt")
	_ = os.WriteFile(notes, []byte("meeting at 10\n"), 0o644)
	s3Suite := writeSuite(t, "name: nokeys\nphases:\n  - s3: {op: get, duration: 1s, objects: 5}\n")
	keys := map[string]string{"STORBENCH_ACCESS_KEY": "a", "STORBENCH_SECRET_KEY": "b"}
	sweep := writeSuite(t, "name: sweep\ndir: "+tmp+"\nphases:\n  - md: {items: 5}\n    matrix: {hosts: [1, 2, 4]}\n")
	twoTasks := map[string]string{"SLURM_JOB_ID": "77", "SLURM_JOB_NODELIST": "node[1-2]", "SLURM_NTASKS": "2", "SLURM_TASKS_PER_NODE": "1(x2)"}
	for _, c := range []struct {
		name string
		args []string
		env  map[string]string
		want []string
	}{
		{"suite s3 phase without keys", []string{"run", s3Suite}, map[string]string{"STORBENCH_HOST": "127.0.0.1:1"},
			[]string{"s3-get", "STORBENCH_ACCESS_KEY", "STORBENCH_SECRET_KEY"}},
		{"s3 port out of range", []string{"s3", "get", "--host", "127.0.0.1:99999"}, keys,
			[]string{"127.0.0.1:99999", "port"}},
		{"s3 endpoint without port", []string{"s3", "get", "--host", "127.0.0.1:"}, keys,
			[]string{"127.0.0.1:", "port"}},
		{"s3 benchdata in a missing directory", []string{"s3", "put", "--host", "127.0.0.1:1", "--benchdata", "/nonexistent/x"}, keys,
			[]string{"--benchdata", "/nonexistent"}},
		{"s3 benchdata over an existing file", []string{"s3", "put", "--host", "127.0.0.1:1", "--benchdata", notes}, keys,
			[]string{"--benchdata", "exists"}},
		{"job file fio rejects", []string{"fio", "-d", tmp, "-w", badJob}, nil,
			[]string{"fio rejects", "rw=sideways"}},
		{"s3 negative mean object size", []string{"s3", "get", "--host", "127.0.0.1:1", "--obj.dist", "lognormal", "--obj.mean", "-1KiB"}, keys,
			[]string{"obj_mean", `"-1KiB"`}},
		{"suite md phase with a malformed size", []string{"run", writeSuite(t, "name: badsize\ndir: "+tmp+"\nphases:\n  - md: {items: 5, write_bytes: 4XB}\n")}, nil,
			[]string{"write_bytes", `"4XB"`}},
		{"unknown s3 benchmark", []string{"s3", "copy", "--host", "x"}, nil,
			[]string{`unknown benchmark "copy"`, "get, put"}},
		{"agent --tls-cert without --tls-key", []string{"agent", "--tls-cert", filepath.Join(tmp, "cert.pem")}, nil,
			[]string{"--tls-cert needs --tls-key"}},
		{"controller --tls-cert without --tls-key", []string{"md", "-d", tmp, "--tls-cert", filepath.Join(tmp, "cert.pem"), "10.255.255.1"}, nil,
			[]string{"--tls-cert needs --tls-key"}},
		{"analyze a file that is not benchdata", []string{"analyze", notes}, nil,
			[]string{notes, "benchdata"}},
		{"md with an empty -d", []string{"md", "-d", "", "-n", "5"}, nil,
			[]string{"-d/--directory", "empty"}},
		{"fio with an empty -d", []string{"fio", "-d", "", "-w", badJob}, nil,
			[]string{"-d/--directory", "empty"}},
		{"malformed host argument", []string{"md", "-d", tmp, "-n", "5", "bad host!"}, nil,
			[]string{`"bad host!"`, "malformed"}},
		{"malformed agent", []string{"fio", "-d", tmp, "--agents", "client/1:7761"}, nil,
			[]string{`"client/1"`, "malformed"}},
		{"--launcher slurm outside an allocation", []string{"md", "-d", tmp, "-n", "5", "--launcher", "slurm"}, nil,
			[]string{"--launcher slurm", "not inside a Slurm allocation", "salloc", "sbatch"}},
		{"allocation smaller than the suite's hosts sweep", []string{"run", sweep, "--launcher", "slurm"}, twoTasks,
			[]string{"wants 4 hosts", "job 77 has 2 tasks", "-n 4"}},
		{"--launcher slurm with hosts", []string{"md", "-d", tmp, "-n", "5", "--launcher", "slurm", "node1"}, twoTasks,
			[]string{"--launcher slurm takes its hosts from the Slurm allocation"}},
		{"unknown launcher", []string{"md", "-d", tmp, "-n", "5", "--launcher", "pbs"}, nil,
			[]string{`--launcher "pbs"`, "mpiexec, slurm, ssh"}},
		{"--launcher mpiexec without hosts", []string{"md", "-d", tmp, "-n", "5", "--launcher", "mpiexec"}, nil,
			[]string{"--launcher mpiexec", "give the hosts", "--hostfile", "localhost:3"}},
		{"--launcher mpiexec with an agent's port", []string{"md", "-d", tmp, "-n", "5", "--launcher", "mpiexec", "node1:7761"}, nil,
			[]string{"--launcher mpiexec", "node1:7761", "without a port", "host:N"}},
		{"--launcher mpiexec where it is missing", []string{"md", "-d", tmp, "-n", "5", "--launcher", "mpiexec", "node1"}, map[string]string{"STORBENCH_MPIEXEC": "/nonexistent/mpiexec"},
			[]string{"--launcher mpiexec", "/nonexistent/mpiexec not found", "apt-get install mpich", "STORBENCH_MPIEXEC"}},
		{"agent --launched-by mpiexec outside mpiexec", []string{"agent", "--launched-by", "mpiexec"}, nil,
			[]string{"--launched-by mpiexec", "not a rank of an MPICH mpiexec job", "--launcher mpiexec"}},
		{"agent --launched-by a launcher without an agent side", []string{"agent", "--launched-by", "ssh"}, nil,
			[]string{`--launched-by "ssh"`}},
		{"mpiexec's ranks fewer than the suite's hosts sweep", []string{"run", sweep, "--launcher", "mpiexec", "--agents", "localhost"}, nil,
			[]string{"phase", "wants 2 hosts, but --launcher mpiexec starts 1 agents"}},
		{"--allow-partial without a launcher", []string{"md", "-d", tmp, "-n", "5", "--allow-partial", "node1"}, nil,
			[]string{"--allow-partial", "--ssh or --launcher"}},
		{"stonewall 0", []string{"run", stonewallSuite(t, tmp, "stonewall: 0", "rw: write")}, nil,
			[]string{"stonewall 0", "give the deadline with its unit"}},
		{"stonewall negative", []string{"run", stonewallSuite(t, tmp, "stonewall: -5s", "rw: write")}, nil,
			[]string{"stonewall", `"-5s"`, "negative"}},
		{"stonewall without a unit", []string{"run", stonewallSuite(t, tmp, "stonewall: 30", "rw: write")}, nil,
			[]string{"stonewall", `"30"`, "give a unit"}},
		{"stonewall longer than the job's runtime", []string{"run", stonewallSuite(t, tmp, "stonewall: 10s", "rw: write, runtime: 5")}, nil,
			[]string{"stonewall 10s is longer than the job's runtime=5"}},
		{"stonewall on a read phase", []string{"run", stonewallSuite(t, tmp, "stonewall: 10s", "rw: read")}, nil,
			[]string{"reads (rw=read)", "a stonewall is a write phase's deadline"}},
		{"stonewall on a random write", []string{"run", stonewallSuite(t, tmp, "stonewall: 10s", "rw: randwrite")}, nil,
			[]string{"rw=randwrite", "in order"}},
		{"random read of what a stonewall wrote", []string{"run", writeSuite(t, "name: sw\ndir: "+tmp+"\nphases:\n  - name: w\n    fio:\n      stonewall: 10s\n      job: {bs: 64k, size: 1g, rw: write, filename_format: f.$jobnum}\n  - name: r\n    read_from: neighbour\n    fio:\n      job: {bs: 64k, size: 1g, rw: randread, filename_format: f.$jobnum}\n")}, nil,
			[]string{"phase r reads what stonewall phase w wrote", "rw=randread"}},
		{"fio --stonewall without a unit", []string{"fio", "-d", tmp, "--stonewall", "30", "-w", badJob}, nil,
			[]string{"--stonewall", `"30"`, "give a unit"}},
		{"scale from 0", []string{"fio", "-d", tmp, "--rw", "randread", "--size", "4M", "--scale", "jobs=0..8"}, nil,
			[]string{"--scale", `"jobs=0..8"`, "starts at 0", "1 or more"}},
		{"scale from a negative load", []string{"fio", "-d", tmp, "--rw", "randread", "--size", "4M", "--scale", "jobs=-2..8"}, nil,
			[]string{"--scale", `"jobs=-2..8"`, "starts at -2"}},
		{"scale over a reversed range", []string{"fio", "-d", tmp, "--rw", "randread", "--size", "4M", "--scale", "jobs=8..1"}, nil,
			[]string{"--scale", "8..1 does not go up"}},
		{"scale of an unknown parameter", []string{"fio", "-d", tmp, "--rw", "randread", "--size", "4M", "--scale", "speed=1..8"}, nil,
			[]string{"--scale", "no load parameter speed", "jobs, iodepth (fio), concurrent (s3), workers (md) or hosts"}},
		{"scale of a parameter the engine lacks", []string{"fio", "-d", tmp, "--rw", "randread", "--size", "4M", "--scale", "concurrent=1..8"}, nil,
			[]string{"--scale concurrent=1..8", "fio phases have no concurrent", "jobs, iodepth or hosts"}},
		{"scale by a step of 0", []string{"fio", "-d", tmp, "--rw", "randread", "--size", "4M", "--scale", "jobs=1..8:+0"}, nil,
			[]string{"--scale", "+0 adds nothing"}},
		{"scale of too many steps", []string{"fio", "-d", tmp, "--rw", "randread", "--size", "4M", "--scale", "jobs=1..100000:+1"}, nil,
			[]string{"--scale", "100000", "at most 24"}},
		{"scale to a load too large to read", []string{"fio", "-d", tmp, "--rw", "randread", "--size", "4M", "--scale", "jobs=1..99999999999999999999"}, nil,
			[]string{"--scale", "99999999999999999999 is too large"}},
		{"scale written wrong", []string{"fio", "-d", tmp, "--rw", "randread", "--size", "4M", "--scale", "jobs=1-8"}, nil,
			[]string{"--scale", `"jobs=1-8"`, "PARAM=FROM..TO"}},
		{"scale of several jobs at once", []string{"fio", "-d", tmp, "-w", "default", "--scale", "jobs=1..8"}, nil,
			[]string{"--scale steps one job", "give one job"}},
		{"md scale of a parameter md lacks", []string{"md", "-d", tmp, "-n", "5", "--scale", "jobs=1..8"}, nil,
			[]string{"--scale jobs=1..8", "md phases have no jobs", "workers or hosts"}},
		{"md scale from 0", []string{"md", "-d", tmp, "-n", "5", "--scale", "workers=0..8"}, nil,
			[]string{"--scale", `"workers=0..8"`, "starts at 0"}},
		{"md scale to more workers than md runs", []string{"md", "-d", tmp, "-n", "5", "--scale", "workers=1000000..1000002:+1"}, nil,
			[]string{"md workers=1000000", "workers (-t) must be 1 to 1024"}},
		{"md scale over more hosts than agents", []string{"md", "-d", tmp, "-n", "5", "--scale", "hosts=1..2"}, nil,
			[]string{"md hosts=2 wants 2 hosts", "1 agents"}},
		{"s3 scale of a parameter s3 lacks", []string{"s3", "get", "--host", "127.0.0.1:1", "--scale", "workers=1..8"}, keys,
			[]string{"--scale workers=1..8", "s3 phases have no workers", "concurrent or hosts"}},
		{"s3 scale to more requests in flight than s3 takes", []string{"s3", "get", "--host", "127.0.0.1:1", "--scale", "concurrent=100000..100001"}, keys,
			[]string{"--scale concurrent=100000..100001, the step concurrent=100000", "want 1 to 10000"}},
		{"s3 scale of too many steps", []string{"s3", "get", "--host", "127.0.0.1:1", "--scale", "concurrent=1..1000:+1"}, keys,
			[]string{"--scale", "at most 24"}},
		{"suite scale of a parameter the engine lacks", []string{"run", writeSuite(t, "name: sc\ndir: "+tmp+"\nphases:\n  - md: {items: 5}\n    scale: concurrent=1..8\n")}, nil,
			[]string{":4: scale concurrent=1..8", "md phases have no concurrent", "workers or hosts"}},
		{"suite scale beside a matrix", []string{"run", writeSuite(t, "name: sc\ndir: "+tmp+"\nphases:\n  - md: {items: 5}\n    scale: workers=1..8\n    matrix: {items: [5, 10]}\n")}, nil,
			[]string{"line 4", "scale steps one parameter alone", "no iterations or matrix"}},
		{"suite scale of a reversed range", []string{"run", writeSuite(t, "name: sc\ndir: "+tmp+"\nphases:\n  - md: {items: 5}\n    scale: workers=8..2\n")}, nil,
			[]string{"line 5", "8..2 does not go up"}},
		{"--numjobs -1 for one job", []string{"fio", "-d", tmp, "--rw", "read", "--size", "1M", "--numjobs", "-1"}, nil,
			[]string{"--numjobs -1", "1 or more"}},
		{"--numjobs -1 for job files", []string{"fio", "-d", tmp, "-w", badJob, "--numjobs", "-1"}, nil,
			[]string{"numjobs -1", "1 or more"}},
		// Without -d: ./storbench-data, the default, is not made (nor
		// left made) for bad input, whether storbench or the run finds it.
		{"md without -d, a malformed size", []string{"md", "--write-bytes", "lots", "-n", "5"}, nil,
			[]string{"--write-bytes lots", "invalid size"}},
		{"md without -d, more workers than md runs", []string{"md", "-n", "5", "-t", "100000"}, nil,
			[]string{"workers (-t) must be 1 to"}},
		{"md without -d, a malformed limit", []string{"md", "-n", "5", "--limit", "bogus"}, nil,
			[]string{"--limit", `"bogus"`}},
		{"fio without -d, scale written wrong", []string{"fio", "--scale", "x"}, nil,
			[]string{"--scale", `"x"`, "PARAM=FROM..TO"}},
		{"fio without -d, scale of several jobs at once", []string{"fio", "--scale", "jobs=1..8"}, nil,
			[]string{"--scale steps one job", "give one job"}},
		{"fio without -d, a malformed --runtime", []string{"fio", "--runtime", "-1"}, nil,
			[]string{"--runtime", `"-1"`}},
		{"fio without -d, --numjobs -1 for one job", []string{"fio", "--rw", "read", "--size", "1M", "--numjobs", "-1"}, nil,
			[]string{"--numjobs -1", "1 or more"}},
		{"fio without -d, a job file fio rejects", []string{"fio", "-w", badJob}, nil,
			[]string{"fio rejects", "rw=sideways"}},
		{"quick suite without -d, over --max-duration", []string{"run", "--max-duration", "1s"}, nil,
			[]string{"suite quick", "over --max-duration 1s"}},
		{"quick suite without -d, an unknown launcher", []string{"run", "--launcher", "pbs"}, nil,
			[]string{`--launcher "pbs"`}},
		{"suite without dir, a phase md refuses", []string{"run", writeSuite(t, "name: nodir\nphases:\n  - md: {items: 5, workers: 100000}\n")}, nil,
			[]string{"workers (-t) must be 1 to"}},
		// Relative: the folder would be made in the working directory,
		// which must stay empty.
		{"catalog in a folder that does not exist", []string{"md", "-d", tmp, "-n", "5", "--catalog", "nowhere/sub/c.db"}, nil,
			[]string{"catalog nowhere/sub/c.db", "the folder nowhere/sub does not exist"}},
		{"host that would be an ssh option", []string{"md", "-d", tmp, "-n", "5", "--ssh", "--", "-oProxyCommand=sh"}, nil,
			[]string{`"-oProxyCommand=sh"`, "malformed"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The results root does not exist: bad input must not make
			// it (an empty results/ was left before).
			results := filepath.Join(t.TempDir(), "results")
			// Every case runs in an empty working directory, which must
			// stay empty: a case without -d would work in
			// ./storbench-data (defaultDir).
			t.Chdir(t.TempDir())
			st, out := testState()
			st.Getenv = func(k string) string { return c.env[k] }
			args := c.args
			if args[0] != "agent" && args[0] != "analyze" {
				at := 1 // after the command, before any "--"
				if args[0] == "s3" {
					at = 2
				}
				args = append(append(append([]string(nil), args[:at]...), "--results", results), args[at:]...)
			}
			refusedInOneLine(t, st, out, args, c.want)
			noResults(t, results)
			if ents, _ := os.ReadDir("."); len(ents) != 0 {
				t.Errorf("the working directory was used: %v", ents)
			}
		})
	}
}

// Security and data (issue 21): hostile layouts, counts and files get one
// line, exit 2, no results folder, and nothing made or changed where a
// link or a count would have led. A separate table from the one above:
// each case also names what must stay untouched.
func TestHostileInputIsOneLineExit2(t *testing.T) {
	t.Parallel()
	needFio(t)
	tmp := t.TempDir()
	// DIR/storbench is a symbolic link out of DIR: every engine, and the
	// dry run of a suite on it, refuses it.
	linked, outside := filepath.Join(tmp, "linked"), filepath.Join(tmp, "outside")
	for _, d := range []string{linked, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(linked, "storbench")); err != nil {
		t.Fatal(err)
	}
	linkSuite := writeSuite(t, "name: linked\ndir: "+linked+"\nphases:\n  - md: {items: 5}\n")
	keys := map[string]string{"STORBENCH_ACCESS_KEY": "a", "STORBENCH_SECRET_KEY": "b"}
	openToken := filepath.Join(tmp, "token")
	_ = os.WriteFile(openToken, []byte("open-token-0123456789abcdef\n"), 0o644)
	// Keys and credentials others may read, refused before they are parsed
	// (their content does not matter).
	goodToken, openKey, openCert, openCreds := filepath.Join(tmp, "token600"), filepath.Join(tmp, "open.key"), filepath.Join(tmp, "cert.pem"), filepath.Join(tmp, "creds")
	_ = os.WriteFile(goodToken, []byte("good-token-0123456789abcdef\n"), 0o600)
	_ = os.WriteFile(openKey, []byte("not a key\n"), 0o644)
	_ = os.WriteFile(openCert, []byte("not a cert\n"), 0o644)
	_ = os.WriteFile(openCreds, []byte("STORBENCH_ACCESS_KEY=AKopen\nSTORBENCH_SECRET_KEY=SKopenSecret\n"), 0o644)
	// An agent (in this process, reached over HTTP as any agent is): the
	// symbolic link is refused by the agent, when the phase is prepared.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	agent := l.Addr().String()
	l.Close()
	if _, err := startAgentIn(t, AgentServeOptions{Listen: agent, TokenFile: goodToken, MetricsListen: "127.0.0.1:0"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		env  map[string]string
		want []string
		// empty is a directory that must stay empty.
		empty string
	}{
		{"md on a symlinked DIR/storbench", []string{"md", "-d", linked, "-n", "5", "--keep"}, nil,
			[]string{linked + "/storbench", "symbolic link"}, outside},
		{"fio on a symlinked DIR/storbench", []string{"fio", "-d", linked, "--runtime", "1s", "--keep"}, nil,
			[]string{linked + "/storbench", "symbolic link"}, outside},
		{"dry run of a suite on a symlinked DIR/storbench", []string{"run", "--dry-run", linkSuite}, nil,
			[]string{linked + "/storbench", "symbolic link"}, outside},
		{"md through an agent on a symlinked DIR/storbench", []string{"md", "-d", linked, "-n", "5", "--keep", "--agents", agent, "--token-file", goodToken}, nil,
			[]string{linked + "/storbench", "symbolic link"}, outside},
		{"--ssh-opts that would reach ssh cut in two", []string{"md", "-d", tmp, "-n", "5", "--ssh", "--ssh-opts", "-oProxyCommand=touch " + tmp + "/x", "node1"}, nil,
			[]string{"--ssh-opts", `"` + tmp + `/x" is not an ssh option`}, ""},
		{"controller's token file open to others", []string{"md", "-d", tmp, "-n", "5", "--token-file", openToken, "127.0.0.1:1"}, nil,
			[]string{"--token-file " + openToken, "chmod 600"}, ""},
		{"agent's token file open to others", []string{"agent", "--listen", "127.0.0.1:0", "--token-file", openToken}, nil,
			[]string{"--token-file " + openToken, "chmod 600"}, ""},
		{"agent's TLS key open to others", []string{"agent", "--listen", "127.0.0.1:0", "--tls-cert", openCert, "--tls-key", openKey, "--token-file", goodToken}, nil,
			[]string{"--tls-key " + openKey, "chmod 600"}, ""},
		{"controller's TLS key open to others", []string{"md", "-d", tmp, "-n", "5", "--tls-cert", openCert, "--tls-key", openKey, "--token-file", goodToken, "127.0.0.1:1"}, nil,
			[]string{"--tls-key " + openKey, "chmod 600"}, ""},
		{"agent's credentials file open to others", []string{"agent", "--listen", "127.0.0.1:0", "--token-file", goodToken, "--credentials-file", openCreds}, nil,
			[]string{"--credentials-file " + openCreds, "chmod 600"}, ""},
		{"agent's credentials file open to others, by its old name", []string{"agent", "--listen", "127.0.0.1:0", "--token-file", goodToken, "--s3-credentials-file", openCreds}, nil,
			[]string{"--s3-credentials-file " + openCreds, "chmod 600"}, ""},
		{"agent's credentials file by both names", []string{"agent", "--listen", "127.0.0.1:0", "--token-file", goodToken, "--credentials-file", openCreds, "--s3-credentials-file", openCreds}, nil,
			[]string{"give --credentials-file alone", "--s3-credentials-file is its old name"}, ""},
		{"s3 objects no host could hold", []string{"s3", "get", "--host", "127.0.0.1:1", "--objects", "10000000000000"}, keys, []string{"--objects 10000000000000", "at most"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The results root does not exist: bad input must not make
			// it (an empty results/ was left before).
			results := filepath.Join(t.TempDir(), "results")
			st, out := testState()
			st.Getenv = func(k string) string { return c.env[k] }
			args := c.args
			if args[0] != "agent" {
				at := 1
				if args[0] == "s3" {
					at = 2
				}
				args = append(append(append([]string(nil), args[:at]...), "--results", results), args[at:]...)
			}
			refusedInOneLine(t, st, out, args, c.want)
			noResults(t, results)
			if c.empty != "" {
				if ents, _ := os.ReadDir(c.empty); len(ents) != 0 {
					t.Errorf("%s was written: %v", c.empty, ents)
				}
			}
		})
	}
}

// noResults fails the test when the results root (one that did not
// exist) was made: bad input leaves no results folder, nor an empty
// results/.
func noResults(t *testing.T, root string) {
	t.Helper()
	if _, err := os.Stat(root); err == nil {
		ents, _ := os.ReadDir(root)
		t.Errorf("%s was made: %v", root, ents)
	}
}

// refusedInOneLine runs storbench with args and requires what every bad
// input gets: exit 2, one line, saying each of want. It returns the line.
func refusedInOneLine(t *testing.T, st *State, out fmt.Stringer, args, want []string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := Execute(ctx, st, args)
	if ExitCode(err) != ExitUsage {
		t.Fatalf("exit %d (%v), want %d\n%s", ExitCode(err), err, ExitUsage, out)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("not one line: %q", msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("%q does not say %q", msg, w)
		}
	}
	return msg
}

// stonewallSuite is a suite of one fio phase with the stonewall setting
// given (stonewall: 10s) and the job options given inline (rw: write).
func stonewallSuite(t *testing.T, dir, stonewall, job string) string {
	return writeSuite(t, "name: sw\ndir: "+dir+"\nphases:\n  - fio:\n      "+stonewall+"\n      job: {bs: 64k, size: 1g, "+job+"}\n")
}
