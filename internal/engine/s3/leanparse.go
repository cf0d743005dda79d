package s3

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net/http"
	"time"
)

// The lean path's response parser (lean.go sends the requests). It reads
// what an S3 server sends back, and is held to net/http's reading of the
// same bytes (leanparse_test.go fuzzes the two against each other):
// whatever it accepts, net/http accepts with the same status, body and end
// of response, so the connection never falls out of step with the server.
// It is stricter where being lenient costs code and buys nothing from real
// servers - lines end in CRLF, no folded header lines, one Content-Length,
// only HTTP/1.0 and 1.1 - and an error here drops the connection.

// maxInterim bounds the interim (1xx) responses skipped before the final
// one.
const maxInterim = 8

// readHead parses the status line and the headers the lean path uses,
// skipping interim responses (100 Continue, 103 Early Hints) to the final
// one. first stays the time of the first byte of the first of them.
func (lc *leanClient) readHead(cn *leanConn, head bool, first time.Time) (response, error) {
	for i := 0; ; i++ {
		r, err := lc.readOneHead(cn, head, first)
		if err != nil || r.status >= 200 {
			return r, err
		}
		// 101 Switching Protocols is final, and never asked for here.
		if r.status == http.StatusSwitchingProtocols || i == maxInterim {
			return r, errBadResponse
		}
	}
}

// readOneHead parses one response head: status line, then header lines up
// to the empty one.
func (lc *leanClient) readOneHead(cn *leanConn, head bool, first time.Time) (response, error) {
	r := response{clen: -1, first: first}
	line, err := cn.br.ReadSlice('\n')
	if err != nil {
		return r, err
	}
	// "HTTP/1.1 200 OK\r\n"; the reason phrase may be empty or absent.
	if len(line) < len("HTTP/1.1 200\r\n") || !bytes.HasPrefix(line, []byte("HTTP/1.")) ||
		(line[7] != '0' && line[7] != '1') || line[8] != ' ' || (line[12] != ' ' && line[12] != '\r') ||
		bytes.IndexByte(line, '\r') != len(line)-2 {
		return r, errBadResponse
	}
	http10 := line[7] == '0'
	r.close = http10
	for _, d := range line[9:12] {
		if d < '0' || d > '9' {
			return r, errBadResponse
		}
		r.status = r.status*10 + int(d-'0')
	}
	if r.status < 100 {
		return r, errBadResponse
	}
	lc.etagN = 0
	var sawLength, sawEncoding bool
	for {
		name, val, end, _, err := readHeaderLine(cn.br)
		if err != nil {
			return r, err
		}
		if end {
			break
		}
		switch {
		case foldEq(name, "content-length"):
			n, ok := parseUint(val)
			if !ok || sawLength {
				return r, errBadResponse
			}
			r.clen, sawLength = n, true
		case foldEq(name, "transfer-encoding"):
			// net/http ignores it in HTTP/1.0 and takes nothing but one
			// "chunked"; refusing the first keeps the two in step.
			if http10 || sawEncoding || !foldEq(val, "chunked") {
				return r, errBadResponse
			}
			r.chunked, sawEncoding = true, true
		case foldEq(name, "connection"):
			if foldHas(val, "close") {
				r.close = true
			}
		case foldEq(name, "trailer"):
			// Fields that frame the message may not come as trailers.
			if foldHas(val, "content-length") || foldHas(val, "transfer-encoding") || foldHas(val, "trailer") {
				return r, errBadResponse
			}
		case foldEq(name, "etag"):
			lc.etagN = copy(lc.etag[:], bytes.Trim(val, `"`))
		}
	}
	if head || r.status < 200 || r.status == 204 || r.status == 304 {
		r.clen, r.chunked = 0, false
	}
	return r, nil
}

// readHeaderLine reads one header (or trailer) line: the name and the value
// without surrounding blanks, or end at the empty line that closes the
// block; size is the line's length on the wire. A line must end in CRLF, may not start with a blank (obs-fold),
// and its name must be a token and its value free of control bytes, as
// net/http requires.
func readHeaderLine(br *bufio.Reader) (name, val []byte, end bool, size int, err error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return nil, nil, false, 0, err
	}
	size = len(line)
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return nil, nil, false, size, errBadResponse
	}
	line = line[:len(line)-2]
	if len(line) == 0 {
		return nil, nil, true, size, nil
	}
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 {
		return nil, nil, false, size, errBadResponse
	}
	name, val = line[:colon], line[colon+1:]
	for _, c := range name {
		if headerByte[c]&inName == 0 {
			return nil, nil, false, size, errBadResponse
		}
	}
	if !validValue(val) {
		return nil, nil, false, size, errBadResponse
	}
	for len(val) > 0 && (val[0] == ' ' || val[0] == '\t') {
		val = val[1:]
	}
	for len(val) > 0 && (val[len(val)-1] == ' ' || val[len(val)-1] == '\t') {
		val = val[:len(val)-1]
	}
	return name, val, false, size, nil
}

// headerByte classifies bytes by where they may stand in a header line
// (a table: this runs for every byte of every response head).
var headerByte = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		// Values: anything but control bytes, tab excepted (net/http's
		// rule; bytes from 0x80 up are obs-text).
		if c >= ' ' && c != 0x7f || c == '\t' {
			t[c] |= inValue
		}
	}
	// Names: RFC 9110 tchar.
	for _, c := range []byte("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		t[c] |= inName
	}
	return t
}()

const (
	inName  = 1 << iota // may stand in a header name
	inValue             // may stand in a header value
)

// validValue says whether every byte of v may stand in a header value. It
// looks at eight bytes at a time for one below 0x20 or equal to 0x7f (a
// word with none is valid; from one with some, a tab perhaps, on, bytes
// are looked at one by one): S3 heads are mostly long printable values.
func validValue(v []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for len(v) >= 8 {
		w := binary.LittleEndian.Uint64(v)
		below := (w - 0x20*ones) &^ w & highs // some byte < 0x20
		x := w ^ 0x7f*ones
		del := (x - ones) &^ x & highs // some byte == 0x7f
		if below|del != 0 {
			break
		}
		v = v[8:]
	}
	for _, c := range v {
		if headerByte[c]&inValue == 0 {
			return false
		}
	}
	return true
}

// foldEq says whether b equals the lower-case ASCII s, ignoring case.
func foldEq(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// foldHas says whether b contains the lower-case ASCII s, ignoring case: a
// superset of "has the token s", which is what the callers need to err on
// the safe side (close the connection, refuse the response).
func foldHas(b []byte, s string) bool {
	for i := 0; i+len(s) <= len(b); i++ {
		if foldEq(b[i:i+len(s)], s) {
			return true
		}
	}
	return false
}

// parseUint parses a decimal Content-Length of at most 18 digits.
func parseUint(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, d := range b {
		if d < '0' || d > '9' {
			return 0, false
		}
		n = n*10 + int64(d-'0')
	}
	return n, true
}

// readBody reads the body into buf (wrapping: only the count and the first
// len(buf) bytes are kept apart from the last pass) and returns its length.
// With neither a length nor chunking the body runs to the connection's end.
func (lc *leanClient) readBody(cn *leanConn, r *response, buf []byte) (int64, error) {
	return readBody(cn.br, r, buf, nil)
}

// readBody reads a body from br into buf as leanClient.readBody does,
// showing every byte to chk when it is not nil.
func readBody(br *bufio.Reader, r *response, buf []byte, chk *bodyCheck) (int64, error) {
	if r.chunked {
		return readChunked(br, buf, chk)
	}
	if r.clen < 0 {
		r.close = true
		var n int64
		for {
			m, err := br.Read(buf)
			if chk != nil {
				chk.check(buf[:m])
			}
			n += int64(m)
			if err == io.EOF {
				return n, nil
			}
			if err != nil {
				return n, err
			}
		}
	}
	var n int64
	for n < r.clen {
		m, err := io.ReadFull(br, buf[:min(int64(len(buf)), r.clen-n)])
		if chk != nil {
			chk.check(buf[:m])
		}
		n += int64(m)
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return n, err
		}
	}
	return n, nil
}

// Limits of chunked bodies, net/http's: a chunk-size line shorter than
// maxChunkLine, and no more than maxChunkOverhead bytes of framing beyond 16
// per chunk and twice the data (long chunk extensions on tiny chunks).
const (
	maxChunkLine     = 4096
	maxChunkOverhead = 16 << 10
	maxTrailer       = 4096
)

// readChunked reads a chunked body, its trailer included. The first
// len(buf) bytes stay in buf. chk, when not nil, sees every body byte.
func readChunked(br *bufio.Reader, buf []byte, chk *bodyCheck) (int64, error) {
	var n, overhead int64
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return n, unexpectedEOF(err)
		}
		size, ok := chunkSize(line)
		if !ok {
			return n, errBadResponse
		}
		overhead = max(overhead+int64(len(line))-16-2*size, 0)
		if overhead > maxChunkOverhead {
			return n, errBadResponse
		}
		if size == 0 {
			return n, readTrailer(br)
		}
		for size > 0 {
			dst := buf
			if n < int64(len(buf)) {
				dst = buf[n:]
			}
			m, err := io.ReadFull(br, dst[:min(int64(len(dst)), size)])
			if chk != nil {
				chk.check(dst[:m])
			}
			n += int64(m)
			size -= int64(m)
			if err != nil {
				return n, io.ErrUnexpectedEOF
			}
		}
		crlf, err := br.Peek(2)
		if err != nil {
			return n, unexpectedEOF(err)
		}
		if crlf[0] != '\r' || crlf[1] != '\n' {
			return n, errBadResponse
		}
		_, _ = br.Discard(2)
	}
}

// chunkSize parses a chunk-size line: hex digits, then blanks or a chunk
// extension (";...", ignored), then CRLF with no other CR.
func chunkSize(line []byte) (int64, bool) {
	if len(line) < 3 || len(line)-2 >= maxChunkLine || bytes.IndexByte(line, '\r') != len(line)-2 {
		return 0, false
	}
	line = line[:len(line)-2]
	var size int64
	i := 0
	for ; i < len(line); i++ {
		c := line[i]
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			goto rest
		}
		if i == 12 { // 2^48 bytes in one chunk is not an S3 response
			return 0, false
		}
		size = size<<4 | int64(d)
	}
rest:
	if i == 0 {
		return 0, false
	}
	if i < len(line) && line[i] == ';' {
		return size, true
	}
	for ; i < len(line); i++ {
		if line[i] != ' ' && line[i] != '\t' {
			return 0, false
		}
	}
	return size, true
}

// readTrailer reads the trailer fields after the last chunk, up to the
// empty line, at most maxTrailer bytes of them.
func readTrailer(br *bufio.Reader) error {
	for budget := maxTrailer; ; {
		_, _, end, size, err := readHeaderLine(br)
		switch {
		case err != nil:
			return unexpectedEOF(err)
		case end:
			return nil
		}
		if budget -= size; budget <= 0 {
			return errBadResponse
		}
	}
}

// unexpectedEOF turns the end of the connection inside a body into an
// error that says so.
func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
