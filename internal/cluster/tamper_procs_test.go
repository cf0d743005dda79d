package cluster_test

import (
	"bufio"
	"bytes"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/results"
)

// tamperProxy stands between the controller and an agent, passing every
// request on and changing each line of the agents' answers with edit, as
// a malicious agent or a man in the middle would.
func tamperProxy(t *testing.T, agent string, edit func(path string, line []byte) []byte) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out, err := http.NewRequestWithContext(r.Context(), r.Method, "http://"+agent+r.URL.RequestURI(), r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		out.Header = r.Header.Clone()
		resp, err := http.DefaultTransport.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(resp.StatusCode)
		br := bufio.NewReader(resp.Body)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				w.Write(edit(r.URL.Path, line))
				w.(http.Flusher).Flush()
			}
			if err != nil {
				return
			}
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// An agent's figures that do not match what the controller asked for
// are refused (issue 33): operation names the phase does not record (an
// escape sequence among them, which the controller printed raw on its
// terminal and wrote into summary.md), and snapshots of another phase.
// The run fails on that host (exit 1) and says why; nothing of what the
// agent sent reaches the output or the results. Through the same proxy
// without a change, the run completes.
func TestAgentFiguresNotAskedForRefused(t *testing.T) {
	t.Parallel()
	c := startCluster(t, loopback(t, 1), nil, nil)
	phaseRE := regexp.MustCompile(`"phase":"[^"]*"`)
	for _, tc := range []struct {
		name string
		edit func(path string, line []byte) []byte
		want []string
	}{
		{"unchanged", func(_ string, l []byte) []byte { return l }, nil},
		{"operation names", func(path string, l []byte) []byte {
			return bytes.ReplaceAll(l, []byte(`"op":"file-create"`), []byte(`"op":"file-create\u001b]0;owned\u0007"`))
		}, []string{"refused", `"file-create\x1b]0;owned\a"`, "does not record"}},
		{"operation names in the result alone", func(path string, l []byte) []byte {
			if !bytes.Contains(l, []byte(`"done":true`)) {
				return l
			}
			return bytes.ReplaceAll(l, []byte(`"op":"file-stat"`), []byte(`"op":"file-steal"`))
		}, []string{"refused", `"file-steal"`, "does not record"}},
		{"another phase", func(path string, l []byte) []byte {
			return phaseRE.ReplaceAll(l, []byte(`"phase":"other\u001b[2J"`))
		}, []string{"refused", `phase "other\x1b[2J"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy := tamperProxy(t, c.tp.addrs[0], tc.edit)
			res := t.TempDir()
			cmd := exec.Command(c.bin, "md", "-d", t.TempDir(), "-n", "50", "-i", "1", "-t", "1",
				"--token-file", c.token, "--agents", proxy, "--results", res, "--no-catalog")
			outb, err := cmd.CombinedOutput()
			out := string(outb)
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if strings.ContainsAny(out, "\x1b\a") {
				t.Errorf("what the agent sent reached the terminal raw:\n%q", out)
			}
			if tc.want == nil {
				if code != 0 {
					t.Fatalf("through the proxy unchanged: exit %d\n%s", code, out)
				}
				return
			}
			if code != 1 {
				t.Errorf("exit %d, want 1 (the phase failed on the host)\n%s", code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("the output does not say %s:\n%s", w, out)
				}
			}
			dirs, _ := filepath.Glob(filepath.Join(res, "*"))
			for _, d := range dirs {
				s, err := results.ReadSummary(d)
				if err != nil {
					continue
				}
				for _, p := range s.Phases {
					for _, o := range p.Ops {
						if o.Op != "file-create" && o.Op != "file-stat" && o.Op != "file-read" && o.Op != "file-remove" && !strings.HasPrefix(o.Op, "tree-") && !strings.HasPrefix(o.Op, "dir-") {
							t.Errorf("the results keep operation %q", o.Op)
						}
					}
				}
				md, _ := os.ReadFile(filepath.Join(d, "summary.md"))
				if bytes.ContainsAny(md, "\x1b\a") {
					t.Errorf("summary.md holds what the agent sent raw")
				}
			}
		})
	}
}
