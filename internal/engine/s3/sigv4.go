package s3

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"time"
)

// unsignedPayload is the payload hash of a request whose body is not signed.
const unsignedPayload = "UNSIGNED-PAYLOAD"

// unsignedPayloadB is unsignedPayload as bytes, made once.
var unsignedPayloadB = []byte(unsignedPayload)

// signer computes AWS Signature Version 4 for one worker's requests without
// allocating: the signing key depends only on (day, region, service), so it
// is derived once a day, and the canonical request, string to sign and
// signature are built in buffers the signer keeps.
//
// It signs host, x-amz-content-sha256, x-amz-date and, when given, range
// and x-amz-security-token (temporary keys): the headers SigV4 requires,
// the one whose change would alter the response, and the session token,
// which AWS wants signed. Other headers are sent unsigned, which S3 allows.
type signer struct {
	access, secret, token, region, service string

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

func newSigner(access, secret, token, region string) *signer {
	return &signer{access: access, secret: secret, token: token, region: region, service: "s3",
		canon: make([]byte, 0, 512+len(token)), sts: make([]byte, 0, 256)}
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
// or nil. setTime must have been called.
func (s *signer) sign(method string, uri []byte, host string, payload []byte, rng []byte) {
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
	if s.token != "" {
		c = append(c, "\nx-amz-security-token:"...)
		c = append(c, s.token...)
	}
	c = append(c, "\n\n"...)
	c = s.appendSignedHeaders(c, rng != nil)
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

func (s *signer) appendSignedHeaders(b []byte, rng bool) []byte {
	if rng {
		b = append(b, "host;range;x-amz-content-sha256;x-amz-date"...)
	} else {
		b = append(b, "host;x-amz-content-sha256;x-amz-date"...)
	}
	if s.token != "" {
		b = append(b, ";x-amz-security-token"...)
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
// X-Amz-Content-Sha256, X-Amz-Date, X-Amz-Security-Token with temporary
// keys, and Authorization, each ending in CRLF.
func (s *signer) appendAuth(b []byte, payload []byte, rng bool) []byte {
	b = append(b, "X-Amz-Content-Sha256: "...)
	b = append(b, payload...)
	b = append(b, "\r\nX-Amz-Date: "...)
	b = append(b, s.date[:]...)
	if s.token != "" {
		b = append(b, "\r\nX-Amz-Security-Token: "...)
		b = append(b, s.token...)
	}
	b = append(b, "\r\nAuthorization: AWS4-HMAC-SHA256 Credential="...)
	b = append(b, s.access...)
	b = append(b, '/')
	b = s.appendScope(b)
	b = append(b, ", SignedHeaders="...)
	b = s.appendSignedHeaders(b, rng)
	b = append(b, ", Signature="...)
	b = append(b, s.Sig[:]...)
	return append(b, "\r\n"...)
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
