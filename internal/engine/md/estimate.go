package md

import (
	"math"
	"slices"
	"time"
)

// EstimateRate is the rate per worker, in operations per second, that
// estimates of an md phase's duration assume. md phases run until their
// items are done, so their time depends on the file system: 1,000 is the
// order of a network file system per client thread; local file systems are
// usually faster, so estimates err long, which is the safe side for
// --max-duration.
const EstimateRate = 1000

// Estimate returns a phase's estimated duration: each worker's items
// through every per-item operation the phase runs (find: every entry), of
// every iteration, at EstimateRate (workers run side by side), a stonewall
// bounding the creates. Tree creation and removal are not counted.
func Estimate(p Params) time.Duration {
	// In seconds, as float: items up to MaxItems and iterations up to
	// MaxIterations overflow a Duration.
	perOp := float64(p.Items) / EstimateRate
	create := perOp
	if p.Stonewall > 0 {
		create = min(create, time.Duration(p.Stonewall).Seconds())
	}
	var it float64
	ops := p.ops()
	for _, k := range ops {
		switch k {
		case opTreeCreate, opTreeRemove:
		case opDirCreate, opFileCreate:
			it += create
		case opFind: // every file, and the directories not yet removed
			it += perOp
			if !p.FilesOnly && !p.DirsOnly && !slices.Contains(ops, opDirRemove) {
				it += perOp
			}
		default:
			it += perOp
		}
	}
	total := it * float64(p.Iterations)
	if total >= math.MaxInt64/float64(time.Second) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(total * float64(time.Second))
}
