package cluster

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// --ssh-opts reaches ssh as the user quoted it: words split at blanks
// outside quotes, quotes honoured, and a value whose words are not ssh
// options with their arguments is refused rather than split into
// something else (issue 21: '-oProxyCommand=touch /x' became
// -oProxyCommand=touch and a stray /x, and ran touch without its
// argument).
func TestSSHOptsAsQuoted(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"-J jump -i key", []string{"-J", "jump", "-i", "key"}},
		{"  -4  -v ", []string{"-4", "-v"}},
		{"-o 'ProxyCommand=ssh -W %h:%p jump'", []string{"-o", "ProxyCommand=ssh -W %h:%p jump"}},
		{`"-oProxyCommand=touch /x"`, []string{"-oProxyCommand=touch /x"}},
		{`-i my\ key -p 2222`, []string{"-i", "my key", "-p", "2222"}},
		{`-o "UserKnownHostsFile=/a \"b\"" -Ct`, []string{"-o", `UserKnownHostsFile=/a "b"`, "-Ct"}},
		{"", nil},
	} {
		got, err := ParseSSHOpts(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseSSHOpts(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"-oProxyCommand=touch /x", `"/x" is not an ssh option`},
		{"-o ProxyCommand=touch /x", `"/x" is not an ssh option`},
		{"-J", "-J needs its argument"},
		{"-i key extra", `"extra" is not an ssh option`},
		{"-o 'unclosed", "unclosed quote"},
		{`-o "unclosed`, "unclosed quote"},
		{"-i key \\", "ends in a backslash"},
		{"--", `"--"`},
	} {
		got, err := ParseSSHOpts(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--ssh-opts") || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseSSHOpts(%q) = %q, %v; want one line saying %q", c.in, got, err, c.want)
		}
	}
}

// The options reach the real ssh program word for word: ssh -G (print the
// configuration it would use, connect nowhere) shows a ProxyCommand with
// its blanks.
func TestSSHOptsReachSSH(t *testing.T) {
	ssh, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("no ssh here")
	}
	mark := filepath.Join(t.TempDir(), "x")
	opts, err := ParseSSHOpts(`'-oProxyCommand=touch ` + mark + `'`)
	if err != nil {
		t.Fatal(err)
	}
	l := &SSHLauncher{SSH: ssh, Opts: opts}
	out, err := exec.Command(ssh, append([]string{"-G"}, l.target("example.invalid")...)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "proxycommand touch "+mark) {
		t.Errorf("ssh -G does not show the ProxyCommand as quoted:\n%s", out)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("ssh -G ran the ProxyCommand")
	}
}
