package s3

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/s3utils"
	miniosigner "github.com/minio/minio-go/v7/pkg/signer"
)

// loopRetention is warp's retention benchmark with the read S3 defines
// beside the update: on a random version of a prepared object (each
// uploaded with a governance-mode retention), GETRETENTION reads its
// retention and RETENTION (warp's name) moves it to --duration plus an
// hour from now, the governance bypass allowing either way.
func (wk *worker) loopRetention(ctx context.Context) {
	ph := wk.ph
	c := ph.c
	n := len(ph.keys)
	mode := minio.Governance
	for {
		t0, ok := wk.begin()
		if !ok {
			return
		}
		j := wk.rng.IntN(len(ph.retVers))
		key, ver := ph.keys[j%n], ph.retVers[j]
		ep := ph.picker.pick()
		first, err := wk.getRetention(ctx, ep, key, ver)
		wk.finish(0, ep, t0, first, 0, err)

		t0, ok = wk.begin()
		if !ok {
			return
		}
		until := time.Now().Add(ph.retainFor).UTC()
		err = wk.core[ep].Client.PutObjectRetention(ctx, c.Bucket, key, minio.PutObjectRetentionOptions{
			Mode: &mode, RetainUntilDate: &until, VersionID: ver, GovernanceBypass: true})
		wk.finish(1, ep, t0, time.Time{}, 0, err)
	}
}

// errBadRetention is a GetObjectRetention answer without a mode and date.
var errBadRetention = &s3Error{Code: "bad retention", Message: "the answer holds no retention mode and date"}

// getRetention reads the retention of key's version ver. It is made here
// rather than by minio-go, whose parser wants the answer's root element
// named Retention: versitygw names it ObjectLockRetention, and either
// holds Mode and RetainUntilDate, which is what is checked.
func (wk *worker) getRetention(ctx context.Context, ep int, key, ver string) (time.Time, error) {
	return readRetention(ctx, wk.ph.c, wk.ph.httpc[wk.id%len(wk.ph.httpc)], ep, wk.ph.c.Bucket, key, ver)
}

// readRetention reads the retention of version ver of key in bucket
// through endpoint ep with hc (getRetention's request), and returns when
// the answer's first byte came; an answer without a retention mode and
// date is errBadRetention.
func readRetention(ctx context.Context, c *config, hc *http.Client, ep int, bucket, key, ver string) (time.Time, error) {
	scheme := "http"
	if c.tls {
		scheme = "https"
	}
	host, path := c.endpoints[ep], "/"+bucket+"/"+key
	if c.Lookup == "dns" {
		host, path = bucket+"."+host, "/"+key
	}
	q := url.Values{"retention": {""}}
	if ver != "" {
		q.Set("versionId", ver)
	}
	u := &url.URL{Scheme: scheme, Host: host, Path: path, RawPath: s3utils.EncodePath(path), RawQuery: q.Encode()}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return time.Time{}, err
	}
	req.Header.Set("X-Amz-Content-Sha256", unsignedPayload)
	req = miniosigner.SignV4(*req, c.AccessKey, c.SecretKey, "", c.Region)
	resp, err := hc.Do(req)
	if err != nil {
		return time.Time{}, err
	}
	first := time.Now()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if err != nil {
		return first, err
	}
	if resp.StatusCode != http.StatusOK {
		e := &s3Error{Status: resp.StatusCode, Code: xmlField(body, "Code"), Message: xmlField(body, "Message")}
		if e.Code == "" {
			e.Code = resp.Status
		}
		return first, e
	}
	if mode := xmlField(body, "Mode"); !strings.EqualFold(mode, "GOVERNANCE") && !strings.EqualFold(mode, "COMPLIANCE") {
		return first, errBadRetention
	}
	if _, err := time.Parse(time.RFC3339, xmlField(body, "RetainUntilDate")); err != nil {
		return first, errBadRetention
	}
	return first, nil
}
