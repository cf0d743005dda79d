package cluster

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/testutil"
)

// A stream's send leaves no write deadline armed: a line sent after a
// pause longer than the silence a write may take (an agent starved between
// two lines, or a stage that has nothing to say until its tick) goes out,
// and the next call on the connection is answered. Before, over HTTP/2,
// the deadline of the last send stayed armed and fired while nothing was
// being written: it reset the stream, and the agent took its controller
// for gone and stopped the phase. (Over HTTP/1.1, which an older
// controller speaks, each send's deadline is set afresh and Go's server
// clears it between requests; the case stays as a guard.)
func TestASendLeavesNoWriteDeadline(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		name := "http1"
		if h2 {
			name = "h2c"
		}
		t.Run(name, func(t *testing.T) {
			const silence = 200 * time.Millisecond
			second := make(chan error, 1)
			p := new(http.Protocols)
			if h2 {
				p.SetUnencryptedHTTP2(true)
			} else {
				p.SetHTTP1(true)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			hs := &http.Server{Protocols: p, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusOK)
				if r.URL.Path == "/again" {
					_, _ = w.Write([]byte("ok"))
					return
				}
				lw := &lineWriter{rc: http.NewResponseController(w), enc: json.NewEncoder(w), silence: silence}
				if err := lw.send(line{Tick: true}); err != nil {
					second <- err
					return
				}
				// Past the first send's deadline, four times over.
				time.Sleep(4 * silence)
				second <- lw.send(line{Done: true})
			})}
			go func() { _ = hs.Serve(ln) }()
			t.Cleanup(func() { _ = hs.Close() })
			client := &http.Client{Transport: &http.Transport{Protocols: p}}
			t.Cleanup(client.CloseIdleConnections)
			req, err := http.NewRequestWithContext(testutil.Ctx(t, testutil.Bound), http.MethodPost, "http://"+ln.Addr().String()+"/", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var got []line
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				var l line
				if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
					t.Fatalf("line %q: %v", sc.Text(), err)
				}
				got = append(got, l)
			}
			if err := testutil.Recv(t, second, testutil.Bound, "the second send"); err != nil {
				t.Errorf("a send %s after the one before failed: %v", 4*silence, err)
			}
			if len(got) != 2 || !got[1].Done {
				t.Errorf("the controller read %d lines (%v), want the tick and the last line", len(got), sc.Err())
			}
			// The next call on the same connection, once the last
			// send's deadline has passed.
			time.Sleep(4 * silence)
			req, err = http.NewRequestWithContext(testutil.Ctx(t, testutil.Bound), http.MethodGet, "http://"+ln.Addr().String()+"/again", nil)
			if err != nil {
				t.Fatal(err)
			}
			again, err := client.Do(req)
			if err != nil {
				t.Fatalf("the next call after a stream: %v", err)
			}
			b, err := io.ReadAll(again.Body)
			again.Body.Close()
			if string(b) != "ok" || err != nil {
				t.Errorf("the next call after a stream read %q, %v; want ok", b, err)
			}
		})
	}
}
