package s3

import (
	"errors"
	"math/rand/v2"
	"sync"
)

var errPoolEmpty = errors.New("no object left to work on")

// poolObj is one object (one version, for versioned) of the mixed pool.
type poolObj struct {
	key  string
	size int64
	ver  string
}

func (o poolObj) id() string { return o.key + "\x00" + o.ver }

// objectPool is the set of objects mixed and versioned work on. Objects
// being read are leased so that a DELETE never removes an object a GET is
// reading: a read must not fail because of the benchmark's own deletes.
// It takes a lock per request; mixed is not the per-request CPU case.
type objectPool struct {
	mu     sync.Mutex
	objs   []poolObj
	leased map[string]int
}

func newObjectPool(keys []string, sizes []int64, vers []string) *objectPool {
	p := &objectPool{leased: map[string]int{}}
	for i := range keys {
		p.objs = append(p.objs, poolObj{key: keys[i], size: sizes[i], ver: vers[i]})
	}
	return p
}

func (p *objectPool) lease(rng *rand.Rand) (poolObj, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.objs) == 0 {
		return poolObj{}, false
	}
	o := p.objs[rng.IntN(len(p.objs))]
	p.leased[o.id()]++
	return o, true
}

// release ends a lease.
func (p *objectPool) release(o poolObj) {
	p.mu.Lock()
	id := o.id()
	if p.leased[id] <= 1 {
		delete(p.leased, id)
	} else {
		p.leased[id]--
	}
	p.mu.Unlock()
}

func (p *objectPool) peek(rng *rand.Rand) (poolObj, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.objs) == 0 {
		return poolObj{}, false
	}
	return p.objs[rng.IntN(len(p.objs))], true
}

func (p *objectPool) add(o poolObj) {
	p.mu.Lock()
	p.objs = append(p.objs, o)
	p.mu.Unlock()
}

// take removes an unleased object from the pool and returns it.
func (p *objectPool) take(rng *rand.Rand) (poolObj, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.objs)
	if n == 0 {
		return poolObj{}, false
	}
	start := rng.IntN(n)
	for k := 0; k < n; k++ {
		i := (start + k) % n
		o := p.objs[i]
		if p.leased[o.id()] > 0 {
			continue
		}
		p.objs[i] = p.objs[n-1]
		p.objs = p.objs[:n-1]
		return o, true
	}
	return poolObj{}, false
}
