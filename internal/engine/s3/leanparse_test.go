package s3

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/storbench/storbench/internal/s3test"
)

// The lean path's HTTP/1.1 response parser (readHead, readBody,
// readChunked) is held to net/http's: for any bytes a server may send, if
// the lean parser accepts a response, net/http accepts it too and both
// agree on the status, the body's bytes, and where the response ends on
// the connection (so the next response is read from the same place), and
// the lean parser keeps the connection open only if net/http would. The
// lean parser may refuse what net/http accepts (it is stricter: CRLF line
// ends, no obs-fold, one Content-Length, HTTP/1.0 and 1.1 only); refusing
// drops the connection, which cannot desynchronise it.

var recordResponses = flag.Bool("record-versitygw", false, "record versitygw's raw responses into testdata/responses (seeds of the parser's fuzz tests)")

// responsesDir holds raw responses recorded from a real versitygw. A file
// whose name starts with "head-" answers a HEAD request.
const responsesDir = "testdata/responses"

// TestRecordVersitygwResponses writes what versitygw sends, byte for byte,
// for the requests the lean path makes and their errors: GET (whole, ranged,
// missing), PUT (also with Expect: 100-continue, and a wrong key), HEAD
// (found, missing), DELETE, and a bucket listing. It runs only with
// -record-versitygw; the files it wrote are committed.
func TestRecordVersitygwResponses(t *testing.T) {
	if !*recordResponses {
		t.Skip("records only with -record-versitygw")
	}
	srv := s3test.StartT(t, s3test.Options{})
	if err := adminClient(t, srv).MakeBucket(context.Background(), "lean", minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	good := leanFor(t, srv.Endpoint, s3test.SecretKey)
	wrong := leanFor(t, srv.Endpoint, "wrong")
	body4k := bytes.Repeat([]byte("0123456789abcdef"), 256)
	for _, r := range []struct {
		file, method, key string
		lc                *leanClient
		rng               []byte
		extra             string
		body              []byte
	}{
		{"put-200", "PUT", "obj", good, nil, "", body4k},
		{"put-100-continue-200", "PUT", "obj2", good, nil, "Expect: 100-continue\r\n", []byte("hello")},
		{"put-403-wrong-key", "PUT", "obj3", wrong, nil, "", []byte("hello")},
		{"get-200", "GET", "obj", good, nil, "", nil},
		{"get-206-range", "GET", "obj", good, []byte("bytes=3-9"), "", nil},
		{"get-404-missing", "GET", "missing", good, nil, "", nil},
		{"get-403-wrong-key", "GET", "obj", wrong, nil, "", nil},
		{"get-200-list-bucket", "GET", "", good, nil, "", nil},
		{"head-200", "HEAD", "obj", good, nil, "", nil},
		{"head-404-missing", "HEAD", "missing", good, nil, "", nil},
		{"delete-204", "DELETE", "obj2", good, nil, "", nil},
	} {
		payload := unsignedPayloadB
		r.lc.startRequest(0, r.method, []byte(r.key), payload, r.rng, nil)
		req := append([]byte(nil), r.lc.req...)
		if r.body != nil {
			req = append(req, "Content-Length: "...)
			req = append(req, []byte(itoa(len(r.body)))...)
			req = append(req, "\r\n"...)
		}
		req = append(req, r.extra...)
		req = append(req, "\r\n"...)
		c, err := net.Dial("tcp", srv.Endpoint)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write(req); err != nil {
			t.Fatal(err)
		}
		var got []byte
		if r.extra != "" {
			// Wait for the interim response before the body, as a client
			// that sent Expect: 100-continue does.
			got = readIdle(t, c, 300*time.Millisecond)
		}
		if _, err := c.Write(r.body); err != nil {
			t.Fatal(err)
		}
		got = append(got, readIdle(t, c, 300*time.Millisecond)...)
		c.Close()
		if len(got) == 0 {
			t.Fatalf("%s: no response", r.file)
		}
		if err := os.WriteFile(filepath.Join(responsesDir, r.file+".http"), got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func itoa(n int) string { return string(appendInt(nil, n)) }

func appendInt(b []byte, n int) []byte {
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

// readIdle reads what c sends until it has been quiet for idle.
func readIdle(t *testing.T, c net.Conn, idle time.Duration) []byte {
	t.Helper()
	var out []byte
	buf := make([]byte, 64<<10)
	for {
		_ = c.SetReadDeadline(time.Now().Add(idle))
		n, err := c.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() || err == io.EOF {
				return out
			}
			t.Fatal(err)
		}
	}
}

// recorded returns the recorded versitygw responses by file name.
func recorded(t testing.TB) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(responsesDir, "*.http"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded responses in %s (go test -run TestRecordVersitygwResponses -record-versitygw): %v", responsesDir, err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	return out
}

func isHeadResponse(name string) bool { return strings.HasPrefix(name, "head-") }

// parsed is what a parser made of the bytes of one response.
type parsed struct {
	err      error
	status   int
	body     []byte
	consumed int  // bytes of the input the response took, head and body
	close    bool // the connection is not to be reused after it
}

// leanParse runs the lean path's parser over data as if it came from a
// connection: the head (interim responses skipped), then the body.
func leanParse(data []byte, head bool) parsed {
	src := bytes.NewReader(data)
	cn := &leanConn{br: bufio.NewReaderSize(src, 32<<10)}
	lc := &leanClient{}
	at := func() int { return len(data) - src.Len() - cn.br.Buffered() }
	r, err := lc.readHead(cn, head, time.Time{})
	if err != nil {
		return parsed{err: err}
	}
	start := at()
	buf := make([]byte, len(data)+1)
	n, err := lc.readBody(cn, &r, buf)
	if err != nil {
		return parsed{err: err}
	}
	p := parsed{status: r.status, consumed: at(), close: r.close}
	if r.chunked {
		p.body = buf[:n]
	} else {
		// Unchunked bodies are read into buf a buffer at a time; what was
		// delivered is the bytes after the head.
		p.body = data[start : start+int(n)]
	}
	return p
}

// stdParse parses data with net/http as its Transport does: interim (1xx
// but 101) responses skipped, the final one's body read to its end.
func stdParse(data []byte, head bool) parsed {
	src := bytes.NewReader(data)
	br := bufio.NewReaderSize(src, 32<<10)
	req := &http.Request{Method: "GET"}
	if head {
		req.Method = "HEAD"
	}
	for {
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			return parsed{err: err}
		}
		if resp.StatusCode >= 100 && resp.StatusCode <= 199 && resp.StatusCode != 101 {
			continue
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return parsed{err: err}
		}
		return parsed{status: resp.StatusCode, body: body, consumed: len(data) - src.Len() - br.Buffered(), close: resp.Close}
	}
}

// checkAgainstStd fails t when the lean parser accepted data in a way
// net/http does not.
func checkAgainstStd(t *testing.T, data []byte, head bool) (lean, std parsed) {
	t.Helper()
	lean, std = leanParse(data, head), stdParse(data, head)
	if lean.err != nil {
		return lean, std // stricter is allowed
	}
	switch {
	case std.err != nil:
		t.Fatalf("lean accepted (status %d, %d body bytes) what net/http refuses: %v\ninput %q", lean.status, len(lean.body), std.err, data)
	case lean.status != std.status:
		t.Fatalf("status %d, net/http %d\ninput %q", lean.status, std.status, data)
	case !bytes.Equal(lean.body, std.body):
		t.Fatalf("body %q, net/http %q\ninput %q", lean.body, std.body, data)
	case lean.consumed != std.consumed:
		t.Fatalf("response ends at byte %d, net/http at %d: the next response would be read from the wrong place\ninput %q", lean.consumed, std.consumed, data)
	case std.close && !lean.close:
		t.Fatalf("keeps the connection that net/http closes\ninput %q", data)
	}
	return lean, std
}

// Every response versitygw gives the lean path's requests is accepted,
// and read as net/http reads it.
func TestLeanParsesVersitygwResponses(t *testing.T) {
	for name, data := range recorded(t) {
		t.Run(name, func(t *testing.T) {
			lean, _ := checkAgainstStd(t, data, isHeadResponse(name))
			if lean.err != nil {
				t.Fatalf("refused: %v\n%q", lean.err, data)
			}
		})
	}
}

func FuzzLeanResponse(f *testing.F) {
	for name, data := range recorded(f) {
		f.Add(data, isHeadResponse(name))
	}
	f.Fuzz(func(t *testing.T, data []byte, head bool) {
		checkAgainstStd(t, data, head)
	})
}

// FuzzLeanChunkedBody aims at the chunked decoder: the input is the body of
// a chunked 200 response (seeded with versitygw's chunked bodies).
func FuzzLeanChunkedBody(f *testing.F) {
	const prefix = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	for _, data := range recorded(f) {
		if i := bytes.Index(data, []byte("\r\n\r\n")); i > 0 && bytes.Contains(bytes.ToLower(data[:i]), []byte("transfer-encoding: chunked")) {
			f.Add(data[i+4:])
		}
	}
	f.Add([]byte("5;ext=1\r\nhello\r\n0\r\nX-Trailer: y\r\n\r\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		checkAgainstStd(t, append([]byte(prefix), body...), false)
	})
}

// Interim responses (100 Continue, 103 Early Hints) come before the final
// one and are skipped: the final response's status and body are what the
// request gets, and the connection is read from the right place after it.
func TestLeanSkipsInterimResponses(t *testing.T) {
	next := "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnext"
	for _, c := range []struct {
		name, data string
		status     int
		body       string
	}{
		{"versitygw 100 Continue", string(recorded(t)["put-100-continue-200.http"]), 200, ""},
		{"103 Early Hints", "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 200, "hello"},
		{"100 and 103, chunked 404", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" +
			"HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n<E>\r\n0\r\n\r\n", 404, "<E>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := []byte(c.data + next)
			lean, _ := checkAgainstStd(t, data, false)
			if lean.err != nil || lean.status != c.status || string(lean.body) != c.body {
				t.Fatalf("got status %d body %q (%v), want %d %q", lean.status, lean.body, lean.err, c.status, c.body)
			}
			if after := leanParse(data[lean.consumed:], false); after.err != nil || string(after.body) != "next" {
				t.Fatalf("the response after it reads as %q (%v)", after.body, after.err)
			}
		})
	}
}

// Against a server that sends interim responses before every answer, the
// lean GET and PUT get their final responses, on one connection.
func TestLeanRequestsSkipInterimResponses(t *testing.T) {
	f := startFake(t, &fakeS3{size: 4096, interim: []byte("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n")})
	lc := leanFor(t, f.Addr, "s")
	buf := make([]byte, readBufSize)
	for i := 0; i < 3; i++ {
		done := make(chan error, 1)
		go func() {
			n, _, err := lc.get(0, []byte("k"), 0, 0, buf)
			if err == nil && n != 4096 {
				err = fmt.Errorf("GET: %d bytes, want 4096", n)
			}
			if err == nil {
				err = lc.put(0, []byte("k"), 5, [][]byte{[]byte("hello")}, buf)
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("request %d: %v", i, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a request hangs after an interim response")
		}
	}
	if lc.Redials != 0 || f.Conns.Load() != 1 {
		t.Errorf("%d reconnections, %d connections", lc.Redials, f.Conns.Load())
	}
}

// chunked404 is the FAKE server's chunked error response (versitygw sends
// none chunked): two chunks, an extension and a trailer.
func chunked404() []byte {
	x := fakeErrorXML
	return []byte("HTTP/1.1 404 Not Found\r\nContent-Type: application/xml\r\nTransfer-Encoding: chunked\r\n\r\n" +
		itoaHex(len(x)/2) + ";ext=1\r\n" + x[:len(x)/2] + "\r\n" +
		itoaHex(len(x)-len(x)/2) + "\r\n" + x[len(x)/2:] + "\r\n0\r\nX-Trailer: y\r\n\r\n")
}

func itoaHex(n int) string {
	const digits = "0123456789abcdef"
	if n < 16 {
		return digits[n : n+1]
	}
	return itoaHex(n/16) + digits[n%16:n%16+1]
}

// BenchmarkLeanParse times the lean parser alone (head and body, from
// memory) on versitygw's GET and HEAD answers and on a chunked error; with
// -benchmem it shows the parser allocates nothing.
func BenchmarkLeanParse(b *testing.B) {
	rec := recorded(b)
	for _, c := range []struct {
		name string
		data []byte
		head bool
	}{
		{"versitygw-GET-4KiB", rec["get-200.http"], false},
		{"versitygw-HEAD", rec["head-200.http"], true},
		{"chunked-404", chunked404(), false},
	} {
		b.Run(c.name, func(b *testing.B) {
			src := bytes.NewReader(c.data)
			cn := &leanConn{br: bufio.NewReaderSize(src, 32<<10)}
			lc := &leanClient{}
			buf := make([]byte, readBufSize)
			b.ReportAllocs()
			b.SetBytes(int64(len(c.data)))
			for b.Loop() {
				src.Reset(c.data)
				cn.br.Reset(src)
				r, err := lc.readHead(cn, c.head, time.Time{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := lc.readBody(cn, &r, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Responses the lean parser once read differently from net/http (found by
// the fuzz tests, or by reading net/http), each now refused: accepting
// them would deliver a body net/http would not, or leave the connection
// at a different byte than the server meant.
func TestLeanRefusesWhatNetHTTPReadsOtherwise(t *testing.T) {
	const chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	for _, c := range []struct {
		name   string
		inBody bool // the fault is in the body, which a HEAD's answer has not
		data   string
	}{
		{"four-digit status", false, "HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n"},
		{"version other than 1.0 and 1.1", false, "HTTP/1.a 200 OK\r\nContent-Length: 0\r\n\r\n"},
		{"101 Switching Protocols", false, "HTTP/1.1 101 Switching Protocols\r\n\r\nrest of the connection"},
		{"two-byte header line taken for the end", false, "HTTP/1.1 200 OK\r\n0\nContent-Length: 3\r\n\r\nabc"},
		{"folded header line", false, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n x: 0\r\n\r\nabc"},
		{"empty header name", false, "HTTP/1.1 200 OK\r\n: x\r\nContent-Length: 0\r\n\r\n"},
		{"control byte in a value", false, "HTTP/1.1 200 OK\r\nX: a\x01b\r\nContent-Length: 0\r\n\r\n"},
		{"two Content-Lengths", false, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nabcde"},
		{"Transfer-Encoding not chunked", false, "HTTP/1.1 200 OK\r\nTransfer-Encoding: notchunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"},
		{"Transfer-Encoding in HTTP/1.0", false, "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"},
		{"Content-Length as a trailer", false, "HTTP/1.1 200 OK\r\nTrailer: Content-Length\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nContent-Length: 1\r\n\r\n"},
		{"chunk data without its CRLF", true, chunked + "3\r\nabcXY0\r\n\r\n"},
		{"signed chunk size", true, chunked + "+3\r\nabc\r\n0\r\n\r\n"},
		{"negative zero chunk size", true, chunked + "-0\r\n\r\n"},
		{"blank before the chunk size", true, chunked + " 3\r\nabc\r\n0\r\n\r\n"},
		{"chunk line ending in a bare LF", true, chunked + "3\nabc\r\n0\r\n\r\n"},
		{"trailer ending in a bare LF", true, chunked + "0\r\n\n"},
		{"chunk extensions out of all proportion", true, chunked + strings.Repeat("1;"+strings.Repeat("e", 100)+"\r\nx\r\n", 200) + "0\r\n\r\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, head := range []bool{false, true} {
				lean, _ := checkAgainstStd(t, []byte(c.data), head)
				if lean.err == nil && !(head && c.inBody) {
					t.Errorf("head %v: accepted, status %d, body %q", head, lean.status, lean.body)
				}
			}
		})
	}
}

// validValue's eight-bytes-at-a-time test agrees with the byte rule for
// every byte value at every place of a value, next to tabs and high bytes.
func TestValidValueEveryByte(t *testing.T) {
	for _, fill := range []byte{'a', '\t', 0x80, 0xff, ' '} {
		for c := 0; c < 256; c++ {
			for at := 0; at < 19; at++ {
				v := bytes.Repeat([]byte{fill}, 19)
				v[at] = byte(c)
				want := (c >= ' ' && c != 0x7f) || c == '\t'
				if got := validValue(v); got != want {
					t.Fatalf("byte %#x at %d among %#x: %v, want %v", c, at, fill, got, want)
				}
			}
		}
	}
}
