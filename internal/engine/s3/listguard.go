package s3

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"iter"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/minio/minio-go/v7"
)

// maxEmptyPages is how many truncated pages in a row a listing may return
// without an entry before it is taken for one that makes no progress. A
// server may return an empty page now and then (keys it filters out);
// a thousand in a row is a listing that goes nowhere.
const maxEmptyPages = 1000

// errListLoop marks a listing the server would never end: it gave back a
// continuation it had given before, or page after page with nothing in
// them. The phase ends with it (ListLoopError says which listing).
var errListLoop = errors.New("the server's listing never ends")

// ListLoopError is a listing that would never end: what was listed, on
// which endpoint, and how it was seen.
type ListLoopError struct {
	Endpoint, Bucket, Prefix string
	// Why says how it was seen: the continuation given twice, or the
	// count of empty pages.
	Why string
}

func (e *ListLoopError) Error() string {
	return fmt.Sprintf("s3: the listing of %s/%s on %s never ends: %s; the server's listing is broken (storbench stopped it rather than list forever)",
		e.Bucket, e.Prefix, e.Endpoint, e.Why)
}

// Unwrap makes every ListLoopError errListLoop.
func (e *ListLoopError) Unwrap() error { return errListLoop }

// pageGuard follows the pages of one listing: the continuations it was
// given (hashed: a listing of millions of pages keeps 8 bytes a page) and
// how many pages in a row brought no entry.
type pageGuard struct {
	bucket, prefix string

	mu    sync.Mutex
	seed  maphash.Seed
	seen  map[uint64]struct{}
	empty int
	// entries counts what the listing yielded; last is the count at the
	// previous page.
	entries atomic.Int64
	last    int64
}

func newPageGuard(bucket, prefix string) *pageGuard {
	return &pageGuard{bucket: bucket, prefix: prefix, seed: maphash.MakeSeed(), seen: map[uint64]struct{}{}}
}

// next checks the request of the page that continues from token ("" for
// the first page) on endpoint, given the entries yielded so far.
func (g *pageGuard) next(endpoint, token string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := g.entries.Load()
	if token == "" {
		g.last = n
		return nil
	}
	if n == g.last {
		g.empty++
	} else {
		g.empty = 0
	}
	g.last = n
	if g.empty >= maxEmptyPages {
		return &ListLoopError{Endpoint: endpoint, Bucket: g.bucket, Prefix: g.prefix,
			Why: fmt.Sprintf("%d pages in a row held no entry and asked for more", g.empty)}
	}
	h := maphash.String(g.seed, token)
	if _, again := g.seen[h]; again {
		return &ListLoopError{Endpoint: endpoint, Bucket: g.bucket, Prefix: g.prefix,
			Why: fmt.Sprintf("it gave the continuation %q a second time, after %d entries", clip(token, 64), n)}
	}
	g.seen[h] = struct{}{}
	return nil
}

// clip shortens s to at most n bytes for a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

type pageGuardKey struct{}

// continuation is the part of a listing request's query that says where
// it continues: the V2 token, the versions' and uploads' markers, or V1's
// marker ("" on a first page, and on requests that are no listing).
func continuation(q url.Values) string {
	var t []string
	for _, k := range [...]string{"continuation-token", "key-marker", "version-id-marker", "upload-id-marker", "marker"} {
		if v := q.Get(k); v != "" {
			t = append(t, k+"="+v)
		}
	}
	return strings.Join(t, " ")
}

// listObjects lists bucket as minio-go's ListObjects does, through a
// pageGuard the transport consults before each page (boundedTransport):
// a server that gives a continuation twice, or pages with nothing in them
// for ever, ends the listing with a *ListLoopError instead of keeping it
// going until ctx ends. As ListObjects, and unlike ListObjectsIter, a
// listing that ctx cut short ends with ctx's error, never as if it were
// complete.
func listObjects(ctx context.Context, cl *minio.Client, bucket string, opts minio.ListObjectsOptions) iter.Seq[minio.ObjectInfo] {
	g := newPageGuard(bucket, opts.Prefix)
	gctx := context.WithValue(ctx, pageGuardKey{}, g)
	return func(yield func(minio.ObjectInfo) bool) {
		if ctx.Err() != nil {
			yield(minio.ObjectInfo{Err: ctx.Err()})
			return
		}
		for o := range cl.ListObjectsIter(gctx, bucket, opts) {
			if o.Err == nil {
				g.entries.Add(1)
			} else {
				var le *ListLoopError
				if errors.As(o.Err, &le) {
					o.Err = le // minio-go's wrapping says less
				}
			}
			if !yield(o) {
				return
			}
		}
		if ctx.Err() != nil {
			yield(minio.ObjectInfo{Err: ctx.Err()})
		}
	}
}
