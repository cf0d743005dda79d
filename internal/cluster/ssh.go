package cluster

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/secret"
)

// SSHLauncher starts `storbench agent` on hosts with the system ssh, so the
// user's ssh config, keys and jump hosts apply. The agent listens on the
// host's loopback and the controller reaches it through an ssh port forward;
// its one-run token (and any S3 keys) go over ssh's stdin, never on a
// command line (ReadStdin is the agent's side); and it exits when that
// stdin closes, so it ends with the controller even if the controller dies.
type SSHLauncher struct {
	// SSH is the ssh program ("ssh").
	SSH string
	// User, if set, logs in as this user.
	User string
	// Opts are extra ssh options ("-J", "jump", "-i", "key").
	Opts []string
	// Hosts are the host entries, host[:port], one agent each; the port
	// is the one the agent listens on, on the host's loopback.
	Hosts []string

	// launch is what Start was given.
	launch Launch
}

var _ Launcher = (*SSHLauncher)(nil)

// NewSSHLauncher is the launcher of --ssh (--launcher ssh): one agent on
// every host. Without hosts there is nothing to start: the run is this
// machine's, in-process, as without --ssh.
func NewSSHLauncher(c LaunchConfig) (Launcher, error) {
	if len(c.Hosts) == 0 {
		return nil, nil
	}
	l := &SSHLauncher{SSH: "ssh", User: c.SSHUser, Opts: c.SSHOpts}
	for _, e := range c.Hosts {
		l.Hosts = append(l.Hosts, e.String())
	}
	return l, nil
}

// Flag names the launcher for messages.
func (l *SSHLauncher) Flag() string { return "--ssh" }

// Planned is one agent per host.
func (l *SSHLauncher) Planned() int { return len(l.Hosts) }

// Start starts an agent on every host at once and returns those that
// started; the others are in Failed.
func (l *SSHLauncher) Start(ctx context.Context, launch Launch) (Started, error) {
	l.launch = launch
	names := HostNames(l.Hosts)
	s := &sshStarted{}
	started := make([]*SSHAgent, len(l.Hosts))
	errs := make([]error, len(l.Hosts))
	var wg sync.WaitGroup
	for i, e := range l.Hosts {
		wg.Go(func() {
			h, port, err := SplitHostPort(e)
			if err != nil {
				errs[i] = err
				return
			}
			started[i], errs[i] = l.startOne(ctx, h, port, names[i], launch.Token, launch.agentFlags())
		})
	}
	wg.Wait()
	for i, sa := range started {
		if sa != nil {
			s.started = append(s.started, sa)
		}
		if errs[i] != nil {
			s.failed = append(s.failed, fmt.Sprintf("%s: %v", l.Hosts[i], errs[i]))
		}
	}
	if len(s.started) == 0 {
		return nil, fmt.Errorf("--ssh: %s: the run was refused before any load", strings.Join(s.failed, "; "))
	}
	return s, nil
}

// sshStarted is the agents an SSHLauncher started.
type sshStarted struct {
	started []*SSHAgent
	failed  []string
}

func (s *sshStarted) Agents() []*RemoteAgent {
	out := make([]*RemoteAgent, len(s.started))
	for i, a := range s.started {
		out[i] = a.RemoteAgent
	}
	return out
}

func (s *sshStarted) Failed() []string { return s.failed }

// Stop closes every agent's stdin at once and waits for their ssh to end.
func (s *sshStarted) Stop() []string {
	var mu sync.Mutex
	var left []string
	var wg sync.WaitGroup
	for _, sa := range s.started {
		wg.Go(func() {
			if !sa.Shutdown() {
				mu.Lock()
				left = append(left, sa.Host+": ssh did not end within a minute after the agent's stdin closed and was killed; the agent may still run there")
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return left
}

// SSHAgent is an agent started by an SSHLauncher.
type SSHAgent struct {
	*RemoteAgent
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{}
	out   *tail
}

func (l *SSHLauncher) target(host string) []string {
	args := append([]string{"-o", "BatchMode=yes"}, l.Opts...)
	if l.User != "" {
		args = append(args, "-l", l.User)
	}
	return append(args, host)
}

// run runs a remote shell command and returns its trimmed output.
func (l *SSHLauncher) run(ctx context.Context, host, script string, stdin io.Reader) (string, error) {
	// ssh hands its command to the remote user's shell as one string.
	cmd := exec.CommandContext(ctx, l.SSH, append(l.target(host), script)...)
	cmd.Stdin = stdin
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("ssh %s: %s", host, msg)
	}
	return strings.TrimSpace(out.String()), nil
}

// binaryHash names the remote copy after the binary's content, so a copy is
// reused only when it is this exact build.
func binaryHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

// remoteBinary finds or installs this storbench on host and returns the
// command to run it.
func (l *SSHLauncher) remoteBinary(ctx context.Context, host string) (string, error) {
	hash, err := binaryHash(l.launch.Binary)
	if err != nil {
		return "", fmt.Errorf("--ssh: reading this storbench binary: %v", err)
	}
	copyPath := ".storbench/storbench-" + hash
	want := "storbench " + l.launch.Version
	probe := fmt.Sprintf(`if [ -x %[1]s ]; then echo COPY; elif [ %[2]s != "storbench dev" ] && command -v storbench >/dev/null 2>&1 && [ "$(storbench --version 2>/dev/null)" = %[2]s ]; then echo PATH; else echo NONE; fi`,
		copyPath, shellQuote(want))
	got, err := l.run(ctx, host, probe, nil)
	if err != nil {
		return "", err
	}
	switch got {
	case "COPY":
		return copyPath, nil
	case "PATH":
		return "storbench", nil
	}
	l.launch.logf("%s: copying storbench (%s) to ~/%s", host, l.launch.Version, copyPath)
	f, err := os.Open(l.launch.Binary)
	if err != nil {
		return "", err
	}
	defer f.Close()
	install := fmt.Sprintf(`mkdir -p .storbench && cat > %[1]s.tmp && chmod 755 %[1]s.tmp && mv %[1]s.tmp %[1]s`, copyPath)
	if _, err := l.run(ctx, host, install, f); err != nil {
		return "", fmt.Errorf("copying storbench: %v", err)
	}
	return copyPath, nil
}

// startOne starts an agent on host (ssh destination, without port)
// listening on the host's loopback port, forwarded from a free local port.
func (l *SSHLauncher) startOne(ctx context.Context, host string, port int, name, token string, flags []string) (*SSHAgent, error) {
	bin, err := l.remoteBinary(ctx, host)
	if err != nil {
		return nil, err
	}
	local, err := freeLocalPort()
	if err != nil {
		return nil, err
	}
	remote := fmt.Sprintf("%s agent --listen 127.0.0.1:%d --stdin", bin, port)
	for _, f := range flags {
		remote += " " + f
	}
	args := append([]string{"-o", "ExitOnForwardFailure=yes", "-L", fmt.Sprintf("127.0.0.1:%d:127.0.0.1:%d", local, port)}, l.target(host)...)
	args = append(args, remote)
	cmd := exec.Command(l.SSH, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out := &tail{ready: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("ssh %s: %v", host, err)
	}
	a := &SSHAgent{cmd: cmd, stdin: stdin, done: make(chan struct{}), out: out}
	go func() { _ = cmd.Wait(); close(a.done) }()
	if _, err := io.WriteString(stdin, stdinMessage(token, l.launch.Secrets)); err != nil {
		a.Shutdown()
		return nil, fmt.Errorf("ssh %s: %v", host, err)
	}
	select {
	case <-out.ready:
	case <-a.done:
		return nil, fmt.Errorf("ssh %s: the agent did not start: %s", host, out.String())
	case <-time.After(60 * time.Second):
		a.Shutdown()
		return nil, fmt.Errorf("ssh %s: the agent did not start within 60s: %s", host, out.String())
	case <-ctx.Done():
		a.Shutdown()
		return nil, ctx.Err()
	}
	a.RemoteAgent = &RemoteAgent{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(local)), Host: name, Token: token}
	l.launch.logf("%s: agent started", host)
	return a, nil
}

// stdinMessage is what a launcher writes first on an agent's stdin: the
// token on the first line, then each secret as a NAME=VALUE line (in name
// order; the names are those the engines declare, which the launcher
// need not know), then a blank line; the stream then stays open until the
// controller lets the agent go.
func stdinMessage(token string, s engine.Secrets) string {
	var b strings.Builder
	b.WriteString(token + "\n")
	for _, n := range s.Names() {
		b.WriteString(n + "=" + s.Get(n).Reveal() + "\n")
	}
	b.WriteString("\n")
	return b.String()
}

// ReadStdin reads, on the agent's side, what a launcher wrote first on its
// stdin: the token and the secrets, by name (which names count is the
// agent's engines' to say). The rest of r is the open stream whose end
// tells the agent to stop.
func ReadStdin(r *bufio.Reader) (token string, s engine.Secrets, err error) {
	l, err := r.ReadString('\n')
	if err != nil && l == "" {
		return "", nil, errors.New("--stdin: no token on stdin")
	}
	token = strings.TrimSpace(l)
	s = engine.Secrets{}
	for {
		l, err := r.ReadString('\n')
		l = strings.TrimSpace(l)
		if l == "" || err != nil {
			return token, s, nil
		}
		if k, v, ok := strings.Cut(l, "="); ok && k != "" && v != "" {
			s[k] = secret.New(v)
		}
	}
}

// Shutdown closes the agent's stdin, which makes it stop any phase, clean
// up and exit, and waits for ssh to end (killing it after a minute: it
// then returns false).
func (a *SSHAgent) Shutdown() bool {
	_ = a.stdin.Close()
	ended := true
	select {
	case <-a.done:
	case <-time.After(time.Minute):
		_ = a.cmd.Process.Kill()
		<-a.done
		ended = false
	}
	if a.RemoteAgent != nil {
		a.RemoteAgent.Close()
	}
	return ended
}

// tail keeps the last few KB of ssh's output and notices the agent's
// "listening on" line.
type tail struct {
	mu    sync.Mutex
	buf   []byte
	once  sync.Once
	ready chan struct{}
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 8<<10 {
		t.buf = t.buf[len(t.buf)-8<<10:]
	}
	ok := strings.Contains(string(t.buf), "listening on")
	t.mu.Unlock()
	if ok {
		t.once.Do(func() { close(t.ready) })
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	sc := bufio.NewScanner(strings.NewReader(string(t.buf)))
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return strings.Join(lines, "; ")
}

func freeLocalPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// The letters of ssh's options (ssh(1)): those that take an argument,
// attached ("-ikey") or as the next word, and those that take none.
const (
	sshArgLetters  = "BbcDEeFIiJLlmOoPpQRSWw"
	sshFlagLetters = "46AaCfGgKkMNnqsTtVvXxYy"
)

// ParseSSHOpts turns --ssh-opts into ssh's arguments as the user quoted
// them: words split at blanks outside quotes, with single quotes, double
// quotes and backslashes read as a POSIX shell reads them (nothing is
// expanded). Every word must be an ssh option or the argument of the one
// before it, so a value such as "-oProxyCommand=touch /x", which would
// reach ssh as an option cut in two, is refused with the way to quote it,
// never passed on split.
func ParseSSHOpts(s string) ([]string, error) {
	words, err := shellWords(s)
	if err != nil {
		return nil, fmt.Errorf("--ssh-opts %q: %v", s, err)
	}
	const hint = `quote an option whose value holds blanks inside the value, as in --ssh-opts "-o 'ProxyCommand=ssh -W %h:%p jump'"`
	for i := 0; i < len(words); i++ {
		w := words[i]
		if len(w) < 2 || w[0] != '-' || w == "--" {
			return nil, fmt.Errorf("--ssh-opts: %q is not an ssh option or the argument of one (%s)", w, hint)
		}
		for j := 1; j < len(w); j++ {
			c := w[j]
			switch {
			case strings.IndexByte(sshFlagLetters, c) >= 0:
			case strings.IndexByte(sshArgLetters, c) >= 0:
				if j == len(w)-1 {
					if i+1 == len(words) {
						return nil, fmt.Errorf("--ssh-opts: -%c needs its argument", c)
					}
					i++
				}
				j = len(w) // the rest of the word is the argument
			default:
				return nil, fmt.Errorf("--ssh-opts: %q is not an ssh option (-%c is none of ssh's)", w, c)
			}
		}
	}
	return words, nil
}

// shellWords splits s into words as a POSIX shell does, without expanding
// anything: blanks separate words outside quotes, '...' is literal, "..."
// is literal but for \" \\ \$ and \`, and a backslash outside quotes keeps
// the next character as it is.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\\':
			if i+1 == len(s) {
				return nil, errors.New("ends in a backslash")
			}
			i++
			w.WriteByte(s[i])
			inWord = true
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("unclosed quote (')")
			}
			w.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			closed := false
			for i++; i < len(s); i++ {
				if s[i] == '"' {
					closed = true
					break
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			if !closed {
				return nil, errors.New(`unclosed quote (")`)
			}
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}
