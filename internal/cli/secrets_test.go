package cli

import (
	"bytes"
	"fmt"
	"net"
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

func freeLoopbackPort(t *testing.T) string {
	t.Helper()
	// Claimed below the kernel's range of :0 ports, machine-wide: a port
	// the kernel picked and gave back went to the next caller too
	// (nodeA:35205,nodeB:35205 once) or to the ssh launcher's forward.
	_, p, _ := net.SplitHostPort(testutil.ClaimAddr(t))
	return p
}

// leaks lists every place under dir (files, recursively) and every named
// text that holds one of the secrets.
func leaks(dir string, texts map[string]string, secrets []string) []string {
	var found []string
	check := func(where string, data []byte) {
		for _, s := range secrets {
			if bytes.Contains(data, []byte(s)) {
				found = append(found, fmt.Sprintf("%s holds %q", where, s))
			}
		}
	}
	if dir != "" {
		_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
			if err == nil && fi.Mode().IsRegular() {
				data, _ := os.ReadFile(p)
				check(p, data)
			}
			return nil
		})
	}
	for name, text := range texts {
		check(name, []byte(text))
	}
	return found
}

// startAgents starts n agent processes on loopback ports with the given
// extra flags and returns their addresses and combined output.
func startAgents(t *testing.T, bin string, n int, env []string, flags ...string) ([]string, *testutil.Buffer) {
	t.Helper()
	logs := &testutil.Buffer{}
	var addrs []string
	for range n {
		addr := "127.0.0.1:" + freeLoopbackPort(t)
		cmd := exec.Command(bin, append([]string{"agent", "--listen", addr, "-vvv"}, flags...)...)
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = logs, logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		addrs = append(addrs, addr)
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) && strings.Count(logs.String(), "listening on") < n {
		time.Sleep(20 * time.Millisecond)
	}
	if strings.Count(logs.String(), "listening on") < n {
		t.Fatalf("agents did not start:\n%s", logs)
	}
	return addrs, logs
}

// A secret never reaches a file of the results folder, a git commit made
// with --git-commit, the output at -vvv (controller and agents), the dry-run
// plan or an ssh or srun command line, whichever way it is given: --secret-key S,
// --secret-key=S, STORBENCH_SECRET_KEY, AWS_SECRET_ACCESS_KEY, an AWS
// profile in the shared files, a session token from AWS_SESSION_TOKEN,
// STORBENCH_SESSION_TOKEN or a profile's aws_session_token (refused by the
// server: in an error; the profile's over HTTPS, endpoint and CA from the
// profile too), a suite's s3 secret_key, an agent's --credentials-file (or its old name
// --s3-credentials-file) or
// AWS variables, the agents' --token-file, the one-run token of --ssh and
// --launcher slurm and --launcher mpiexec and the keys they send their agents (one from a flag,
// one from the environment), and a catalog URL's password (--catalog, STORBENCH_CATALOG). Access keys are held to the same rule: the s3 engine treats them
// as secret (RedactPhase blanks both).
func TestSecretsNeverWritten(t *testing.T) {
	t.Parallel()
	bin := testutil.StorbenchBin(t)
	srv := s3test.StartT(t, s3test.Options{IAM: true})
	user := func(tag string) (string, string) {
		ak, sk := "AKsb"+tag+"Q7x", "SKsb"+tag+"Zsecret9"
		if err := srv.CreateUser(ak, sk, "admin"); err != nil {
			t.Fatal(err)
		}
		return ak, sk
	}
	// No key from the test's own environment or home: each case gives its own.
	home := t.TempDir()
	baseEnv := func() []string {
		var env []string
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "STORBENCH_") && !strings.HasPrefix(kv, "AWS_") && !strings.HasPrefix(kv, "HOME=") {
				env = append(env, kv)
			}
		}
		return append(env, "HOME="+home)
	}
	stat := []string{"s3", "stat", "--host", srv.Endpoint, "--objects", "10", "--duration", "1s", "--concurrent", "2", "-vvv"}
	run := func(t *testing.T, env []string, wantOK bool, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if (err == nil) != wantOK {
			t.Fatalf("storbench %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	check := func(t *testing.T, dir string, texts map[string]string, secrets ...string) {
		t.Helper()
		for _, l := range leaks(dir, texts, secrets) {
			t.Error(l)
		}
	}

	t.Run("--secret-key S", func(t *testing.T) {
		ak, sk := user("flag")
		res := t.TempDir()
		out := run(t, baseEnv(), true, append(stat, "--bucket", "sflag", "--results", res, "--access-key", ak, "--secret-key", sk)...)
		check(t, res, map[string]string{"output": out}, ak, sk)
	})
	t.Run("--secret-key=S", func(t *testing.T) {
		ak, sk := user("equals")
		res := t.TempDir()
		out := run(t, baseEnv(), true, append(stat, "--bucket", "sequals", "--results", res, "--access-key="+ak, "--secret-key="+sk)...)
		check(t, res, map[string]string{"output": out}, ak, sk)
	})
	t.Run("wrong --secret-key in an error", func(t *testing.T) {
		ak, _ := user("wrong")
		res := t.TempDir()
		out := run(t, baseEnv(), false, append(stat, "--bucket", "swrong", "--results", res, "--access-key", ak, "--secret-key", "SKsbNotTheRightOne5")...)
		check(t, res, map[string]string{"output": out}, ak, "SKsbNotTheRightOne5")
	})
	// A catalog's URL holds a password: given with --catalog or in
	// STORBENCH_CATALOG, it is in neither the results folder, the output
	// at -vvv, nor the catalog itself (a real PostgreSQL on loopback).
	t.Run("--catalog postgres://user:PASSWORD@ and STORBENCH_CATALOG", func(t *testing.T) {
		pg := testutil.StartPostgres(t)
		defer pg.Remove()
		ak, sk := user("catalog")
		url := pg.NewDB(t)
		res := t.TempDir()
		out := run(t, baseEnv(), true, append(stat, "--bucket", "scat", "--results", res, "--access-key", ak, "--secret-key", sk, "--catalog", url)...)
		out += run(t, append(baseEnv(), "STORBENCH_CATALOG="+url), true, append(stat, "--bucket", "scat2", "--results", res, "--access-key", ak, "--secret-key", sk)...)
		out += run(t, baseEnv(), true, "runs", "--catalog", url, "--json", "-vvv")
		db := url[strings.LastIndex(url, "/")+1 : strings.Index(url, "?")]
		dump := pg.SQLIn(t, db, "SELECT r::text FROM sb_runs r") + pg.SQLIn(t, db, "SELECT f::text FROM sb_figures f LIMIT 50")
		if strings.Count(dump, "scat") < 2 {
			t.Errorf("the two runs are not both in the catalog:\n%s", dump)
		}
		check(t, res, map[string]string{"output": out, "the catalog": dump}, ak, sk, pg.Password)
	})
	t.Run("STORBENCH_SECRET_KEY", func(t *testing.T) {
		ak, sk := user("env")
		res := t.TempDir()
		env := append(baseEnv(), "STORBENCH_ACCESS_KEY="+ak, "STORBENCH_SECRET_KEY="+sk)
		out := run(t, env, true, append(stat, "--bucket", "senv", "--results", res)...)
		check(t, res, map[string]string{"output": out}, ak, sk)
	})
	t.Run("AWS_SECRET_ACCESS_KEY", func(t *testing.T) {
		ak, sk := user("awsenv")
		res := t.TempDir()
		env := append(baseEnv(), "AWS_ACCESS_KEY_ID="+ak, "AWS_SECRET_ACCESS_KEY="+sk)
		out := run(t, env, true, append(stat, "--bucket", "sawsenv", "--results", res)...)
		check(t, res, map[string]string{"output": out}, ak, sk)
	})
	t.Run("AWS profile in the shared files, endpoint_url included", func(t *testing.T) {
		ak, sk := user("profile")
		dir := t.TempDir()
		creds, conf := filepath.Join(dir, "creds"), filepath.Join(dir, "conf")
		_ = os.WriteFile(creds, []byte("[other]\naws_access_key_id = AKsbNotThisOne1\naws_secret_access_key = SKsbNotThisOne1\n\n[bench]\naws_access_key_id = "+ak+"\naws_secret_access_key = "+sk+"\n"), 0o600)
		_ = os.WriteFile(conf, []byte("[profile bench]\nregion = us-east-1\nendpoint_url = http://"+srv.Endpoint+"\n"), 0o600)
		res := t.TempDir()
		env := append(baseEnv(), "AWS_PROFILE=bench", "AWS_SHARED_CREDENTIALS_FILE="+creds, "AWS_CONFIG_FILE="+conf)
		args := []string{"s3", "stat", "--objects", "10", "--duration", "1s", "--concurrent", "2", "-vvv", "--bucket", "sprofile", "--results", res}
		out := run(t, env, true, args...)
		check(t, res, map[string]string{"output": out}, ak, sk, "SKsbNotThisOne1")
	})
	// The newer forms of the config file: S3's endpoint in a [services]
	// section the profile names, and nested under "s3 =" in the profile.
	for _, form := range []struct{ name, conf string }{
		{"services", "[profile bench]\nregion = us-east-1\nendpoint_url = http://127.0.0.1:1\nservices = bench-s3\n\n[services bench-s3]\ns3 =\n  endpoint_url = http://" + srv.Endpoint + "\n"},
		{"nested", "[profile bench]\nregion = us-east-1\nendpoint_url = http://127.0.0.1:1\ns3 =\n  addressing_style = path\n  endpoint_url = http://" + srv.Endpoint + "\n"},
	} {
		t.Run("AWS profile with the S3 endpoint in the "+form.name+" form", func(t *testing.T) {
			ak, sk := user(form.name)
			dir := t.TempDir()
			creds, conf := filepath.Join(dir, "creds"), filepath.Join(dir, "conf")
			_ = os.WriteFile(creds, []byte("[bench]\naws_access_key_id = "+ak+"\naws_secret_access_key = "+sk+"\n"), 0o600)
			_ = os.WriteFile(conf, []byte(form.conf), 0o600)
			res := t.TempDir()
			env := append(baseEnv(), "AWS_PROFILE=bench", "AWS_SHARED_CREDENTIALS_FILE="+creds, "AWS_CONFIG_FILE="+conf)
			args := []string{"s3", "stat", "--objects", "10", "--duration", "1s", "--concurrent", "2", "-vvv", "--bucket", "s" + form.name, "--results", res}
			out := run(t, env, true, args...)
			check(t, res, map[string]string{"output": out}, ak, sk)
		})
	}
	t.Run("AWS_CA_BUNDLE set, --insecure given: --insecure wins", func(t *testing.T) {
		tlsSrv := s3test.StartT(t, s3test.Options{IAM: true, TLS: true})
		ak, sk := "AKsbInsecure3", "SKsbInsecureSecret3"
		if err := tlsSrv.CreateUser(ak, sk, "admin"); err != nil {
			t.Fatal(err)
		}
		// A bundle that does not hold the server's CA: used, it would fail.
		bundle := filepath.Join(t.TempDir(), "other-ca.pem")
		_ = os.WriteFile(bundle, []byte("not a certificate\n"), 0o600)
		res := t.TempDir()
		env := append(baseEnv(), "AWS_CA_BUNDLE="+bundle, "AWS_ACCESS_KEY_ID="+ak, "AWS_SECRET_ACCESS_KEY="+sk)
		args := []string{"s3", "stat", "--host", tlsSrv.Endpoint, "--tls", "--insecure", "--objects", "10", "--duration", "1s", "--concurrent", "2", "--bucket", "sinsecure", "--results", res}
		out := run(t, env, true, args...)
		check(t, res, map[string]string{"output": out}, ak, sk)
	})
	t.Run("AWS_SESSION_TOKEN the server refuses", func(t *testing.T) {
		ak, sk := user("session")
		const token = "TOKsbSessionIQoJb3JpZ2luX2VjEExpired"
		res := t.TempDir()
		env := append(baseEnv(), "AWS_ACCESS_KEY_ID="+ak, "AWS_SECRET_ACCESS_KEY="+sk, "AWS_SESSION_TOKEN="+token)
		out := run(t, env, false, append(stat, "--bucket", "ssession", "--results", res)...)
		if !strings.Contains(out, "refused the keys with a session token (InvalidToken: ") {
			t.Errorf("the error does not name the server's refusal of the token:\n%s", out)
		}
		check(t, res, map[string]string{"output": out}, ak, sk, token)
	})
	t.Run("STORBENCH_SESSION_TOKEN the server refuses", func(t *testing.T) {
		ak, sk := user("sbsession")
		const token = "TOKsbStorbenchSession5Expired"
		res := t.TempDir()
		env := append(baseEnv(), "STORBENCH_ACCESS_KEY="+ak, "STORBENCH_SECRET_KEY="+sk, "STORBENCH_SESSION_TOKEN="+token)
		out := run(t, env, false, append(stat, "--bucket", "ssbsession", "--results", res)...)
		if !strings.Contains(out, "refused the keys with a session token (InvalidToken: ") {
			t.Errorf("the error does not name the server's refusal of the token:\n%s", out)
		}
		check(t, res, map[string]string{"output": out}, ak, sk, token)
	})
	t.Run("a profile's aws_session_token the server refuses, over HTTPS", func(t *testing.T) {
		tlsSrv := s3test.StartT(t, s3test.Options{IAM: true, TLS: true})
		ak, sk := "AKsbProfileTLS8", "SKsbProfileTLSsecret8"
		if err := tlsSrv.CreateUser(ak, sk, "admin"); err != nil {
			t.Fatal(err)
		}
		const token = "TOKsbProfileSession6Expired"
		dir := t.TempDir()
		creds, conf := filepath.Join(dir, "creds"), filepath.Join(dir, "conf")
		_ = os.WriteFile(creds, []byte("[tmp]\naws_access_key_id = "+ak+"\naws_secret_access_key = "+sk+"\naws_session_token = "+token+"\n"), 0o600)
		_ = os.WriteFile(conf, []byte("[profile tmp]\nendpoint_url = https://"+tlsSrv.Endpoint+"\nca_bundle = "+tlsSrv.CAFile+"\n"), 0o600)
		res := t.TempDir()
		env := append(baseEnv(), "AWS_PROFILE=tmp", "AWS_SHARED_CREDENTIALS_FILE="+creds, "AWS_CONFIG_FILE="+conf)
		args := []string{"s3", "stat", "--objects", "10", "--duration", "1s", "--concurrent", "2", "-vvv", "--bucket", "sprofiletok", "--results", res}
		out := run(t, env, false, args...)
		if !strings.Contains(out, "refused the keys with a session token (InvalidToken: ") {
			t.Errorf("the error does not name the server's refusal of the token:\n%s", out)
		}
		check(t, res, map[string]string{"output": out}, ak, sk, token)
	})
	t.Run("suite s3 secret_key", func(t *testing.T) {
		ak, sk := user("suite")
		repo := t.TempDir()
		if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
			t.Skipf("git init: %v %s", err, out)
		}
		suite := writeSuite(t, fmt.Sprintf("name: secrets\ns3: {host: %q, bucket: ssuite, access_key: %s, secret_key: %s}\n"+
			"phases:\n  - s3: {op: stat, objects: 10, duration: 1s, concurrent: 2}\n", srv.Endpoint, ak, sk))
		res := t.TempDir()
		dry := run(t, baseEnv(), true, "run", "--dry-run", "-vvv", suite)
		if !strings.Contains(dry, `"op": "stat"`) {
			t.Fatalf("the dry run at -v does not print the plan:\n%s", dry)
		}
		out := run(t, baseEnv(), true, "run", suite, "--results", res, "--git-commit", repo, "-vvv")
		log, _ := exec.Command("git", "-C", repo, "log", "-p").CombinedOutput()
		check(t, res, map[string]string{"dry run": dry, "output": out, "git log": string(log)}, ak, sk)
	})
	// The file by its name and by its old one, which still works.
	for i, flag := range []string{"--credentials-file", "--s3-credentials-file"} {
		t.Run("agents: "+flag+" and --token-file", func(t *testing.T) {
			ak, sk := user(fmt.Sprintf("agent%d", i))
			dir := t.TempDir()
			token, creds := filepath.Join(dir, "token"), filepath.Join(dir, "creds")
			tok := fmt.Sprintf("TOKsbAgentsShare4%d-0123456789", i)
			_ = os.WriteFile(token, []byte(tok+"\n"), 0o600)
			_ = os.WriteFile(creds, []byte("STORBENCH_ACCESS_KEY="+ak+"\nSTORBENCH_SECRET_KEY="+sk+"\n"), 0o600)
			addrs, logs := startAgents(t, bin, 3-i, baseEnv(), "--token-file", token, flag, creds)
			res := t.TempDir()
			out := run(t, baseEnv(), true, append(stat, "--bucket", fmt.Sprintf("sagents%d", i), "--results", res, "--token-file", token, "--agents", strings.Join(addrs, ","))...)
			check(t, res, map[string]string{"output": out, "agents' output": logs.String()}, ak, sk, tok)
			if warned := strings.Count(logs.String(), "warning: --s3-credentials-file is deprecated: give --credentials-file"); warned != i*(3-i) {
				t.Errorf("%d of %d agents given %s warn of the old name:\n%s", warned, 3-i, flag, logs)
			}
		})
	}
	t.Run("agents: AWS variables", func(t *testing.T) {
		ak, sk := user("agentaws")
		dir := t.TempDir()
		token := filepath.Join(dir, "token")
		const tok = "TOKsbAgentsAWS43-0123456789"
		_ = os.WriteFile(token, []byte(tok+"\n"), 0o600)
		addrs, logs := startAgents(t, bin, 2, append(baseEnv(), "AWS_ACCESS_KEY_ID="+ak, "AWS_SECRET_ACCESS_KEY="+sk), "--token-file", token)
		res := t.TempDir()
		out := run(t, baseEnv(), true, append(stat, "--bucket", "sagentsaws", "--results", res, "--token-file", token, "--agents", strings.Join(addrs, ","))...)
		check(t, res, map[string]string{"output": out, "agents' output": logs.String()}, ak, sk, tok)
	})
	t.Run("--ssh one-run token", func(t *testing.T) {
		if _, err := exec.LookPath("python3"); err != nil {
			t.Skip("the ssh stand-in needs python3")
		}
		fake, err := filepath.Abs("../cluster/testdata/fake-ssh")
		if err != nil {
			t.Fatal(err)
		}
		ak, sk := user("ssh")
		dir := t.TempDir()
		pathDir, capture := filepath.Join(dir, "bin"), filepath.Join(dir, "stdin")
		_ = os.MkdirAll(pathDir, 0o755)
		// The stand-in keeps what the controller sends an agent on stdin,
		// where the one-run token travels, so the test knows the token.
		wrapper := "#!/bin/sh\ncase \"$*\" in\n*' agent --listen '*) tee -a " + capture + " | python3 " + fake + " \"$@\";;\n*) exec python3 " + fake + " \"$@\";;\nesac\n"
		if err := os.WriteFile(filepath.Join(pathDir, "ssh"), []byte(wrapper), 0o755); err != nil {
			t.Fatal(err)
		}
		sshLog := filepath.Join(dir, "ssh.log")
		env := append(baseEnv(), "PATH="+pathDir+":"+os.Getenv("PATH"), "FAKESSH_LOG="+sshLog, "FAKESSH_HOMES="+filepath.Join(dir, "homes"),
			"STORBENCH_SECRET_KEY="+sk)
		res := t.TempDir()
		out := run(t, env, true, append(stat, "--bucket", "sssh", "--results", res, "--ssh", "--access-key", ak,
			"--agents", "nodeA:"+freeLoopbackPort(t)+",nodeB:"+freeLoopbackPort(t))...)
		sent, _ := os.ReadFile(capture)
		if strings.Count(string(sent), "STORBENCH_ACCESS_KEY="+ak+"\n") != 2 || strings.Count(string(sent), "STORBENCH_SECRET_KEY="+sk+"\n") != 2 {
			t.Errorf("the run's keys did not reach both agents over ssh's stdin:\n%s", sent)
		}
		tokens := regexp.MustCompile(`(?m)^[0-9a-f]{64}$`).FindAllString(string(sent), -1)
		if len(tokens) != 2 {
			t.Fatalf("want the one-run token sent to 2 agents, saw %d:\n%s", len(tokens), sent)
		}
		calls, _ := os.ReadFile(sshLog)
		check(t, res, map[string]string{"output": out, "ssh command lines": string(calls)}, ak, sk, tokens[0])
	})
	t.Run("--launcher slurm one-run token", func(t *testing.T) {
		if _, err := exec.LookPath("python3"); err != nil {
			t.Skip("the srun stand-in needs python3")
		}
		fake, err := filepath.Abs("../cluster/testdata/fake-srun")
		if err != nil {
			t.Fatal(err)
		}
		ak, sk := user("slurm")
		dir := t.TempDir()
		pathDir, capture, argLog := filepath.Join(dir, "bin"), filepath.Join(dir, "stdin"), filepath.Join(dir, "srun.args")
		_ = os.MkdirAll(pathDir, 0o755)
		// The stand-in keeps srun's command line and what the controller
		// sends the agents on srun's stdin, where the token travels.
		wrapper := "#!/bin/sh\necho \"$*\" >> " + argLog + "\ntee -a " + capture + " | python3 " + fake + " \"$@\"\n"
		if err := os.WriteFile(filepath.Join(pathDir, "srun"), []byte(wrapper), 0o755); err != nil {
			t.Fatal(err)
		}
		env := append(baseEnv(), "PATH="+pathDir+":"+os.Getenv("PATH"), "SLURM_JOB_ID=99", "SLURM_JOB_NODELIST=127.0.0.[1-2]",
			"FAKESRUN_NODES=127.0.0.1,127.0.0.2", "STORBENCH_SECRET_KEY="+sk)
		res := t.TempDir()
		out := run(t, env, true, append(stat, "--bucket", "sslurm", "--results", res, "--launcher", "slurm", "--access-key", ak)...)
		sent, _ := os.ReadFile(capture)
		if !strings.Contains(string(sent), "STORBENCH_ACCESS_KEY="+ak+"\n") || !strings.Contains(string(sent), "STORBENCH_SECRET_KEY="+sk+"\n") {
			t.Errorf("the run's keys did not reach the agents over srun's stdin:\n%s", sent)
		}
		tokens := regexp.MustCompile(`(?m)^[0-9a-f]{64}$`).FindAllString(string(sent), -1)
		if len(tokens) != 1 {
			t.Fatalf("want the one-run token sent once on srun's stdin, saw %d:\n%s", len(tokens), sent)
		}
		calls, _ := os.ReadFile(argLog)
		check(t, res, map[string]string{"output": out, "srun command lines": string(calls)}, ak, sk, tokens[0])
	})
	t.Run("--launcher mpiexec one-run token", func(t *testing.T) {
		// The real mpiexec, behind a wrapper that keeps its command line and
		// what the controller sends on its stdin, where the token travels.
		argLog := filepath.Join(t.TempDir(), "mpiexec.args")
		wrapper, capture, hostfile := mpiexecWrapper(t, "echo \"$*\" >> "+argLog)
		ak, sk := user("mpi")
		env := append(baseEnv(), "STORBENCH_MPIEXEC="+wrapper, "STORBENCH_SECRET_KEY="+sk)
		res := t.TempDir()
		out := run(t, env, true, append(stat, "--bucket", "smpi", "--results", res, "--launcher", "mpiexec", "--hostfile", hostfile, "--access-key", ak)...)
		if !strings.Contains(out, "on localhost-0, localhost-1") {
			t.Errorf("the phase did not run on the 2 ranks:\n%s", out)
		}
		sent, _ := os.ReadFile(capture)
		if !strings.Contains(string(sent), "STORBENCH_ACCESS_KEY="+ak+"\n") || !strings.Contains(string(sent), "STORBENCH_SECRET_KEY="+sk+"\n") {
			t.Errorf("the run's keys did not reach the agents over mpiexec's stdin:\n%s", sent)
		}
		tokens := regexp.MustCompile(`(?m)^[0-9a-f]{64}$`).FindAllString(string(sent), -1)
		if len(tokens) != 1 {
			t.Fatalf("want the one-run token sent once on mpiexec's stdin, saw %d:\n%s", len(tokens), sent)
		}
		calls, _ := os.ReadFile(argLog)
		check(t, res, map[string]string{"output": out, "mpiexec command lines": string(calls)}, ak, sk, tokens[0])
	})
}

// mpiexecWrapper is MPICH's real mpiexec behind a wrapper that first runs
// record (a shell line keeping what the test looks at: its environment,
// its arguments) and keeps in capture what the controller sends on its
// stdin, with a hostfile of two ranks on this machine. It skips the test
// where MPICH is not installed.
func mpiexecWrapper(t *testing.T, record string) (wrapper, capture, hostfile string) {
	t.Helper()
	mpiexec, err := exec.LookPath("mpiexec.mpich")
	if err != nil {
		t.Skip("needs MPICH's mpiexec (mpiexec.mpich): install the distribution's mpich package (make tools does)")
	}
	dir := t.TempDir()
	wrapper, capture, hostfile = filepath.Join(dir, "mpiexec"), filepath.Join(dir, "stdin"), filepath.Join(dir, "hosts")
	script := "#!/bin/sh\n" + record + "\ntee -a " + capture + " | " + mpiexec + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hostfile, []byte("localhost:2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return wrapper, capture, hostfile
}
