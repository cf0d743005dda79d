package md

import (
	"math"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// EstimateRate is the rate per worker, in operations per second, that
// estimates of an md phase's duration assume. md phases run until their
// items are done, so their time depends on the file system: 1,000 is the
// order of a network file system per client thread; local file systems are
// usually faster, so estimates err long, which is the safe side for
// --max-duration.
const EstimateRate = 1000

var _ engine.Estimator = Engine{}

// Estimate returns a phase's estimated duration: each worker's items
// through every per-item operation of every iteration at EstimateRate
// (workers run side by side), a stonewall bounding the creates. Tree
// creation and removal are not counted.
func (Engine) Estimate(ph engine.Phase) (time.Duration, error) {
	p, err := DecodeParams(ph.Params)
	if err != nil {
		return 0, err
	}
	// In seconds, as float: items up to MaxItems and iterations up to
	// MaxIterations overflow a Duration.
	perOp := float64(p.Items) / EstimateRate
	create := perOp
	if p.Stonewall > 0 {
		create = min(create, time.Duration(p.Stonewall).Seconds())
	}
	var it float64
	if !p.FilesOnly { // dir-create, dir-stat, dir-remove
		it += create + 2*perOp
	}
	if !p.DirsOnly { // file-create, file-stat, file-read, file-remove (file-rename)
		it += create + 3*perOp
		if p.Rename {
			it += perOp
		}
	}
	total := it * float64(p.Iterations)
	if total >= math.MaxInt64/float64(time.Second) {
		return time.Duration(math.MaxInt64), nil
	}
	return time.Duration(total * float64(time.Second)), nil
}

// EstimateModel says how Estimate computes.
func (Engine) EstimateModel() string {
	return "md phases run until their items are done; estimated at 1,000 operations per second per worker (items x operations x iterations; a stonewall bounds the creates)"
}
