package s3

import (
	"net/http"
	"strings"
	"testing"
	"time"

	miniosigner "github.com/minio/minio-go/v7/pkg/signer"
)

// AWS's published example (S3 API reference, "Signature Calculations for
// the Authorization Header: GET Object").
func TestSigV4KnownAnswer(t *testing.T) {
	s := newSigner("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "us-east-1")
	s.setTime(time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC))
	empty := []byte("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
	s.sign("GET", []byte("/test.txt"), "examplebucket.s3.amazonaws.com", empty, []byte("bytes=0-9"), nil)
	if got, want := string(s.Sig[:]), "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"; got != want {
		t.Fatalf("signature %s, want %s", got, want)
	}
	if d := string(s.date[:]); d != "20130524T000000Z" {
		t.Fatalf("x-amz-date %s", d)
	}
}

// The lean signer and minio-go's agree on keys that need encoding, with and
// without a range, across a day change, with and without a session token
// (temporary keys: X-Amz-Security-Token is sent and signed).
func TestSigV4MatchesMinioGo(t *testing.T) {
	for _, token := range []string{"", "FwoGZXIvYXdzEJr//////////wEaDH+token/with+slash="} {
		t.Run("token="+token, func(t *testing.T) { sigV4MatchesMinioGo(t, token) })
	}
}

func sigV4MatchesMinioGo(t *testing.T, token string) {
	keys := []string{"storbench/r1/h/p/w0/p1", "a b+c", "ünï/cödé", "x~y_z-.!*'()", "q?x=1&y#z", "%41", "dir//double/"}
	s := newSigner("AKID", "se/cr+et", "eu-west-1")
	extra := newExtraHeaders(nil, token)
	for i, key := range keys {
		for _, rng := range []string{"", "bytes=3-99"} {
			req, err := http.NewRequest("GET", "http://127.0.0.1:9000/", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.URL.Path = "/bucket/" + key
			req.Header.Set("X-Amz-Content-Sha256", unsignedPayload)
			if rng != "" {
				req.Header.Set("Range", rng)
			}
			signed := miniosigner.SignV4(*req, "AKID", "se/cr+et", token, "eu-west-1")
			at, err := time.Parse("20060102T150405Z", signed.Header.Get("X-Amz-Date"))
			if err != nil {
				t.Fatal(err)
			}
			if i%2 == 1 {
				s.setTime(at.Add(-48 * time.Hour)) // a stale key, to be replaced
			}
			s.setTime(at)
			var r []byte
			if rng != "" {
				r = []byte(rng)
			}
			uri := appendURIPath([]byte("/bucket/"), key)
			s.sign("GET", uri, "127.0.0.1:9000", unsignedPayloadB, r, extra)
			auth := string(s.appendAuth(nil, unsignedPayloadB, r != nil, extra))
			want := signed.Header.Get("Authorization")
			if !strings.Contains(auth, "Authorization: "+want+"\r\n") {
				t.Errorf("key %q range %q:\n lean  %q\n minio %q", key, rng, auth, want)
			}
			if tok := signed.Header.Get("X-Amz-Security-Token"); (tok != "") != strings.Contains(strings.ToLower(auth), "x-amz-security-token: "+strings.ToLower(tok)+"\r\n") {
				t.Errorf("key %q: minio-go sends token %q, the lean path's headers: %q", key, tok, auth)
			}
		}
	}
}

// A PUT's x-amz-* options are signed as minio-go signs them: metadata with
// runs of blanks, tags, storage class, SSE-KMS, and with temporary keys the
// session token, whose name sorts in among theirs.
func TestSigV4ExtraHeadersMatchMinioGo(t *testing.T) {
	for _, token := range []string{"", "FwoGZXIvYXdzEJr//////////wEaDH+token="} {
		t.Run("token="+token, func(t *testing.T) { sigV4ExtraHeadersMatchMinioGo(t, token) })
	}
}

func sigV4ExtraHeadersMatchMinioGo(t *testing.T, token string) {
	h := map[string]string{
		"x-amz-meta-team":                             "storage  bench ",
		"x-amz-meta-a":                                "1",
		"x-amz-storage-class":                         "STANDARD_IA",
		"x-amz-tagging":                               "a+b=c%2Bd&project=storbench",
		"x-amz-server-side-encryption":                "aws:kms",
		"x-amz-server-side-encryption-aws-kms-key-id": "key-1",
	}
	extra := newExtraHeaders(h, token)
	req, err := http.NewRequest("PUT", "http://127.0.0.1:9000/bucket/k", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Amz-Content-Sha256", unsignedPayload)
	for k, v := range h {
		req.Header.Set(k, v)
	}
	signed := miniosigner.SignV4(*req, "AKID", "secret", token, "us-east-1")
	at, err := time.Parse("20060102T150405Z", signed.Header.Get("X-Amz-Date"))
	if err != nil {
		t.Fatal(err)
	}
	s := newSigner("AKID", "secret", "us-east-1")
	s.setTime(at)
	s.sign("PUT", []byte("/bucket/k"), "127.0.0.1:9000", unsignedPayloadB, nil, extra)
	auth := string(s.appendAuth(nil, unsignedPayloadB, false, extra))
	if want := signed.Header.Get("Authorization"); !strings.Contains(auth, "Authorization: "+want+"\r\n") {
		t.Errorf("lean  %q\nminio %q", auth, want)
	}
	if !strings.Contains(auth, "x-amz-meta-team: storage  bench\r\n") || !strings.HasSuffix(auth, "x-amz-tagging: a+b=c%2Bd&project=storbench\r\n") {
		t.Errorf("headers sent: %q", auth)
	}
	if sent := strings.Contains(auth, "x-amz-security-token: "+token+"\r\n"); sent != (token != "") {
		t.Errorf("token %q sent: %v; headers sent: %q", token, sent, auth)
	}
}
