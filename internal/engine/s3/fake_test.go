package s3

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/storbench/storbench/internal/s3test"
)

// fakeTLS returns a server TLS configuration with a new self-signed
// certificate for 127.0.0.1, and the certificate's file for clients to
// trust (--ca-cert).
func fakeTLS(t testing.TB) (*tls.Config, string) {
	t.Helper()
	certFile, keyFile, err := s3test.SelfSigned(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, certFile
}

// fakeS3 is a FAKE S3 server, in-process, for what a real versitygw cannot
// do on demand: close connections on a schedule, answer with chunked error
// bodies, never answer, or serve requests without allocating so that an
// allocation count of the client means the client. It checks no signature.
// It answers GET with size bytes, PUT with an ETag, HEAD with a length,
// DELETE with 204, and a key containing "missing" with a chunked 404.
type fakeS3 struct {
	ln   net.Listener
	Addr string

	size int
	// closeEvery > 0: every k-th response on a connection says
	// "Connection: close" and the connection is closed after it.
	closeEvery int
	// dropEvery > 0: the connection is closed without a word after its
	// k-th response, so the client finds out on its next request.
	dropEvery int
	// mute: read requests and never answer.
	mute bool
	// hostPrefix, when set, is what the Host of every request must carry
	// before the fake's own address (else 400): "bkt." for dns lookup.
	hostPrefix string
	// interim, when set, is written before every response (1xx ones).
	interim []byte
	// tls, when set, makes the fake serve HTTPS with this configuration
	// (fakeTLS makes one, with the CA file a client trusts).
	tls *tls.Config

	Requests atomic.Int64
	Conns    atomic.Int64

	wg sync.WaitGroup
	mu sync.Mutex
	cs []net.Conn
}

func startFake(t testing.TB, f *fakeS3) *fakeS3 {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.Addr = ln.Addr().String()
	if f.tls != nil {
		ln = tls.NewListener(ln, f.tls)
	}
	f.ln = ln
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.Conns.Add(1)
			f.mu.Lock()
			f.cs = append(f.cs, c)
			f.mu.Unlock()
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				f.serve(c)
			}()
		}
	}()
	t.Cleanup(f.stop)
	return f
}

func (f *fakeS3) stop() {
	f.ln.Close()
	f.mu.Lock()
	for _, c := range f.cs {
		c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

var (
	fakeMissing  = []byte("missing")
	fakeErrorXML = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>"
)

func (f *fakeS3) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReaderSize(c, 64<<10)
	body := bytes.Repeat([]byte{'x'}, f.size)
	clen := strconv.Itoa(f.size)
	get := []byte("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nETag: \"abc\"\r\nContent-Length: " + clen + "\r\n\r\n")
	getClose := []byte("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: " + clen + "\r\n\r\n")
	get = append(get, body...)
	getClose = append(getClose, body...)
	put := []byte("HTTP/1.1 200 OK\r\nETag: \"d41d8cd98f00b204e9800998ecf8427e\"\r\nContent-Length: 0\r\n\r\n")
	putClose := []byte("HTTP/1.1 200 OK\r\nConnection: close\r\nETag: \"d41d8cd98f00b204e9800998ecf8427e\"\r\nContent-Length: 0\r\n\r\n")
	head := []byte("HTTP/1.1 200 OK\r\nContent-Length: " + clen + "\r\n\r\n")
	del := []byte("HTTP/1.1 204 No Content\r\n\r\n")
	// The error body in two chunks, with a chunk extension and a trailer.
	x := fakeErrorXML
	missing := []byte("HTTP/1.1 404 Not Found\r\nContent-Type: application/xml\r\nTransfer-Encoding: chunked\r\n\r\n" +
		strconv.FormatInt(int64(len(x)/2), 16) + ";ext=1\r\n" + x[:len(x)/2] + "\r\n" +
		strconv.FormatInt(int64(len(x)-len(x)/2), 16) + "\r\n" + x[len(x)/2:] + "\r\n0\r\nX-Trailer: y\r\n\r\n")
	bad := []byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
	wantHost := []byte(f.hostPrefix + f.Addr)
	served := 0
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return
		}
		method := line[0]
		isMissing := bytes.Contains(line, fakeMissing)
		isHead := bytes.HasPrefix(line, []byte("HEAD"))
		n := 0
		hostOK := f.hostPrefix == ""
		for {
			h, err := br.ReadSlice('\n')
			if err != nil {
				return
			}
			if len(h) <= 2 {
				break
			}
			if v, ok := bytes.CutPrefix(h, []byte("Content-Length: ")); ok {
				n, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
			}
			if v, ok := bytes.CutPrefix(h, []byte("Host: ")); ok && f.hostPrefix != "" {
				hostOK = bytes.Equal(bytes.TrimSpace(v), wantHost)
			}
		}
		if _, err := br.Discard(n); err != nil {
			return
		}
		f.Requests.Add(1)
		if f.mute {
			continue
		}
		served++
		closing := f.closeEvery > 0 && served%f.closeEvery == 0
		var resp []byte
		switch {
		case !hostOK:
			resp = bad
		case isMissing:
			resp = missing
		case isHead:
			resp = head
		case method == 'G' && closing:
			resp = getClose
		case method == 'G':
			resp = get
		case method == 'P' && closing:
			resp = putClose
		case method == 'P':
			resp = put
		default:
			resp = del
		}
		if f.interim != nil {
			resp = append(append([]byte(nil), f.interim...), resp...)
		}
		if _, err := c.Write(resp); err != nil {
			return
		}
		if (closing && (method == 'G' || method == 'P')) || (f.dropEvery > 0 && served%f.dropEvery == 0) {
			return
		}
	}
}
