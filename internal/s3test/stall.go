package s3test

import (
	"bytes"
	"fmt"
	"html"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// StallProxy is a FAKE failure in front of a real server: a TCP proxy that
// passes bytes between its clients and an upstream S3 server (versitygw)
// until told to stall, and then behaves as a server that hangs does: it
// keeps accepting connections and reading requests, and answers nothing,
// or answers the head of a response and stops in the middle of its body.
// Nothing but a proxy can make a real server hang on demand.
type StallProxy struct {
	// Endpoint is the proxy's host:port on loopback.
	Endpoint string

	upstream string
	ln       net.Listener
	mode     atomic.Int32
	after    atomic.Int64 // StallBodies: body bytes passed before the stall

	// Stalled counts the requests the proxy swallowed or left unfinished.
	Stalled atomic.Int64

	mu    sync.Mutex
	conns []net.Conn
	wg    sync.WaitGroup

	// Listings counts the listings LoopListings answered.
	Listings atomic.Int64
	// loopOnly, when set, picks by their prefix the listings the loop
	// modes answer; the others pass.
	loopOnly atomic.Pointer[func(prefix string) bool]
}

// LoopOnly makes LoopListings and EndlessListings answer only the
// listings whose prefix match takes (nil: all of them).
func (p *StallProxy) LoopOnly(match func(prefix string) bool) {
	if match == nil {
		p.loopOnly.Store(nil)
		return
	}
	p.loopOnly.Store(&match)
}

// The proxy's modes.
const (
	// Pass passes everything.
	Pass int32 = iota
	// MuteObjectGets swallows a GET of an object (a path with a key and no
	// query: not a listing) and everything after it on that connection;
	// other requests pass. A benchmark's objects are prepared, its GETs hang.
	MuteObjectGets
	// MuteObjectPuts is MuteObjectGets for a PUT of an object.
	MuteObjectPuts
	// StallObjectGets passes the head of a GET's response and the first
	// bytes of its body (StallBodies), then nothing more on that
	// connection.
	StallObjectGets
	// MuteAll swallows every request from now on.
	MuteAll
	// LoopListings answers every listing of a bucket's objects (ListObjectsV2,
	// ListObjectVersions) itself, never passing it on: one entry under the
	// listing's prefix, IsTruncated, and the same continuation every time,
	// as a broken server whose listing never ends; other requests pass.
	LoopListings
	// EndlessListings answers listings as LoopListings does, but each page
	// with an entry and a continuation of its own: a listing that goes on
	// forever and looks like progress.
	EndlessListings
)

// StartStallProxy starts a proxy to upstream for t, in mode Pass.
func StartStallProxy(t testing.TB, upstream string) *StallProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &StallProxy{Endpoint: ln.Addr().String(), upstream: upstream, ln: ln}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

// Set switches the proxy's mode; connections that already stalled stay so.
func (p *StallProxy) Set(mode int32) { p.mode.Store(mode) }

// StallBodies sets StallObjectGets' count of body bytes passed.
func (p *StallProxy) StallBodies(after int64) { p.after.Store(after) }

func (p *StallProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.upstream)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		s := &stallConn{p: p}
		p.wg.Add(2)
		go func() { defer p.wg.Done(); s.requests(c, up) }()
		go func() { defer p.wg.Done(); s.responses(up, c) }()
	}
}

func (p *StallProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// stallConn is one client connection's state: muted swallows both ways,
// stalling passes a response head and some of its body, then nothing.
type stallConn struct {
	p        *StallProxy
	muted    atomic.Bool
	stalling atomic.Bool
	// wmu orders the writes to the client: the proxy's own answers
	// (LoopListings) and upstream's.
	wmu sync.Mutex
}

// requests passes the client's bytes upstream. Clients send a request
// and wait for its answer (no pipelining), so a read that starts with a
// request line is the start of a request; a body's first bytes could look
// like one by chance, which the bodies of these tests' objects (random or
// a repeated pattern) do not.
func (s *stallConn) requests(c, up net.Conn) {
	defer up.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			b := buf[:n]
			mode := s.p.mode.Load()
			switch {
			case s.muted.Load():
			case mode == MuteAll, mode == MuteObjectGets && objectRequest(b, "GET"),
				mode == MuteObjectPuts && objectRequest(b, "PUT"):
				s.muted.Store(true)
				s.p.Stalled.Add(1)
			case mode == StallObjectGets && objectRequest(b, "GET"):
				s.stalling.Store(true)
				s.p.Stalled.Add(1)
			}
			if s.muted.Load() {
				continue // read and swallowed
			}
			if mode == LoopListings || mode == EndlessListings {
				page := int64(0)
				if mode == EndlessListings {
					page = s.p.Listings.Load() + 1
				}
				if answer, ok := loopListing(b, page, s.p.loopOnly.Load()); ok {
					s.p.Listings.Add(1)
					if s.write(c, answer) != nil {
						return
					}
					continue
				}
			}
			if _, werr := up.Write(b); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// responses passes upstream's bytes to the client, and, once the client's
// request is stalling, only the response head and StallBodies bytes of
// body.
func (s *stallConn) responses(up, c net.Conn) {
	defer c.Close()
	buf := make([]byte, 64<<10)
	var head []byte // of a stalling response, until its end is seen
	passed, headDone := int64(0), false
	for {
		n, err := up.Read(buf)
		if n > 0 {
			b := buf[:n]
			switch {
			case s.muted.Load():
				b = nil
			case s.stalling.Load():
				if !headDone {
					head = append(head, b...)
					if i := bytes.Index(head, []byte("\r\n\r\n")); i >= 0 {
						headDone = true
						body := int64(len(head) - i - 4)
						keep := min(body, s.p.after.Load())
						b = b[:len(b)-int(body-keep)]
						passed = keep
					}
				} else {
					keep := max(0, min(int64(len(b)), s.p.after.Load()-passed))
					b = b[:keep]
					passed += keep
				}
			}
			if len(b) > 0 {
				if s.write(c, b) != nil {
					return
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// objectRequest says whether b starts a request of method on an object:
// "GET /bucket/key" with no query.
func objectRequest(b []byte, method string) bool {
	rest, ok := bytes.CutPrefix(b, []byte(method+" /"))
	if !ok {
		return false
	}
	target, _, ok := bytes.Cut(rest, []byte(" "))
	if !ok {
		return false
	}
	bucket, key, ok := bytes.Cut(target, []byte("/"))
	return ok && len(bucket) > 0 && len(key) > 0 && bytes.IndexByte(target, '?') < 0
}

// write writes b to the client, in one piece among the proxy's writes.
func (s *stallConn) write(c net.Conn, b []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := c.Write(b)
	return err
}

// loopToken is the continuation every looped listing gives.
const loopToken = "storbench-fake-loop"

// loopListing is the proxy's own answer to b when b is a listing of a
// bucket's objects, "GET /bucket?list-type=2..." or "GET /bucket?versions...":
// one entry under its prefix, truncated, continued by loopToken, or with
// page > 0 by an entry and a continuation of that page's own; only, when
// set, picks the listings by their prefix.
func loopListing(b []byte, page int64, only *func(string) bool) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(b, []byte("GET /"))
	if !ok {
		return nil, false
	}
	target, _, ok := bytes.Cut(rest, []byte(" "))
	if !ok {
		return nil, false
	}
	path, rawQuery, ok := bytes.Cut(target, []byte("?"))
	bucket := string(bytes.TrimSuffix(path, []byte("/")))
	if !ok || bucket == "" || strings.Contains(bucket, "/") {
		return nil, false
	}
	q, err := url.ParseQuery(string(rawQuery))
	if err != nil || only != nil && !(*only)(q.Get("prefix")) {
		return nil, false
	}
	token := loopToken
	if page > 0 {
		token = fmt.Sprintf("%s-%d", loopToken, page)
	}
	key := html.EscapeString(q.Get("prefix") + token)
	var body string
	switch {
	case q.Get("list-type") == "2":
		body = `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>` + bucket + `</Name><KeyCount>1</KeyCount>` +
			`<IsTruncated>true</IsTruncated><NextContinuationToken>` + token + `</NextContinuationToken>` +
			`<Contents><Key>` + key + `</Key><Size>0</Size><ETag>"0"</ETag><LastModified>2026-01-01T00:00:00.000Z</LastModified></Contents></ListBucketResult>`
	case q.Has("versions"):
		body = `<ListVersionsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>` + bucket + `</Name>` +
			`<IsTruncated>true</IsTruncated><NextKeyMarker>` + key + `</NextKeyMarker><NextVersionIdMarker>` + token + `</NextVersionIdMarker>` +
			`<Version><Key>` + key + `</Key><VersionId>` + token + `</VersionId><IsLatest>true</IsLatest><Size>0</Size><ETag>"0"</ETag><LastModified>2026-01-01T00:00:00.000Z</LastModified></Version></ListVersionsResult>`
	default:
		return nil, false
	}
	body = `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + body
	return []byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: %d\r\n\r\n%s", len(body), body)), true
}
