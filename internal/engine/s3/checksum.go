package s3

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"

	"github.com/minio/minio-go/v7"

	"github.com/storbench/storbench/internal/engine"
)

// checksumForm is how an upload carries its S3 checksum.
type checksumForm int

const (
	// inTrailer: after the body, in an aws-chunked trailer
	// (STREAMING-UNSIGNED-PAYLOAD-TRAILER): what minio-go sends with a
	// single PUT and with the parts of a PUT it splits.
	inTrailer checksumForm = iota
	// inPartHeader: worked out first and sent as the header of each part
	// of a multipart upload (multipart-put's form).
	inPartHeader
)

func (f checksumForm) String() string {
	if f == inPartHeader {
		return "in a part's header"
	}
	return "in a trailer"
}

// probeBody is what checksum checks upload: a few bytes, enough for a
// server to check a sum against.
const probeBody = "storbench checksum probe"

// checksumUpload uploads probeBody to key carrying checksum ck in form f,
// with opts as the phase's uploads carry them (cl must send trailers:
// newClient with a checksum). The object is left for the caller to read
// back and remove; a multipart upload that fails is aborted.
func checksumUpload(ctx context.Context, cl *minio.Client, bucket, key string, ck minio.ChecksumType, f checksumForm, opts minio.PutObjectOptions) error {
	core := minio.Core{Client: cl}
	opts.Checksum = ck
	if f == inTrailer {
		_, err := core.PutObject(ctx, bucket, key, strings.NewReader(probeBody), int64(len(probeBody)), "", "", opts)
		return err
	}
	opts.Checksum = 0
	id, err := core.NewMultipartUpload(ctx, bucket, key, multipartCreate(opts, ck, opts.UserMetadata))
	if err != nil {
		return err
	}
	h := ck.Hasher()
	h.Write([]byte(probeBody))
	sum := base64.StdEncoding.EncodeToString(h.Sum(nil))
	part, err := core.PutObjectPart(ctx, bucket, key, id, 1, strings.NewReader(probeBody), int64(len(probeBody)),
		minio.PutObjectPartOptions{SSE: opts.ServerSideEncryption, DisableContentSha256: opts.DisableContentSha256, CustomHeader: http.Header{ck.Key(): []string{sum}}})
	if err == nil {
		_, err = core.CompleteMultipartUpload(ctx, bucket, key, id, []minio.CompletePart{completePart(1, part.ETag, ck, sum)}, opts)
	}
	if err != nil {
		_ = core.AbortMultipartUpload(context.WithoutCancel(ctx), bucket, key, id)
	}
	return err
}

// checksumKept reads key back asking for its checksums and says whether
// it has one of ck's algorithm.
func checksumKept(ctx context.Context, cl *minio.Client, bucket, key string, ck minio.ChecksumType) (bool, error) {
	info, err := cl.StatObject(ctx, bucket, key, minio.StatObjectOptions{Checksum: true})
	if err != nil {
		return false, err
	}
	got := map[minio.ChecksumType]string{minio.ChecksumCRC32: info.ChecksumCRC32, minio.ChecksumCRC32C: info.ChecksumCRC32C,
		minio.ChecksumCRC64NVME: info.ChecksumCRC64NVME, minio.ChecksumSHA1: info.ChecksumSHA1, minio.ChecksumSHA256: info.ChecksumSHA256}
	return got[ck.Base()] != "", nil
}

// checkChecksum uploads one small object with --checksum in the form the
// phase's uploads carry it, and reads it back: a server that refuses the
// form (radosgw 16 answers a trailer with XAmzContentSHA256Mismatch), or
// takes it and keeps no checksum, is said in one line before any load,
// rather than every upload failing or being measured as if checked.
func (ph *phase) checkChecksum(ctx context.Context) error {
	c := ph.c
	ck := checksumTypes[c.Checksum]
	form := inTrailer
	if c.Op == "multipart-put" {
		form = inPartHeader
	}
	key := ph.prefix + "probe-checksum"
	err := checksumUpload(ctx, ph.admin, c.Bucket, key, ck, form, ph.putOpts())
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return engine.Unsupported(fmt.Sprintf("s3: --checksum %s: the server refused an upload carrying it %s (%s)", c.Checksum, form, errorKind(err)))
	}
	kept, err := checksumKept(ctx, ph.admin, c.Bucket, key, ck)
	_ = ph.admin.RemoveObject(context.WithoutCancel(ctx), c.Bucket, key, minio.RemoveObjectOptions{})
	if err != nil {
		return fmt.Errorf("s3: reading back an upload with --checksum %s: %v", c.Checksum, err)
	}
	if !kept {
		return engine.Unsupported(fmt.Sprintf("s3: --checksum %s: the server does not keep %s checksums (an object uploaded with one %s reads back without %s)",
			c.Checksum, c.Checksum, form, strings.ToLower(ck.Key())))
	}
	return nil
}
