package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/fio"
	"github.com/storbench/storbench/internal/model"
)

// hostileAgent is a FAKE agent: it answers as a real one does, except that
// its run stream sends one line of n bytes, before or as its last line -
// what no real agent sends and a broken build or a hostile peer (a token
// holder) could. No real agent can be made to.
func hostileAgent(t *testing.T, n int64, last bool) *RemoteAgent {
	t.Helper()
	return fakeRunAgent(t, "hostile", func(w http.ResponseWriter) {
		head := `{"snapshot":{"host":"`
		if last {
			head = `{"done":true,"error":"`
		}
		_, _ = io.WriteString(w, head)
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for sent := int64(0); sent < n; sent += int64(len(chunk)) {
			if _, err := w.Write(chunk); err != nil {
				return // the controller hung up
			}
		}
		_, _ = io.WriteString(w, "\"}}\n")
	})
}

// fakeRunAgent is a FAKE agent named host: it answers every request as a
// real agent with nothing to do does, and its run stream with run.
func fakeRunAgent(t *testing.T, host string, run func(w http.ResponseWriter)) *RemoteAgent {
	t.Helper()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(HeaderProtocol, protoString)
		switch strings.TrimPrefix(r.URL.Path, PathPrefix+"/") {
		case "info":
			writeJSON(w, http.StatusOK, Info{Protocol: Protocol, Version: "fake"})
		case "time":
			writeJSON(w, http.StatusOK, timeBody{TimeNs: time.Now().UnixNano()})
		case "run":
			w.WriteHeader(http.StatusOK)
			run(w)
		case "prepare", "cleanup", "settle":
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, "{\"done\":true}\n")
		case "resources":
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, "{\"done\":true,\"resources\":{}}\n")
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &RemoteAgent{Addr: strings.TrimPrefix(srv.URL, "http://"), Host: host, Token: testToken, HeartbeatTimeout: testKnob}
}

// heapGrowth is how far the heap grew above where it was while fn ran,
// sampled every 5 ms. The collector runs at a tenth of the usual growth
// meanwhile: the heap counts garbage until it is collected, and a starved
// collector let the pieces of a refused line, each dropped once read, pass
// for 32 MB held (under -race beside busy loops).
func heapGrowth(fn func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	fn()
	close(done)
	<-sampled
	return peak - base
}

// A 300 MB line from an agent (the FAKE above), as a snapshot and as the
// run's last line: the controller takes at most the line's bound
// (maxLine; a result's, resultBase and the run's seconds), marks the host
// lost saying why, and the phase goes on without it. Before, it read the
// whole line and decoded it: 1.17 GB for the controller.
func TestHugeLineFromAgentIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		last  bool
		limit uint64
	}{
		{"snapshot", false, 4 * maxLine},
		{"last line", true, 4 * resultBase},
	} {
		t.Run(tc.name, func(t *testing.T) {
			good := startAgent(t, "good", nil)
			c := newController(remoteFor(good, "good"), hostileAgent(t, 300<<20, tc.last))
			if _, err := c.Connect(context.Background()); err != nil {
				t.Fatal(err)
			}
			var out *Outcome
			var err error
			used := heapGrowth(func() {
				out, err = c.RunPhase(context.Background(), "r", false, tickPhaseOf(t, 1000, 200, 5))
			})
			if err != nil {
				t.Fatalf("a lost host must not fail the phase: %v", err)
			}
			if len(out.Lost) != 1 || out.Lost[0] != "hostile" || len(out.Results) != 1 {
				t.Fatalf("lost %v, results %d", out.Lost, len(out.Results))
			}
			if msg := out.Errors["hostile"].Error(); !strings.Contains(msg, "a line is over") || !errors.Is(out.Errors["hostile"], ErrLost) {
				t.Errorf("the host's error does not say why: %v", msg)
			}
			t.Logf("the controller's heap grew by %d MB in the phase", used>>20)
			if used > tc.limit {
				t.Errorf("the controller's heap grew by %d MB in the phase, want at most %d MB", used>>20, tc.limit>>20)
			}
		})
	}
}

// endless is an io.Reader of n bytes: a JSON document whose one string
// runs for n, made on the fly, so the sender does not hold it.
type endless struct {
	head, tail string
	n, off     int64
}

func (e *endless) Read(p []byte) (int, error) {
	total := int64(len(e.head)) + e.n + int64(len(e.tail))
	if e.off >= total {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && e.off < total {
		switch {
		case e.off < int64(len(e.head)):
			p[k] = e.head[e.off]
		case e.off < int64(len(e.head))+e.n:
			p[k] = 'a'
		default:
			p[k] = e.tail[e.off-int64(len(e.head))-e.n]
		}
		k++
		e.off++
	}
	return k, nil
}

// A 600 MB prepare body from a token holder: the agent reads at most its
// bound (maxPhaseBody), refuses it in one answer saying so, and stays
// free. A phase name of 1 MB, within the bound, reaches the agent's log
// as one line of at most maxLogLine. Before, the agent took 1.2 GB and
// logged the whole body as one line.
func TestHugeRequestToAgentIsRefused(t *testing.T) {
	ta := startAgent(t, "a", nil)
	var logged []string
	ta.srv.Logf = func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }
	post := func(body io.Reader) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, "http://"+ta.addr+PathPrefix+"/prepare", body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(HeaderProtocol, protoString)
		req.Header.Set(HeaderSession, "s1")
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error() // the agent may hang up once it refused
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return resp.StatusCode, string(b)
	}
	var code int
	var answer string
	used := heapGrowth(func() {
		code, answer = post(&endless{head: `{"run_id":"r","phase":{"name":"`, tail: `"}}`, n: 600 << 20})
	})
	if code != 0 && (code != http.StatusBadRequest || !strings.Contains(answer, "over 16.0 MiB")) {
		t.Errorf("answer %d %q, want the request refused as over its bound", code, answer)
	}
	t.Logf("the agent's heap grew by %d MB for a 600 MB request", used>>20)
	if used > 6*maxPhaseBody {
		t.Errorf("the agent's heap grew by %d MB for the request, want at most %d MB", used>>20, 6*maxPhaseBody>>20)
	}
	// Within the bound, a phase name of 1 MB: logged in one short line.
	name := strings.Repeat("n", 1<<20)
	b, _ := json.Marshal(Request{RunID: "r", Phase: engine.Phase{Name: name, Engine: "sbtest-tick", Params: []byte(`{"duration_ms":100}`)}})
	post(bytes.NewReader(b))
	if len(logged) == 0 {
		t.Fatal("nothing logged")
	}
	for _, l := range logged {
		if len(l) > maxLogLine+100 {
			t.Errorf("a log line of %d bytes: %.200s...", len(l), l)
		}
	}
}

// Legitimate messages fit their bounds with room: a release to 1,000
// hosts each bringing the most a barrier takes, and a prepare naming
// 1,000 hosts with a 1 MiB job file.
func TestBoundsHoldLegitimateMessages(t *testing.T) {
	// The release's size from those of 1 and 2 hosts: every host's entry
	// is as long as another's (names of one width, the same data), so the
	// size grows by one entry's per host. Marshalled whole, 87 MB of
	// base64 took 100 s of make test's time under -race.
	release := func(n int) int {
		rel := releaseBody{Name: "0/file-create", StartNs: time.Now().UnixNano()}
		for i := range n {
			rel.Hosts = append(rel.Hosts, engine.Arrival{Host: fmt.Sprintf("client%04d.storage.example.com", i), Data: bytes.Repeat([]byte{0xff}, maxArrival)})
		}
		b, _ := json.Marshal(rel)
		return len(b)
	}
	one := release(1)
	if size, limit := one+999*(release(2)-one), maxSmallBody+1000*releasePerHost; size > limit {
		t.Errorf("a release to 1000 hosts is %d bytes, over its bound %d", size, limit)
	}
	req := Request{RunID: "r", Phase: engine.Phase{Name: "p", Engine: "fio", Params: []byte(`{"job":"` + strings.Repeat("x", 1<<20) + `"}`)}, Hosts: 1000, Next: "client0001.storage.example.com"}
	if b, _ := json.Marshal(req); len(b) > maxPhaseBody/8 {
		t.Errorf("a prepare for 1000 hosts is %d bytes, near its bound %d", len(b), maxPhaseBody)
	}
}

// A legitimately large result, through a real agent: a 64-job fio phase
// without group_reporting (every job's json+ output and histograms) fits
// the bound of a run's last line, which fio's jobs raise.
func TestLargeLegitimateResultFits(t *testing.T) {
	if _, err := fio.FindFio(""); err != nil {
		t.Skip("fio is not installed")
	}
	c := newController(remoteFor(startAgent(t, "a", nil), "a"))
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	text := "[global]\nioengine=psync\nsize=256k\ntime_based=1\nruntime=2\ngroup_reporting=0\n[rw]\nrw=randread\nbs=4k\nnumjobs=64\n"
	b, _ := json.Marshal(fio.Params{Dir: t.TempDir(), Job: fio.Job{Name: "many", Text: text}})
	ph := engine.Phase{Name: "many", Engine: model.EngineFio, Params: b}
	out, err := c.RunPhase(context.Background(), "big", false, ph)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 1 || len(out.Lost) != 0 {
		t.Fatalf("results %d, lost %v", len(out.Results), out.Lost)
	}
	line, _ := json.Marshal(line{Done: true, Result: out.Results[0]})
	fixed, perSecond := testEngines.ResultBytes(ph)
	limit := resultSize{fixed, perSecond}.limit(time.Now())
	t.Logf("the result of 64 fio jobs is %d KB; its line's bound %d MB", len(line)>>10, limit>>20)
	if int64(len(line)) > limit/4 {
		t.Errorf("a legitimate result of %d bytes is near its bound %d", len(line), limit)
	}
}

// An agent lost mid-phase whose address-space limit (ulimit -v, in its
// Info) is under what an agent needs: the controller's line names the
// limit as the likely cause, since the Go runtime ends a process past it
// without a word the controller sees.
func TestLostAgentNamesItsAddressLimit(t *testing.T) {
	dying := startAgent(t, "c", nil)
	ra := remoteFor(dying, "c")
	c := newController(ra)
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	// As the Info of an agent started under ulimit -v 1000000 says.
	ra.mu.Lock()
	ra.addressLimit = 1000000 << 10
	ra.mu.Unlock()
	go func() {
		time.Sleep(1200 * time.Millisecond)
		dying.kill()
	}()
	out, _ := c.RunPhase(context.Background(), "r", false, tickPhaseOf(t, 2500, 200, 5))
	if out == nil || len(out.Lost) != 1 {
		t.Fatalf("the agent was not lost: %+v", out)
	}
	if msg := out.Errors["c"].Error(); !strings.Contains(msg, "the address-space limit (ulimit -v) is 1000000 KiB") {
		t.Errorf("the lost agent's error does not name its limit: %s", msg)
	}
}

// slowLineAgent is a FAKE agent whose run sends its last line, n bytes
// long, over about spread: a large result on a slow link. It takes no
// pause longer than a tenth of spread between two parts of the line.
func slowLineAgent(t *testing.T, n int64, spread time.Duration) *RemoteAgent {
	t.Helper()
	return fakeRunAgent(t, "slow", func(w http.ResponseWriter) {
		_, _ = io.WriteString(w, `{"done":true,"error":"`)
		const parts = 50
		chunk := bytes.Repeat([]byte("x"), int(n/parts))
		for range parts {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(spread / parts)
		}
		_, _ = io.WriteString(w, "\"}\n")
	})
}

// A last line that takes longer to arrive than the controller's silence
// (a large result on a slow link) is an agent talking, not a lost one:
// each part of it resets the silence. Before, the agent was lost in the
// middle of sending its result. The line takes 10 s, past the 9 s the
// controller waits for a stream's first line (a silence of 4 s and 5 s
// for a TLS handshake); its parts come every 200 ms, a twentieth of the
// silence, so a busy machine's pauses do not make a silence of them (a
// silence of 2 s, ten parts, was reached once in make test beside make
// cluster-test, under -race).
func TestLongLineOnASlowLinkIsNoSilence(t *testing.T) {
	slow := slowLineAgent(t, 4<<20, 10*time.Second)
	slow.Silence = 4 * time.Second
	c := newController(slow)
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	out, _ := c.RunPhase(context.Background(), "r", false, tickPhaseOf(t, 200, 100, 5))
	if out == nil {
		t.Fatal("no outcome")
	}
	if err := out.Errors["slow"]; err == nil || errors.Is(err, ErrLost) || !strings.Contains(err.Error(), "xxxx") {
		t.Errorf("the slow host's error is %v, want its own (long) error, not lost", err)
	}
}
