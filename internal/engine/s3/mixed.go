package s3

import (
	"context"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/minio/minio-go/v7"
)

// loopMixed draws each request's operation from the distribution and works
// on the shared object pool (versioned: on specific versions).
func (wk *worker) loopMixed(ctx context.Context) {
	ph := wk.ph
	c := ph.c
	total := c.dist[0] + c.dist[1] + c.dist[2] + c.dist[3]
	versioned := c.Op == "versioned"
	for {
		t0, ok := wk.begin()
		if !ok {
			return
		}
		op := wk.drawOp(total)
		ep := ph.picker.pick()
		switch op {
		case dGet, dStat:
			wk.mixedRead(ctx, t0, op, ep, versioned)
		case dPut:
			wk.mixedPut(ctx, t0, ep, versioned)
		case dDelete:
			wk.mixedDelete(ctx, t0, ep, versioned)
		}
	}
}

// drawOp draws a request's operation (dGet, dStat, dPut or dDelete) from
// the distribution, whose shares add up to total.
func (wk *worker) drawOp(total float64) int {
	dist := &wk.ph.c.dist
	x := wk.rng.Float64() * total
	op := 0
	for op < 3 && x >= dist[op] {
		x -= dist[op]
		op++
	}
	return op
}

// mixedRead is a mixed run's GET or STAT (op) through ep of an object
// leased from the pool (versioned: that version of it).
func (wk *worker) mixedRead(ctx context.Context, t0 time.Time, op, ep int, versioned bool) {
	ph := wk.ph
	obj, ok := ph.readObject(wk.rng)
	if !ok {
		wk.finish(op, ep, t0, time.Time{}, 0, errPoolEmpty)
		return
	}
	var err error
	var n int64
	var first time.Time
	if op == dGet {
		ver := ""
		if versioned {
			ver = obj.ver
		}
		off, ln, want := wk.pickRange(obj.size)
		n, first, err = wk.get(ctx, ep, obj.key, ver, want, off, ln)
		wk.reqSize = obj.size
	} else {
		opts := wk.stat0
		if versioned {
			opts.VersionID = obj.ver
		}
		if wk.lean != nil {
			err = wk.lean.stat(ep, wk.keyBytes(obj.key), wk.buf)
		} else {
			_, err = wk.core[ep].StatObject(ctx, ph.c.Bucket, obj.key, opts)
		}
	}
	if ph.pool != nil {
		ph.pool.release(obj)
	}
	wk.finish(op, ep, t0, first, n, err)
}

// mixedPut is a mixed run's PUT through ep: a new object added to the
// pool, or (versioned) a new version of one in it, so keys carry history.
func (wk *worker) mixedPut(ctx context.Context, t0 time.Time, ep int, versioned bool) {
	ph := wk.ph
	size := ph.c.sizes.draw(wk.rng)
	var key string
	if versioned {
		obj, ok := ph.pool.peek(wk.rng)
		if !ok {
			wk.finish(dPut, ep, t0, time.Time{}, 0, errPoolEmpty)
			return
		}
		key = obj.key
	} else {
		wk.seq++
		key = wk.pfx + strconv.Itoa(wk.id) + "-m" + strconv.Itoa(wk.seq)
	}
	info, err := wk.put(ctx, ep, key, size)
	wk.reqSize = size
	if err == nil {
		ph.pool.add(poolObj{key: key, size: size, ver: info.VersionID})
	} else {
		size = 0
	}
	wk.finish(dPut, ep, t0, time.Time{}, size, err)
}

// mixedDelete is a mixed run's DELETE through ep of an object taken from
// the pool (versioned: that version of it).
func (wk *worker) mixedDelete(ctx context.Context, t0 time.Time, ep int, versioned bool) {
	ph := wk.ph
	obj, ok := ph.pool.take(wk.rng)
	if !ok {
		wk.finish(dDelete, ep, t0, time.Time{}, 0, errPoolEmpty)
		return
	}
	opts := minio.RemoveObjectOptions{}
	if versioned {
		opts.VersionID = obj.ver
	}
	var err error
	if wk.lean != nil {
		err = wk.lean.remove(ep, wk.keyBytes(obj.key), wk.buf)
	} else {
		err = wk.core[ep].RemoveObject(ctx, ph.c.Bucket, obj.key, opts)
	}
	wk.finish(dDelete, ep, t0, time.Time{}, 0, err)
}

// readObject draws the object of a mixed GET or STAT: leased from the
// pool, or with --list-existing (reads only, nothing to protect a read
// from) one of the listed objects.
func (ph *phase) readObject(rng *rand.Rand) (poolObj, bool) {
	if ph.pool != nil {
		return ph.pool.lease(rng)
	}
	i := rng.IntN(len(ph.keys))
	return poolObj{key: ph.keys[i], size: ph.sizes[i]}, true
}
