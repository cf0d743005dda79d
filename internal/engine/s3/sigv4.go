package s3

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"maps"
	"sort"
	"strings"
	"time"
)

// unsignedPayload is the payload hash of a request whose body is not signed.
const unsignedPayload = "UNSIGNED-PAYLOAD"

// securityTokenHeader carries the session token of temporary keys (AWS STS).
const securityTokenHeader = "x-amz-security-token"

// unsignedPayloadB is unsignedPayload as bytes, made once.
var unsignedPayloadB = []byte(unsignedPayload)

// signer computes AWS Signature Version 4 for one worker's requests without
// allocating: the signing key depends only on (day, region, service), so it
// is derived once a day, and the canonical request, string to sign and
// signature are built in buffers the signer keeps.
//
// It signs host, x-amz-content-sha256, x-amz-date and, when given, range
// and the request's other x-amz-* headers (extraHeaders: a PUT's options,
// the session token of temporary keys): the headers SigV4 requires, every
// x-amz-* header (S3 refuses x-amz-* headers left unsigned, and AWS wants
// the token signed), and the one whose change would alter the response.
// Other headers are sent unsigned, which S3 allows.
type signer struct {
	access, secret, region, service string

	day  [8]byte // yyyymmdd of the current signing key
	mac  hash.Hash
	sec  int64    // Unix second amzDate holds
	date [16]byte // x-amz-date: yyyymmddThhmmssZ

	canon []byte
	sts   []byte
	sum   [sha256.Size]byte
	hexb  [2 * sha256.Size]byte
	// Sig is the last request's signature in lower-case hex.
	Sig [2 * sha256.Size]byte
}

func newSigner(access, secret, region string) *signer {
	return &signer{access: access, secret: secret, region: region, service: "s3",
		canon: make([]byte, 0, 512), sts: make([]byte, 0, 256)}
}

// setTime sets the request time (second resolution) and, when the day
// changed, derives the day's signing key.
func (s *signer) setTime(now time.Time) {
	sec := now.Unix()
	if sec == s.sec && s.mac != nil {
		return
	}
	s.sec = sec
	t := now.UTC()
	y, mo, d := t.Date()
	h, mi, se := t.Clock()
	b := s.date[:0]
	b = appendDigits(b, y, 4)
	b = appendDigits(b, int(mo), 2)
	b = appendDigits(b, d, 2)
	b = append(b, 'T')
	b = appendDigits(b, h, 2)
	b = appendDigits(b, mi, 2)
	b = appendDigits(b, se, 2)
	_ = append(b, 'Z')
	if s.mac == nil || [8]byte(s.date[:8]) != s.day {
		s.day = [8]byte(s.date[:8])
		k := hmacSum([]byte("AWS4"+s.secret), s.day[:])
		k = hmacSum(k, []byte(s.region))
		k = hmacSum(k, []byte(s.service))
		k = hmacSum(k, []byte("aws4_request"))
		s.mac = hmac.New(sha256.New, k)
	}
}

func hmacSum(key, data []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(data)
	return h.Sum(nil)
}

func appendDigits(b []byte, v, n int) []byte {
	var d [4]byte
	for i := n - 1; i >= 0; i-- {
		d[i] = byte('0' + v%10)
		v /= 10
	}
	return append(b, d[:n]...)
}

// sign computes the signature of a request with an empty query string into
// s.Sig. uri is the path exactly as sent (already URI-encoded), host the Host
// header, payload the x-amz-content-sha256 value, rng the Range header value
// or nil, extra the request's other x-amz-* headers or nil. setTime must
// have been called.
func (s *signer) sign(method string, uri []byte, host string, payload []byte, rng []byte, extra *extraHeaders) {
	c := append(s.canon[:0], method...)
	c = append(c, '\n')
	c = append(c, uri...)
	c = append(c, "\n\nhost:"...)
	c = append(c, host...)
	if rng != nil {
		c = append(c, "\nrange:"...)
		c = append(c, rng...)
	}
	c = append(c, "\nx-amz-content-sha256:"...)
	c = append(c, payload...)
	c = append(c, "\nx-amz-date:"...)
	c = append(c, s.date[:]...)
	if extra != nil {
		c = append(c, extra.canon...)
	}
	c = append(c, "\n\n"...)
	c = s.appendSignedHeaders(c, rng != nil, extra)
	c = append(c, '\n')
	c = append(c, payload...)
	s.canon = c
	s.sum = sha256.Sum256(c)
	hex.Encode(s.hexb[:], s.sum[:])

	t := append(s.sts[:0], "AWS4-HMAC-SHA256\n"...)
	t = append(t, s.date[:]...)
	t = append(t, '\n')
	t = s.appendScope(t)
	t = append(t, '\n')
	t = append(t, s.hexb[:]...)
	s.sts = t
	s.mac.Reset()
	s.mac.Write(t)
	hex.Encode(s.Sig[:], s.mac.Sum(s.sum[:0]))
}

func (s *signer) appendSignedHeaders(b []byte, rng bool, extra *extraHeaders) []byte {
	if rng {
		b = append(b, "host;range;x-amz-content-sha256;x-amz-date"...)
	} else {
		b = append(b, "host;x-amz-content-sha256;x-amz-date"...)
	}
	if extra != nil {
		b = append(b, extra.names...)
	}
	return b
}

func (s *signer) appendScope(b []byte) []byte {
	b = append(b, s.day[:]...)
	b = append(b, '/')
	b = append(b, s.region...)
	b = append(b, '/')
	b = append(b, s.service...)
	return append(b, "/aws4_request"...)
}

// appendAuth appends the signing headers of the last signed request:
// X-Amz-Content-Sha256, X-Amz-Date and Authorization, each ending in CRLF,
// then extra's headers.
func (s *signer) appendAuth(b []byte, payload []byte, rng bool, extra *extraHeaders) []byte {
	b = append(b, "X-Amz-Content-Sha256: "...)
	b = append(b, payload...)
	b = append(b, "\r\nX-Amz-Date: "...)
	b = append(b, s.date[:]...)
	b = append(b, "\r\nAuthorization: AWS4-HMAC-SHA256 Credential="...)
	b = append(b, s.access...)
	b = append(b, '/')
	b = s.appendScope(b)
	b = append(b, ", SignedHeaders="...)
	b = s.appendSignedHeaders(b, rng, extra)
	b = append(b, ", Signature="...)
	b = append(b, s.Sig[:]...)
	b = append(b, "\r\n"...)
	if extra != nil {
		b = append(b, extra.wire...)
	}
	return b
}

// extraHeaders are the x-amz-* headers every request of a kind carries
// (an upload's storage class, user metadata, tags, SSE-S3 or SSE-KMS; with
// temporary keys, every request's x-amz-security-token), made once in the
// three forms a request needs: canonical lines for the signature, names for
// SignedHeaders, and the lines sent. Every such name sorts after
// x-amz-date, so they follow it in the canonical request.
type extraHeaders struct {
	canon []byte // "\nname:value" per header, names in lower case, sorted
	names []byte // ";name" per header
	wire  []byte // "name: value\r\n" per header
}

// newExtraHeaders makes the extra headers of h (lower-case names; values
// already free of control bytes) and, when token is not empty, the
// x-amz-security-token of temporary keys, sorted in among them; nil when
// there are none.
func newExtraHeaders(h map[string]string, token string) *extraHeaders {
	if len(h) == 0 && token == "" {
		return nil
	}
	names := make([]string, 0, len(h)+1)
	for k := range h {
		names = append(names, k)
	}
	if token != "" {
		h = maps.Clone(h)
		if h == nil {
			h = map[string]string{}
		}
		h[securityTokenHeader] = token
		names = append(names, securityTokenHeader)
	}
	sort.Strings(names)
	e := &extraHeaders{}
	for _, k := range names {
		// The canonical value is trimmed with runs of blanks folded into
		// one; the value sent is as given (trimmed, as a header's is).
		v := strings.TrimSpace(h[k])
		e.canon = append(append(append(append(e.canon, '\n'), k...), ':'), strings.Join(strings.Fields(v), " ")...)
		e.names = append(append(e.names, ';'), k...)
		e.wire = append(append(append(append(e.wire, k...), ": "...), v...), "\r\n"...)
	}
	return e
}

// appendURIPath appends s URI-encoded as SigV4 wants for S3 paths: every
// byte but the unreserved ones (A-Z a-z 0-9 - _ . ~) and '/' as %XX with
// upper-case hex. S3 does not encode twice, so this is both the request
// line's path and the canonical URI.
func appendURIPath[S string | []byte](b []byte, s S) []byte {
	const hexUp = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
			c == '-' || c == '_' || c == '.' || c == '~' || c == '/' {
			b = append(b, c)
			continue
		}
		b = append(b, '%', hexUp[c>>4], hexUp[c&15])
	}
	return b
}
