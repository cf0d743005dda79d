package s3

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/s3test"
)

// paths are the two request paths, by the name results give them.
var paths = []struct {
	name string
	sdk  bool
}{{"lean", false}, {"minio-go", true}}

// within runs f and fails t when it does not return within limit (f is
// then left running: what it waits for never comes).
func within(t *testing.T, limit time.Duration, what string, f func()) time.Duration {
	t.Helper()
	done := make(chan struct{})
	t0 := time.Now()
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return time.Since(t0)
	case <-time.After(limit):
		t.Fatalf("%s did not return within %v", what, limit)
	}
	return 0
}

// A server that stops answering in the measured stage - it takes the
// GETs and says nothing, or sends a response's head and stops in its body -
// cannot hold the phase open: at the duration plus the grace the requests
// still open are cut and counted as "timeout: phase grace", one per
// worker, and what the phase made is still cleaned up.
func TestGraceEndsPhaseOnHungServer(t *testing.T) {
	srv := s3test.StartT(t, s3test.Options{})
	for _, path := range paths {
		for _, stall := range []struct {
			name string
			mode int32
		}{{"never answers", s3test.MuteObjectGets}, {"stalls mid-body", s3test.StallObjectGets}} {
			t.Run(path.name+"/"+stall.name, func(t *testing.T) {
				px := s3test.StartStallProxy(t, srv.Endpoint)
				px.StallBodies(1000)
				p := baseParams(srv, "get")
				p["hosts"] = []string{px.Endpoint}
				p["obj_size"], p["objects"], p["concurrent"] = "64KiB", 8, 4
				p["duration"], p["grace"], p["request_timeout"] = "1s", "1s", "1m"
				p["sdk"] = path.sdk
				pr, err := Engine{}.Prepare(context.Background(), engine.Env{Host: "h", RunID: "grace"}, phaseOf(t, "g", p))
				if err != nil {
					t.Fatal(err)
				}
				px.Set(stall.mode)
				var res *engine.HostResult
				el := within(t, 15*time.Second, "Run against a hung server", func() {
					res, err = pr.Run(context.Background(), time.Now(), nil)
				})
				if err != nil {
					t.Fatalf("run failed instead of counting the cut requests: %v", err)
				}
				// Duration 1s + grace 1s; the slack is the scheduler's.
				if el < 1900*time.Millisecond || el > 3500*time.Millisecond {
					t.Errorf("the phase ended after %v, want the duration plus the grace (2s)", el)
				}
				g := res.Ops[0]
				if g.ErrorKinds[errGraceCut.kind] != 4 || g.Errors != 4 {
					t.Errorf("errors %v, want the 4 workers' requests counted as %q", g.ErrorKinds, errGraceCut.kind)
				}
				if px.Stalled.Load() < 4 {
					t.Errorf("the proxy stalled %d requests", px.Stalled.Load())
				}
				if res.Meta["grace"] != "1s" || res.Meta["request_timeout"] != "1m0s" {
					t.Errorf("bounds not in the result: %v", res.Meta)
				}
				px.Set(s3test.Pass)
				if err := pr.Cleanup(context.Background()); err != nil {
					t.Fatal(err)
				}
				if left := keysUnder(t, adminClient(t, srv), "bench", "storbench/grace/"); len(left) != 0 {
					t.Errorf("left behind: %v", left)
				}
			})
		}
	}
}

// A request the server never answers is cut at --request-timeout and
// counted as "timeout: request"; the worker goes on (after the backoff of
// an unreachable endpoint) with its next one.
func TestRequestTimeoutCutsEachRequest(t *testing.T) {
	srv := s3test.StartT(t, s3test.Options{})
	for _, path := range paths {
		t.Run(path.name, func(t *testing.T) {
			px := s3test.StartStallProxy(t, srv.Endpoint)
			p := baseParams(srv, "get")
			p["hosts"] = []string{px.Endpoint}
			// The timeout bounds the preparation's uploads too: long enough
			// for them on a loaded machine.
			p["concurrent"], p["duration"], p["grace"], p["request_timeout"] = 2, "3s", "30s", "1s"
			p["sdk"] = path.sdk
			pr, err := Engine{}.Prepare(context.Background(), engine.Env{Host: "h", RunID: "reqto"}, phaseOf(t, "g", p))
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				px.Set(s3test.Pass)
				if err := pr.Cleanup(context.Background()); err != nil {
					t.Error(err)
				}
			}()
			px.Set(s3test.MuteObjectGets)
			var res *engine.HostResult
			el := within(t, 15*time.Second, "Run", func() { res, err = pr.Run(context.Background(), time.Now(), nil) })
			if err != nil {
				t.Fatal(err)
			}
			// Not the grace: every request ends within its timeout (and
			// its slack, an eighth) of the duration.
			if el > 4500*time.Millisecond {
				t.Errorf("the phase ended after %v, want its duration (3s) and at most a timeout more", el)
			}
			g := res.Ops[0]
			n := g.ErrorKinds[errRequestTimeout.kind]
			// Each worker: a request cut after 1 s, a backoff of 10 ms, 20 ms,
			// ...: three each in 3 s.
			if n < 5 || g.ErrorKinds[errGraceCut.kind] != 0 {
				t.Errorf("errors %v, want 5 or more %q", g.ErrorKinds, errRequestTimeout.kind)
			}
			if len(res.Unreachable) != 1 || res.Unreachable[0].Seconds < 1 {
				t.Errorf("unreachable %+v: requests that time out mean the endpoint was not reached", res.Unreachable)
			}
		})
	}
}

// putOneWorker is the put phase of TestPrepareAndCleanupAreBounded: one
// worker for 500 ms. Its cleanup deletes what the run wrote in one
// multi-object delete, which the server works through key after key: what
// c workers wrote in d takes it about c x d, however loaded the machine
// (the load slows the writes as much), and a request timeout shorter than
// that fails the cleanup of a server that answers.
func putOneWorker(srv *s3test.Server, endpoint string, sdk bool) map[string]any {
	p := baseParams(srv, "put")
	p["hosts"] = []string{endpoint}
	p["concurrent"], p["duration"], p["sdk"] = 1, "500ms", sdk
	return p
}

// deletionTime measures how long the server takes, now, to clean up what
// a putOneWorker phase wrote (with the default request timeout): a test
// whose request timeout must not cut that cleanup takes it from this, not
// from a constant that holds only on an idle machine.
func deletionTime(t *testing.T, srv *s3test.Server, sdk bool) time.Duration {
	t.Helper()
	pr, err := Engine{}.Prepare(context.Background(), engine.Env{Host: "h", RunID: "calibrate"}, phaseOf(t, "c", putOneWorker(srv, srv.Endpoint, sdk)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pr.Run(context.Background(), time.Now(), nil); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if err := pr.Cleanup(context.Background()); err != nil {
		t.Fatal(err)
	}
	return time.Since(t0)
}

// serverInMemory starts versitygw with its objects in /dev/shm (tmpfs):
// its deletions then wait for no disk, whose speed other work on the
// machine swings tenfold. Elsewhere (no /dev/shm) it is StartT's server.
func serverInMemory(t *testing.T) *s3test.Server {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "storbench-s3-test-")
	if err != nil {
		return s3test.StartT(t, s3test.Options{})
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if _, err := s3test.Binary(); err != nil {
		t.Skipf("versitygw %s cannot be built, S3 tests need it: %v", s3test.Version, err)
	}
	srv, err := s3test.Start(dir, s3test.Options{})
	if err != nil {
		t.Fatalf("start versitygw: %v", err)
	}
	t.Cleanup(srv.Stop)
	return srv
}

// Preparation and cleanup against a server that stops answering end within
// a few request timeouts: preparation with the upload that timed out,
// cleanup with what it left, as leftovers. The put phase's request timeout
// is 1.5 s, or three times the cleanup of the same work measured just
// before when the machine is so loaded that this takes longer (with 4
// workers and a fixed 1.5 s, a cleanup of a server that answered timed out
// at load 20 and more); the bound on the cleanup against a hung server
// grows with it.
func TestPrepareAndCleanupAreBounded(t *testing.T) {
	srv := serverInMemory(t)
	for _, path := range paths {
		t.Run(path.name, func(t *testing.T) {
			px := s3test.StartStallProxy(t, srv.Endpoint)
			del := deletionTime(t, srv, path.sdk)
			timeout := max(1500*time.Millisecond, 3*del).Round(time.Millisecond)
			t.Logf("the server cleaned up a run's objects in %v: request timeout %v", del, timeout)
			p := putOneWorker(srv, px.Endpoint, path.sdk)
			p["request_timeout"] = timeout.String()
			pr, err := Engine{}.Prepare(context.Background(), engine.Env{Host: "h", RunID: "bounded"}, phaseOf(t, "p", p))
			if err != nil {
				t.Fatal(err)
			}
			res, err := pr.Run(context.Background(), time.Now(), nil)
			if err != nil || res.Ops[0].Ops == 0 {
				t.Fatalf("run: %v", err)
			}
			px.Set(s3test.MuteAll)
			var cerr error
			within(t, timeout*16/3, "Cleanup against a hung server", func() { cerr = pr.Cleanup(context.Background()) })
			var le *engine.LeftoverError
			if !errors.As(cerr, &le) || len(le.Items) == 0 || le.Items[0].What != "objects" || le.Items[0].AtMost == nil ||
				*le.Items[0].AtMost < int64(res.Ops[0].Ops) {
				t.Fatalf("cleanup returned %v, want the objects left as leftovers", cerr)
			}
			// Now the server answers again: a second cleanup removes them.
			px.Set(s3test.Pass)
			if err := pr.Cleanup(context.Background()); err != nil {
				t.Fatalf("second cleanup: %v", err)
			}

			// Preparation: the uploads hang from the first.
			cl := adminClient(t, srv)
			if ok, _ := cl.BucketExists(context.Background(), "pre"); !ok {
				if err := cl.MakeBucket(context.Background(), "pre", minio.MakeBucketOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			q := baseParams(srv, "get")
			q["hosts"], q["bucket"] = []string{px.Endpoint}, "pre"
			q["request_timeout"] = "1s"
			q["sdk"] = path.sdk
			px.Set(s3test.MuteObjectPuts)
			within(t, 5*time.Second, "Prepare against a hung server", func() {
				_, err = Engine{}.Prepare(context.Background(), engine.Env{Host: "h", RunID: "bounded2"}, phaseOf(t, "g", q))
			})
			if err == nil || !strings.Contains(err.Error(), "upload") || !strings.Contains(err.Error(), errRequestTimeout.kind) {
				t.Fatalf("prepare: %v, want the upload that timed out", err)
			}
			if left := keysUnder(t, cl, "pre", "storbench/bounded2/"); len(left) != 0 {
				t.Errorf("a failed preparation left %v", left)
			}
		})
	}
}

// earlyAnswer is a FAKE S3 server that answers every request as soon as
// its head has come, and reads the body only 100 ms later: as a busy
// server may. net/http waits 50 ms for its writer to finish the body, then
// hands the response back while the writer still reads the request's
// body; the worker must not reuse its reader before the body is closed.
func earlyAnswer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					n := 0
					for {
						h, err := br.ReadString('\n')
						if err != nil {
							return
						}
						if h == "\r\n" {
							break
						}
						if v, ok := strings.CutPrefix(strings.ToLower(h), "content-length: "); ok {
							n, _ = strconv.Atoi(strings.TrimSpace(v))
						}
					}
					if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\nETag: \"x\"\r\nContent-Length: 0\r\n\r\n")); err != nil {
						return
					}
					time.Sleep(100 * time.Millisecond)
					if _, err := br.Discard(n); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// Uploads on minio-go reuse the worker's body reader only after the
// transport closed it. Without the gate the reader's reset raced with
// net/http's writer still reading the previous body: the race detector
// (go test -race, as the suite runs) reports it on every run. The bytes
// read under the race never reached a server here (net/http drops a
// connection whose request it could not finish writing), so only the
// detector sees it.
func TestUploadBodyReusedOnlyWhenClosed(t *testing.T) {
	addr := earlyAnswer(t)
	// Larger than the socket buffers, so the writer waits for the server.
	c, err := resolve(Params{Op: "put", Hosts: []string{addr}, AccessKey: "a", SecretKey: "s", SDK: true, ObjSize: ptrSize("16MiB")}, noKeys)
	if err != nil {
		t.Fatal(err)
	}
	ph := &phase{c: c, ops: []string{"PUT"}, data: newDataBlock(int64(c.ObjSize), 1), prefix: "storbench/r/h/p/"}
	tr := newTransport(c, 1, nil)
	ph.trs, ph.rts = []*http.Transport{tr}, []*boundedTransport{{base: tr, timeout: c.requestTimeout}}
	cl, err := newClient(c, addr, ph.rts[0])
	if err != nil {
		t.Fatal(err)
	}
	ph.cls = [][]*minio.Client{{cl}}
	wk := ph.newWorker(0, nil, nil)
	for i := 0; i < 10; i++ {
		if _, err := wk.put(context.Background(), 0, "storbench/r/h/p/k"+strconv.Itoa(i), int64(c.ObjSize)); err != nil {
			t.Fatalf("put %d: %v", i, err)
		}
	}
}

func ptrSize(s SizeSpec) *SizeSpec { return &s }
