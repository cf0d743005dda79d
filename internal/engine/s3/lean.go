package s3

// The lean data path: GET, PUT, HEAD and DELETE of one object, written by
// hand on a persistent HTTP/1.1 connection per worker and endpoint.
//
// minio-go through net/http cost about 120 us of client CPU per 4 KiB GET on
// two cores: a reader and a writer goroutine per connection with their
// wake-ups, a request rebuilt and re-signed (signing key included) per
// call, and the garbage of both. Here the worker goroutine writes the
// request and reads the response itself, the signing key is derived once a
// day, and every buffer is the worker's own, so a request allocates nothing.
// Everything that is not this hot loop (bucket checks, listing, cleanup,
// multipart, versions, SSE-C) stays on minio-go.
//
// Over HTTPS the same loop runs on a crypto/tls client connection kept per
// worker and endpoint, whose TCP reads and writes are still the raw system
// calls (rawConn); a reconnection resumes its TLS session from the phase's
// cache.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// leanUsable says whether c's requests can take the lean path (over HTTP
// or HTTPS): no SSE-C, no S3 checksum header, no versions, and not forced
// to the SDK. Storage class, user metadata, tags, SSE-S3, SSE-KMS and the
// session token are headers it sends (and signs).
func leanUsable(c *config) bool {
	switch c.Op {
	case "versioned", "multipart", "multipart-put", "retention":
		return false
	}
	return !c.SDK && !c.Encrypt && c.Checksum == "" && !(c.Op == "list" && (c.Versions > 1 || c.Metadata))
}

// s3Error is an error response of the lean path: the HTTP status and the S3
// error code (from the XML body, or from the status when there is no body,
// as minio-go does), so errors are counted under the same kinds.
type s3Error struct {
	Status  int
	Code    string
	Message string
}

func (e *s3Error) Error() string {
	if e.Message == "" {
		return e.Code
	}
	return e.Code + ": " + e.Message
}

// errBadResponse is a response the lean path cannot parse.
var errBadResponse = errors.New("malformed HTTP response")

// leanConn is one keep-alive connection to an endpoint. Over TLS, conn is
// the *tls.Conn (tls too) on top of the TCP connection, whose own reads and
// writes are still connIO's (rawConn): deadlines set on conn reach the
// socket either way.
type leanConn struct {
	addr    string // dial address, host:port (bucket.host:port with dns lookup)
	host    string // Host header, the same without the scheme's default port
	tlsConf *tls.Config
	conn    net.Conn
	tls     *tls.Conn
	io      *connIO
	br      *bufio.Reader
	served  int // responses read on this connection
	// deadline is the connection's read and write deadline (see arm).
	deadline time.Time
}

// leanClient is one worker's lean requests: a connection per endpoint, a
// signer, and the buffers a request is built in.
type leanClient struct {
	c      *config
	conns  []leanConn
	sig    *signer
	req    []byte   // request line and headers
	uri    []byte   // encoded path
	iov    [][]byte // request, then body chunks
	iovBuf [][]byte
	md5    hash.Hash
	sha    hash.Hash
	pay    [2 * sha256.Size]byte // hex payload hash when signed
	md5b   [24]byte              // base64 Content-MD5
	rng    []byte                // Range value
	etag   [64]byte
	etagN  int
	// check, when set, sees every byte of the next GET body (--verify).
	check *bodyCheck
	// extra is the session token every request carries, or nil; putExtra
	// the x-amz-* options every PUT carries, with the token, or nil.
	extra, putExtra *extraHeaders

	// Redials counts connections made after a worker's first one to an
	// endpoint: the server closed the connection or a request failed.
	Redials int
	// Handshakes and Resumed count TLS handshakes, and those that resumed
	// an earlier session (no certificate exchange, no key agreement).
	Handshakes, Resumed int

	// timeout bounds each request (config.requestTimeout); now is when
	// the request being sent was built.
	timeout, slack time.Duration
	now            time.Time
	dialer         net.Dialer
	// local, when set, is the address connections start from (--bind).
	local net.Addr

	mu  sync.Mutex   // orders dials against cutAll; taken on dial only
	cut atomic.Int32 // cutNone, or why requests are being cut
	ctx context.Context
}

// Why a lean client's requests are cut: its context ended (a hard stop),
// or the phase's grace after the end of the measured stage ran out.
const (
	cutNone int32 = iota
	cutStop
	cutGrace
)

// The errors of requests that ran out of time: their own timeout, or the
// grace after the end of the measured stage. Both are timeouts (net.Error)
// counted under a kind of their own.
var (
	errRequestTimeout = &timeoutError{"timeout: request"}
	errGraceCut       = &timeoutError{"timeout: phase grace"}
)

type timeoutError struct{ kind string }

func (e *timeoutError) Error() string { return e.kind }
func (e *timeoutError) Timeout() bool { return true }

// Temporary is part of net.Error.
func (e *timeoutError) Temporary() bool { return false }

func newLeanClient(c *config) *leanClient {
	lc := &leanClient{c: c, sig: newSigner(c.AccessKey, c.SecretKey, c.Region),
		extra: newExtraHeaders(nil, c.SessionToken), putExtra: newExtraHeaders(c.putHeaders, c.SessionToken),
		req: make([]byte, 0, 1024+len(c.SessionToken)), uri: make([]byte, 0, 256), rng: make([]byte, 0, 48),
		iovBuf: make([][]byte, 0, 8), ctx: context.Background(),
		timeout: c.requestTimeout, slack: deadlineSlack(c.requestTimeout),
		dialer: net.Dialer{Timeout: min(dialTimeout, c.requestTimeout), KeepAlive: 30 * time.Second}}
	for _, ep := range c.endpoints {
		addr := ep
		if c.Lookup == "dns" {
			// As minio-go: the bucket's own name is both the Host and what
			// is dialled, so DNS decides where the bucket lives.
			addr = c.Bucket + "." + ep
		}
		cn := leanConn{addr: addr, host: hostHeader(addr, c.tls)}
		if c.tlsConf != nil {
			cn.tlsConf = c.tlsConf.Clone()
			cn.tlsConf.ServerName, _, _ = net.SplitHostPort(addr)
		}
		lc.conns = append(lc.conns, cn)
	}
	return lc
}

// bind makes ctx's cancellation abort the request in flight and returns
// the function that undoes it and closes the connections, for the end of
// the worker.
func (lc *leanClient) bind(ctx context.Context) func() {
	lc.ctx = ctx
	stop := context.AfterFunc(ctx, func() { lc.cutAll(cutStop) })
	return func() {
		stop()
		lc.close()
	}
}

// cutAll aborts the request in flight, and any later one, for the reason
// why: every connection's deadline is set in the past. It may be called
// from any goroutine; the first reason stays.
func (lc *leanClient) cutAll(why int32) {
	if !lc.cut.CompareAndSwap(cutNone, why) {
		return
	}
	lc.mu.Lock()
	for i := range lc.conns {
		if cn := lc.conns[i].conn; cn != nil {
			_ = cn.SetDeadline(time.Unix(1, 0))
		}
	}
	lc.mu.Unlock()
}

// cutErr is the error of a request cut for the reason why.
func (lc *leanClient) cutErr(why int32) error {
	if why == cutGrace {
		return errGraceCut
	}
	if err := lc.ctx.Err(); err != nil {
		return err
	}
	return context.Canceled
}

// dialTimeout bounds a connection's dial (and the request timeout, when
// shorter).
const dialTimeout = 10 * time.Second

// deadlineSlack is how far past a request's timeout its connection's
// deadline may lie: an eighth of the timeout, at most a second. Setting a
// deadline takes the netpoller's lock and moves a runtime timer; with the
// slack, a worker sets it about once a second instead of per request.
func deadlineSlack(timeout time.Duration) time.Duration {
	return min(timeout/8, time.Second)
}

// arm makes sure cn's deadline lets the request being sent run its
// timeout, from lc.now, and cuts it no later than the slack after that.
// A deadline set in the past by cutAll is kept: cut is read after setting
// one, and cutAll sets cut before its own deadline (the netpoller orders
// the two), so whichever comes last, the request is cut.
func (lc *leanClient) arm(cn *leanConn) error {
	want := lc.now.Add(lc.timeout)
	if !cn.deadline.Before(want) {
		return nil
	}
	d := want.Add(lc.slack)
	if err := cn.conn.SetDeadline(d); err != nil {
		return err
	}
	cn.deadline = d
	if why := lc.cut.Load(); why != cutNone {
		return lc.cutErr(why)
	}
	return nil
}

func (lc *leanClient) close() {
	lc.mu.Lock()
	for i := range lc.conns {
		if cn := lc.conns[i].conn; cn != nil {
			_ = cn.Close()
			lc.conns[i].conn = nil
		}
	}
	lc.mu.Unlock()
}

func (lc *leanClient) drop(cn *leanConn) {
	lc.mu.Lock()
	if cn.conn != nil {
		_ = cn.conn.Close()
		cn.conn = nil
	}
	lc.mu.Unlock()
}

func (lc *leanClient) dial(cn *leanConn) error {
	if why := lc.cut.Load(); why != cutNone {
		return lc.cutErr(why)
	}
	if err := lc.ctx.Err(); err != nil {
		return err
	}
	d := lc.dialer
	d.LocalAddr = lc.local
	conn, err := d.DialContext(lc.ctx, "tcp", cn.addr)
	if err != nil {
		if lc.ctx.Err() == nil && isTimeout(err) && lc.dialer.Timeout == lc.timeout {
			return errRequestTimeout
		}
		return err
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	cio, err := newConnIO(conn)
	if err != nil {
		conn.Close()
		return err
	}
	var rd io.Reader = cio
	var tc *tls.Conn
	if cn.tlsConf != nil {
		tc = tls.Client(&rawConn{Conn: conn, io: cio}, cn.tlsConf)
		hctx, cancel := context.WithTimeout(lc.ctx, lc.dialer.Timeout)
		err := tc.HandshakeContext(hctx)
		cancel()
		if err != nil {
			conn.Close()
			return err
		}
		lc.Handshakes++
		if tc.ConnectionState().DidResume {
			lc.Resumed++
		}
		conn, rd = tc, tc
	}
	lc.mu.Lock()
	if why := lc.cut.Load(); why != cutNone {
		lc.mu.Unlock()
		conn.Close()
		return lc.cutErr(why)
	}
	cn.conn, cn.tls, cn.io, cn.deadline = conn, tc, cio, time.Time{}
	lc.mu.Unlock()
	if cn.br == nil {
		cn.br = bufio.NewReaderSize(rd, 32<<10)
	} else {
		cn.br.Reset(rd)
		lc.Redials++
	}
	cn.served = 0
	return nil
}

// write sends bufs in order: with one writev on plain HTTP, as TLS records
// (a record, and a system call, per buffer up to 16 KiB) over TLS.
func (cn *leanConn) write(bufs [][]byte) error {
	if cn.tls == nil {
		return cn.io.writev(bufs)
	}
	for _, b := range bufs {
		if _, err := cn.tls.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// rawConn is the TCP connection crypto/tls reads and writes: net.Conn's
// deadlines and Close, connIO's raw system calls for the data.
type rawConn struct {
	net.Conn
	io  *connIO
	one [1][]byte // Write's buffer as writev's list, without allocating
}

func (r *rawConn) Read(p []byte) (int, error) { return r.io.Read(p) }

func (r *rawConn) Write(p []byte) (int, error) {
	r.one[0] = p
	err := r.io.writev(r.one[:])
	r.one[0] = nil
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// hostHeader is the Host header for addr: without the scheme's default
// port (80, or 443 with TLS), as minio-go sends it.
func hostHeader(addr string, tls bool) string {
	def := ":80"
	if tls {
		def = ":443"
	}
	if h, ok := strings.CutSuffix(addr, def); ok {
		return h
	}
	return addr
}

// response is what the caller needs of a response's head.
type response struct {
	status  int
	clen    int64 // -1: unknown
	chunked bool
	close   bool
	first   time.Time // first response byte
}

// begin writes the request (lc.req, then body chunks in lc.iov) on ep's
// connection and reads the response head. A request that fails on a
// reused connection before any response byte came is sent once more on a
// new one, as net/http does: the server may have closed an idle
// connection, which says nothing about the server's health.
func (lc *leanClient) begin(ep int, body [][]byte, head bool) (*leanConn, response, error) {
	cn := &lc.conns[ep]
	for attempt := 0; ; attempt++ {
		if cn.conn == nil {
			if err := lc.dial(cn); err != nil {
				return cn, response{}, err
			}
		}
		if err := lc.arm(cn); err != nil {
			lc.drop(cn)
			return cn, response{}, err
		}
		reused := cn.served > 0
		lc.iov = append(lc.iovBuf[:0], lc.req)
		lc.iov = append(lc.iov, body...)
		lc.iovBuf = lc.iov[:0]
		err := cn.write(lc.iov)
		var r response
		if err == nil {
			_, err = cn.br.Peek(1)
			r.first = time.Now()
			if err == nil {
				r, err = lc.readHead(cn, head, r.first)
				if err == nil {
					return cn, r, nil
				}
				lc.drop(cn)
				return cn, r, lc.netErr(err)
			}
		}
		lc.drop(cn)
		if attempt == 0 && reused && retryable(err) && lc.ctx.Err() == nil && lc.cut.Load() == cutNone {
			continue
		}
		return cn, r, lc.netErr(err)
	}
}

// retryable: the connection was closed under the request, before any answer.
func retryable(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// netErr says why a request whose connection's deadline passed was cut:
// cancellation (the context's error), the phase's grace, or its own
// timeout.
func (lc *leanClient) netErr(err error) error {
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		return err
	}
	if why := lc.cut.Load(); why != cutNone {
		return lc.cutErr(why)
	}
	if cerr := lc.ctx.Err(); cerr != nil {
		return cerr
	}
	return errRequestTimeout
}

// finishResponse ends a response: the connection is dropped when the
// server said so, and counted as served otherwise.
func (lc *leanClient) finishResponse(cn *leanConn, r *response) {
	if r.close {
		lc.drop(cn)
		return
	}
	cn.served++
}

// errorResponse reads an error response's body and returns its S3 error.
func (lc *leanClient) errorResponse(cn *leanConn, r *response, buf []byte, hasKey bool) error {
	n, err := lc.readBody(cn, r, buf)
	if err != nil {
		lc.drop(cn)
	} else {
		lc.finishResponse(cn, r)
	}
	body := buf[:min(n, int64(len(buf)))]
	e := &s3Error{Status: r.status, Code: xmlField(body, "Code"), Message: xmlField(body, "Message")}
	if e.Code == "" {
		// No XML (a HEAD, or a proxy's page): what minio-go says then.
		switch r.status {
		case http.StatusNotFound:
			e.Code = "NoSuchKey"
			if !hasKey {
				e.Code = "NoSuchBucket"
			}
		case http.StatusForbidden:
			e.Code = "AccessDenied"
		case http.StatusConflict:
			e.Code = "Conflict"
		case http.StatusPreconditionFailed:
			e.Code = "PreconditionFailed"
		default:
			e.Code = strconv.Itoa(r.status) + " " + http.StatusText(r.status)
		}
	}
	return e
}

// xmlField returns the text of the first <name> element in b.
func xmlField(b []byte, name string) string {
	open := "<" + name + ">"
	i := bytes.Index(b, []byte(open))
	if i < 0 {
		return ""
	}
	rest := b[i+len(open):]
	j := bytes.Index(rest, []byte("</"+name+">"))
	if j < 0 {
		return ""
	}
	return string(bytes.TrimSpace(rest[:j]))
}

// startRequest writes the request line, Host and signature headers (and
// extra's) for method on key into lc.req; the caller appends its own
// headers and the final CRLF.
func (lc *leanClient) startRequest(ep int, method string, key []byte, payload []byte, rng []byte, extra *extraHeaders) {
	c, cn := lc.c, &lc.conns[ep]
	u := append(lc.uri[:0], '/')
	if c.Lookup != "dns" {
		u = appendURIPath(u, c.Bucket)
		u = append(u, '/')
	}
	u = appendURIPath(u, key)
	lc.uri = u
	lc.now = time.Now()
	lc.sig.setTime(lc.now)
	lc.sig.sign(method, u, cn.host, payload, rng, extra)
	b := append(lc.req[:0], method...)
	b = append(b, ' ')
	b = append(b, u...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, cn.host...)
	b = append(b, "\r\nUser-Agent: storbench\r\n"...)
	if rng != nil {
		b = append(b, "Range: "...)
		b = append(b, rng...)
		b = append(b, "\r\n"...)
	}
	lc.req = lc.sig.appendAuth(b, payload, rng != nil, extra)
}

// get reads key (the bytes [off, off+n) of it when n > 0) into buf and
// returns the body's length and the time of the first response byte.
func (lc *leanClient) get(ep int, key []byte, off, n int64, buf []byte) (int64, time.Time, error) {
	var rng []byte
	if n > 0 {
		rng = append(lc.rng[:0], "bytes="...)
		rng = strconv.AppendInt(rng, off, 10)
		rng = append(rng, '-')
		rng = strconv.AppendInt(rng, off+n-1, 10)
		lc.rng = rng
	}
	lc.startRequest(ep, "GET", key, unsignedPayloadB, rng, lc.extra)
	lc.req = append(lc.req, "\r\n"...)
	cn, r, err := lc.begin(ep, nil, false)
	if err != nil {
		return 0, r.first, err
	}
	if r.status != http.StatusOK && r.status != http.StatusPartialContent {
		return 0, r.first, lc.errorResponse(cn, &r, buf, true)
	}
	got, err := readBody(cn.br, &r, buf, lc.check)
	if err != nil {
		lc.drop(cn)
		return got, r.first, lc.netErr(err)
	}
	lc.finishResponse(cn, &r)
	if lc.check != nil && lc.check.bad {
		return got, r.first, errContentMismatch
	}
	return got, r.first, nil
}

// put uploads size bytes of body chunks to key. ETag holds the server's
// ETag afterwards.
func (lc *leanClient) put(ep int, key []byte, size int64, body [][]byte, buf []byte) error {
	c := lc.c
	payload := unsignedPayloadB
	if c.SignPayload {
		if lc.sha == nil {
			lc.sha = sha256.New()
		}
		lc.sha.Reset()
		for _, b := range body {
			lc.sha.Write(b)
		}
		var sum [sha256.Size]byte
		hex.Encode(lc.pay[:], lc.sha.Sum(sum[:0]))
		payload = lc.pay[:]
	}
	lc.startRequest(ep, "PUT", key, payload, nil, lc.putExtra)
	b := append(lc.req, "Content-Length: "...)
	b = strconv.AppendInt(b, size, 10)
	b = append(b, "\r\n"...)
	if c.MD5 {
		if lc.md5 == nil {
			lc.md5 = md5.New()
		}
		lc.md5.Reset()
		for _, p := range body {
			lc.md5.Write(p)
		}
		var sum [md5.Size]byte
		base64.StdEncoding.Encode(lc.md5b[:], lc.md5.Sum(sum[:0]))
		b = append(b, "Content-Md5: "...)
		b = append(b, lc.md5b[:]...)
		b = append(b, "\r\n"...)
	}
	lc.req = append(b, "\r\n"...)
	cn, r, err := lc.begin(ep, body, false)
	if err != nil {
		return err
	}
	if r.status != http.StatusOK {
		return lc.errorResponse(cn, &r, buf, true)
	}
	if _, err := lc.readBody(cn, &r, buf); err != nil {
		lc.drop(cn)
		return lc.netErr(err)
	}
	lc.finishResponse(cn, &r)
	return nil
}

// ETag returns the last PUT's ETag without quotes (valid until the next request).
func (lc *leanClient) ETag() []byte { return lc.etag[:lc.etagN] }

// simple sends a body-less request whose success is okStatus (HEAD, DELETE).
func (lc *leanClient) simple(ep int, method string, key []byte, okStatus int, buf []byte) error {
	lc.startRequest(ep, method, key, unsignedPayloadB, nil, lc.extra)
	lc.req = append(lc.req, "\r\n"...)
	head := method == "HEAD"
	cn, r, err := lc.begin(ep, nil, head)
	if err != nil {
		return err
	}
	if r.status != okStatus && (method != "DELETE" || r.status != http.StatusOK) {
		return lc.errorResponse(cn, &r, buf, true)
	}
	if _, err := lc.readBody(cn, &r, buf); err != nil {
		lc.drop(cn)
		return lc.netErr(err)
	}
	lc.finishResponse(cn, &r)
	return nil
}

func (lc *leanClient) stat(ep int, key []byte, buf []byte) error {
	return lc.simple(ep, "HEAD", key, http.StatusOK, buf)
}

func (lc *leanClient) remove(ep int, key []byte, buf []byte) error {
	return lc.simple(ep, "DELETE", key, http.StatusNoContent, buf)
}

// bodyChunks returns the slices of the data block that make up an object of
// size bytes starting at off, appended to dst.
func (d *dataBlock) bodyChunks(dst [][]byte, off int, size int64) [][]byte {
	for size > 0 {
		chunk := d.b[off:]
		if int64(len(chunk)) > size {
			chunk = chunk[:size]
		}
		dst = append(dst, chunk)
		size -= int64(len(chunk))
		off = 0
	}
	return dst
}
