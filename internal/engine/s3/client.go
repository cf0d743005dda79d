package s3

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/storbench/storbench/internal/engine"
)

// newTransport returns the one transport every client of a phase shares. Its
// idle pool holds a connection per request in flight, so no request waits
// for a dial once the run is warm; HTTP/2 is off because S3 servers and the
// seeds' figures are HTTP/1.1.
//
// The write buffer holds a whole request when the object is small enough:
// net/http then sends headers and body in one write, and does not fall back
// to net's generic ReadFrom, which allocates 32 KiB per request.
//
// local, when not nil, is the address connections start from (--bind).
func newTransport(c *config, inFlight int, local *net.TCPAddr) *http.Transport {
	wbuf := int(min(max(int64(c.ObjSize)+16<<10, 64<<10), 1<<20))
	if c.multipart() {
		wbuf = 1 << 20
	}
	t := &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{
			Timeout:   10 * time.Second,
			KeepAlive: 30 * time.Second,
			LocalAddr: localAddr(local),
		}).DialContext,
		MaxIdleConns:          inFlight * len(c.endpoints),
		MaxIdleConnsPerHost:   inFlight,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: 0,
		DisableCompression:    true,
		ForceAttemptHTTP2:     false,
		TLSNextProto:          map[string]func(string, *tls.Conn) http.RoundTripper{},
		WriteBufferSize:       wbuf,
		ReadBufferSize:        64 << 10,
	}
	if c.tls {
		t.TLSClientConfig = c.tlsConf
	}
	return t
}

// boundedTransport gives every minio-go request a bound: its own timeout
// from when it is sent to when its body is closed, and the run's cut (the
// grace after the measured stage, or a hard stop) while one is set. It
// bounds the requests minio-go makes without a context of the caller's
// (Core.ListObjectsV2) as well as the others, in every stage. A request
// cut by its timeout or the grace fails with errRequestTimeout or
// errGraceCut, so it is counted under that kind.
type boundedTransport struct {
	base    http.RoundTripper
	timeout time.Duration
	cut     atomic.Pointer[context.Context]
}

func (b *boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if g, ok := req.Context().Value(bodyGateKey{}).(*bodyGate); ok && req.Body != nil && req.Body != http.NoBody {
		req = req.WithContext(req.Context()) // a copy: RoundTrip must not change req
		req.Body = &gatedBody{ReadCloser: req.Body, gate: g}
		g.open = true
	}
	if g, ok := req.Context().Value(pageGuardKey{}).(*pageGuard); ok {
		if err := g.next(req.URL.Host, continuation(req.URL.Query())); err != nil {
			closeBody(req)
			return nil, err
		}
	}
	var cut context.Context
	if c := b.cut.Load(); c != nil {
		cut = *c
		if cut.Err() != nil {
			// Cut already: AfterFunc below would cancel the request only
			// once its goroutine ran, and a server that answers at once
			// (a listing's next page) would answer first, forever.
			closeBody(req)
			return nil, cutCause(cut)
		}
	}
	ctx, cancel := context.WithCancelCause(req.Context())
	timer := time.AfterFunc(b.timeout, func() { cancel(errRequestTimeout) })
	stopCut := func() bool { return false }
	if cut != nil {
		stopCut = context.AfterFunc(cut, func() { cancel(context.Cause(cut)) })
	}
	end := func() {
		timer.Stop()
		stopCut()
		cancel(nil)
	}
	resp, err := b.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		err = boundErr(ctx, err)
		end()
		return nil, err
	}
	resp.Body = &boundedBody{rc: resp.Body, ctx: ctx, end: end}
	return resp, nil
}

// bodyGate lets a worker reuse its upload body's reader only once the
// transport is done with it. net/http closes a request's body when its
// writer is through, which may be after the response came back (a server
// that answers before reading the whole body; a cut request), and until
// then may still read it: resetting the reader for the next upload would
// change the bytes the last one sends. The transport marks the gate open
// when it takes a body (in the worker's goroutine: RoundTrip runs in the
// caller's) and the body's Close sends on closed.
type bodyGate struct {
	open   bool
	closed chan struct{} // buffer 1
}

type bodyGateKey struct{}

// wait returns once the body last handed to the transport is closed.
func (g *bodyGate) wait() {
	if g.open {
		<-g.closed
		g.open = false
	}
}

// gatedBody is a request body that opens its gate when closed.
type gatedBody struct {
	io.ReadCloser
	gate *bodyGate
	done atomic.Bool
}

func (b *gatedBody) Close() error {
	err := b.ReadCloser.Close()
	if b.done.CompareAndSwap(false, true) {
		b.gate.closed <- struct{}{}
	}
	return err
}

// closeBody closes the body of a request RoundTrip does not send, as a
// RoundTripper must.
func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// cutCause is the error of a request the run's cut ended: errGraceCut
// past the grace, else the hard stop's cause.
func cutCause(cut context.Context) error {
	if c := context.Cause(cut); c != nil {
		return c
	}
	return cut.Err()
}

// boundErr returns the bound that cut the request of ctx, if one did, or err.
func boundErr(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause == errRequestTimeout || cause == errGraceCut {
		return cause
	}
	return err
}

// boundedBody is a response body whose request's bound ends with Close.
type boundedBody struct {
	rc  io.ReadCloser
	ctx context.Context
	end func()
}

func (b *boundedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil && err != io.EOF {
		err = boundErr(b.ctx, err)
	}
	return n, err
}

func (b *boundedBody) Close() error {
	err := b.rc.Close()
	b.end()
	return err
}

// localAddr is local as a net.Addr: a nil *net.TCPAddr would be a non-nil
// interface, which net.Dialer would try to use.
func localAddr(local *net.TCPAddr) net.Addr {
	if local == nil {
		return nil
	}
	return local
}

// newClient makes a minio-go client for one endpoint. Retries are off: a
// benchmark counts a failed request, it does not hide it behind a retry.
func newClient(c *config, endpoint string, tr http.RoundTripper) (*minio.Client, error) {
	lookup := minio.BucketLookupPath
	if c.Lookup == "dns" {
		lookup = minio.BucketLookupDNS
	}
	cl, err := minio.New(endpoint, &minio.Options{
		Creds:        credentials.NewStaticV4(c.AccessKey, c.SecretKey, c.SessionToken),
		Secure:       c.tls,
		Transport:    tr,
		Region:       c.Region,
		BucketLookup: lookup,
		MaxRetries:   1,
		// minio-go sends --checksum on uploads in parts as trailers.
		TrailingHeaders: c.Checksum != "",
	})
	if err != nil {
		return nil, fmt.Errorf("s3: endpoint %s: %v", endpoint, err)
	}
	return cl, nil
}

// hostPicker chooses the endpoint of each request.
type hostPicker struct {
	roundRobin bool
	// cross fixes the endpoints: writes through write, everything else
	// through read (--host-select cross).
	cross       bool
	write, read int
	next        atomic.Uint64
	inFlight    []atomic.Int64
	lastDone    []atomic.Int64 // monotonic ns of the last completion
}

// newHostPicker chooses among n endpoints by mode (HostSelect); rank is
// this host's place in the phase, which "cross" takes its endpoints from.
func newHostPicker(n int, mode string, rank int) *hostPicker {
	h := &hostPicker{roundRobin: mode == "roundrobin", inFlight: make([]atomic.Int64, n), lastDone: make([]atomic.Int64, n)}
	if mode == "cross" && n > 1 {
		h.cross, h.write, h.read = true, rank%n, (rank+1)%n
	}
	return h
}

// pickWrite returns the endpoint of an upload: pick's, except that cross
// writes through its own.
func (h *hostPicker) pickWrite() int {
	if h.cross {
		return h.write
	}
	return h.pick()
}

// pick returns the endpoint index for the next request. "weighed" takes the
// host with the fewest requests in flight and, among those, the one idle the
// longest, so faster hosts get more requests.
func (h *hostPicker) pick() int {
	n := len(h.inFlight)
	if n == 1 {
		return 0
	}
	if h.cross {
		return h.read
	}
	if h.roundRobin {
		return int(h.next.Add(1) % uint64(n))
	}
	best := 0
	bestIn, bestDone := h.inFlight[0].Load(), h.lastDone[0].Load()
	for i := 1; i < n; i++ {
		in, done := h.inFlight[i].Load(), h.lastDone[i].Load()
		if in < bestIn || (in == bestIn && done < bestDone) {
			best, bestIn, bestDone = i, in, done
		}
	}
	h.inFlight[best].Add(1)
	return best
}

// done marks a request to endpoint i finished at monotonic ns now.
func (h *hostPicker) done(i int, now int64) {
	if len(h.inFlight) == 1 || h.roundRobin || h.cross {
		return
	}
	h.inFlight[i].Add(-1)
	h.lastDone[i].Store(now)
}

// errorKind reduces an error to a short, bounded kind for error counts:
// the S3 error code, or the network failure's nature.
func errorKind(err error) string {
	// The lean path's errors first, without errors.As, which allocates.
	switch e := err.(type) {
	case *s3Error:
		return e.Code
	case *timeoutError:
		return e.kind
	case nil:
		return ""
	}
	switch err {
	case errShortRead:
		return "short read"
	case errContentMismatch:
		return "content mismatch"
	case errListCount:
		return "list count"
	case errBadRetention:
		return "bad retention"
	}
	var se *s3Error
	if errors.As(err, &se) {
		return se.Code
	}
	var te *timeoutError
	if errors.As(err, &te) {
		return te.kind
	}
	var er minio.ErrorResponse
	if errors.As(err, &er) && er.Code != "" {
		return er.Code
	}
	if resp := minio.ToErrorResponse(err); resp.Code != "" {
		return resp.Code
	}
	return causeKind(err)
}

// causeKind is errorKind of an error that is no S3 answer: a bound, the
// network's failure, storbench's own checks, TLS.
func causeKind(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "connection reset"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "connection closed"
	case errors.Is(err, errShortRead):
		return "short read"
	case errors.Is(err, errPoolEmpty):
		return "pool empty"
	case errors.Is(err, errPartFailed):
		return "part failed"
	case errors.Is(err, errBadResponse):
		return "bad response"
	case errors.Is(err, errListLoop):
		return "listing never ends"
	}
	// The lean path's TLS errors come from crypto/tls directly.
	var certErr *tls.CertificateVerificationError
	var alert tls.AlertError
	var record tls.RecordHeaderError
	switch {
	case errors.As(err, &certErr):
		return "tls certificate"
	case errors.As(err, &alert), errors.As(err, &record):
		return "tls"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		msg := ue.Err.Error()
		switch {
		case strings.Contains(msg, "server gave HTTP response to HTTPS client"),
			strings.Contains(msg, "first record does not look like a TLS handshake"):
			return "tls"
		case strings.Contains(msg, "certificate"):
			return "tls certificate"
		case strings.Contains(msg, "no such host"):
			return "no such host"
		}
	}
	return "other"
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

var errShortRead = errors.New("object shorter than expected")

// serverError is an S3 error response as "Code: message".
func serverError(err error) string {
	var se *s3Error
	if errors.As(err, &se) {
		return se.Error()
	}
	if r := minio.ToErrorResponse(err); r.Code != "" {
		if r.Message == "" {
			return r.Code
		}
		return r.Code + ": " + strings.Join(strings.Fields(r.Message), " ")
	}
	return err.Error()
}

// explain turns a first-contact error into one line that says what to do.
func explain(endpoint string, c *config, err error) error {
	kind := errorKind(err)
	switch kind {
	case "connection refused", "no such host", "timeout", errRequestTimeout.kind:
		return fmt.Errorf("s3: cannot reach %s (%s): check --host and that the server runs", endpoint, kind)
	case "tls":
		// Bad input found before any load (exit 2): the user has the
		// scheme to change.
		if c.tls {
			return engine.Unsupported(fmt.Sprintf("s3: %s does not speak TLS: drop --tls or use the server's HTTPS port", endpoint))
		}
		return engine.Unsupported(fmt.Sprintf("s3: %s expects TLS: add --tls", endpoint))
	case "tls certificate":
		return fmt.Errorf("s3: %s: TLS certificate not trusted (%v); add --insecure only if you trust this server", endpoint, err)
	case "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidSignature":
		return fmt.Errorf("s3: %s refused the credentials (%s): check --access-key/--secret-key", endpoint, kind)
	case "ExpiredToken", "InvalidToken", "TokenRefreshRequired", "ExpiredTokenException":
		what := "with a session token"
		if c.SessionToken == "" {
			what = "without a session token"
		}
		// Bad input found before any load (exit 2), as a bucket
		// --list-existing cannot find: the user has keys to renew.
		return engine.Unsupported(fmt.Sprintf("s3: %s refused the keys %s (%s): temporary keys expire with their token; get fresh keys and token (AWS_SESSION_TOKEN, the profile's aws_session_token)", endpoint, what, serverError(err)))
	case "AccessDenied":
		return fmt.Errorf("s3: %s: access denied (%v): the credentials need rights to create, list, read, write and delete objects in the bucket", endpoint, err)
	}
	return fmt.Errorf("s3: %s: %v", endpoint, err)
}
