package fio

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
)

// Where a stonewall phase keeps its figures: the host's meta (model's
// MetaStonewall and MetaWearOut keys) and IO500's stonewall file.
const (
	StonewallFile     = "stonewall.json" // the host's counts per job, IO500's stonewall file
	stonewallBarrier  = "stonewall"      // the barrier at which the hosts agree on the count
	wearOutRaw        = "wearout-"       // the wear-out pass's raw files, by this prefix
	deadlineJobSuffix = ".stonewall.fio" // the deadline pass's job file
	// wearOutLead is how long after the hosts agreed the wear-out starts
	// on all of them: a fio's start-up on a busy machine (1.5 s seen on
	// two loaded cores), as the controller's lead for remote agents.
	wearOutLead      = 2 * time.Second
	wearOutJobSuffix = ".wearout.fio" // the wear-out pass's job file
)

// jobCounts is what IO500's stonewall file holds, per job of this host.
type jobCounts struct {
	Job int `json:"job"`
	// File is the job's file, relative to the phase's directory.
	File            string `json:"file"`
	BytesAtDeadline int64  `json:"bytes_at_deadline"`
	BytesWearOut    int64  `json:"bytes_wear_out"`
	// Blocks is the blocks of BlockBytes the job wrote in all.
	Blocks int64 `json:"blocks"`
}

// stonewallFile is a host's stonewall.json.
type stonewallFile struct {
	DeadlineS  float64     `json:"deadline_s"`
	BlockBytes int64       `json:"block_bytes"`
	Blocks     int64       `json:"blocks"`
	Jobs       []jobCounts `json:"jobs"`
}

// runStonewall runs a stonewall phase: the deadline pass, the exchange of
// counts with the other hosts, then the wear-out pass, started on every
// host at the barrier's common start. Its result is both passes as one:
// counts added, the window from the first start of the one to the last
// end of the other (IOR's), per-second series one after the other.
func (r *prepared) runStonewall(ctx context.Context, startAt time.Time, live engine.LiveFunc) (*engine.HostResult, error) {
	j, err := r.job.seqJob("write")
	if err != nil {
		return nil, err
	}
	deadline := time.Duration(*r.params.Stonewall)
	res, out, asEnd, err := r.runDeadline(ctx, startAt, live, j, deadline)
	if err != nil {
		return res, err
	}
	at, seen := j.bytesOf(out)
	if seen != j.jobs {
		res.Err = fmt.Sprintf("fio reported %d of the %d jobs", seen, j.jobs)
		return res, errors.New(res.Err)
	}
	blocks := make([]int64, j.jobs)
	hit := false
	for k := range at {
		blocks[k] = at[k] / j.bs
		hit = hit || at[k] < j.limit
	}
	if j.limit == 0 {
		hit = out.Elapsed() >= int64(deadline.Seconds())
	}
	start1, end1 := record.Span(res.Ops)
	// A job that wrote its whole size before the deadline can write no
	// more (the count agreed is at most its own): it syncs its file now,
	// while the hosts agree, as an IOR rank at its end closes its file
	// the moment the ranks' counts are in. Only the others wait for the
	// count.
	whole := int64(math.MaxInt64)
	if j.limit > 0 {
		whole = j.limit / j.bs
	}
	early := make(chan int64, 1)
	go func() { early <- r.syncJobs(j, blocks, whole, math.MaxInt64, asEnd.synced()) }()
	to, start2, err := r.agree(ctx, at, j.bs)
	if err != nil {
		<-early
		if ctx.Err() != nil {
			return res, engine.Interrupted(ctx.Err())
		}
		res.Err = "stonewall: " + err.Error()
		return res, errors.New(res.Err)
	}
	m := res.Meta
	m[model.MetaStonewallS] = strconv.FormatFloat(deadline.Seconds(), 'g', -1, 64)
	m[model.MetaStonewallBlock] = strconv.FormatInt(j.bs, 10)
	m[model.MetaStonewallJobs] = joinInts(at)
	m[model.MetaStonewallHit] = strconv.FormatBool(hit)
	m[model.MetaStonewallStart], m[model.MetaStonewallEnd] = strconv.FormatInt(start1, 10), strconv.FormatInt(end1, 10)
	m[model.MetaWearOutBlocks] = strconv.FormatInt(to, 10)
	// The jobs already at the count sync their files (IOR's -e, after
	// the writes) while the others wear out; the phase's window holds it.
	synced := make(chan int64, 1)
	go func() { synced <- r.syncJobs(j, blocks, to, whole, nil) }()
	wear, err := r.wearOut(ctx, res, j, blocks, to, start2, liveAfter(live, out, start2.Sub(startAt)))
	if end := max(<-synced, <-early, asEnd.lastEnd()); end > 0 {
		for i := range res.Ops {
			res.Ops[i].EndNs = max(res.Ops[i].EndNs, end)
		}
	}
	r.keepCounts(res, j, deadline, at, wear, to)
	return res, err
}

// runDeadline runs the deadline pass of job j and parses fio's report.
// IOR's rank that wrote its whole block before the deadline closes (and
// with -e syncs) its file at once: a job that ends before the deadline
// wrote all it can, and its file is synced as it ends, while fio runs on
// (syncAsTheyEnd; asEnd says which were).
func (r *prepared) runDeadline(ctx context.Context, startAt time.Time, live engine.LiveFunc, j *seqJob, deadline time.Duration) (res *engine.HostResult, out *Output, asEnd *endSyncs, err error) {
	p1, err := r.job.deadlinePass(j, deadline)
	if err != nil {
		return nil, nil, nil, err
	}
	if r.job.syncsAtEnd(j) && j.limit > 0 {
		if ends, err := newJobEnds(j.jobs); err == nil {
			ends.mark(p1, j.sec.Name)
			asEnd = r.syncAsTheyEnd(j, ends, startAt.Add(deadline))
		}
	}
	path1, err := r.writeJob(p1, deadlineJobSuffix)
	if err != nil {
		asEnd.stop()
		return nil, nil, nil, err
	}
	res, err = r.runFio(ctx, startAt, live, p1, path1, true)
	asEnd.stop()
	if err != nil {
		return res, nil, asEnd, err
	}
	out, err = ParseOutput(res.Raw["fio.json"])
	return res, out, asEnd, err
}

// syncJobs syncs the file of every job that wrote from to up to (not
// including) below blocks by the deadline, when the job syncs at its end,
// and returns when the last sync ended (Unix ns; 0: none). The wear-out
// pass syncs the files of the jobs short of the count; the jobs in synced
// were synced as they ended.
func (r *prepared) syncJobs(j *seqJob, blocks []int64, to, below int64, synced []bool) int64 {
	if !r.job.syncsAtEnd(j) {
		return 0
	}
	var end int64
	done := map[string]bool{}
	for k, b := range blocks {
		file := r.job.cloneFile(j.sec, k)
		if b < to || b >= below || done[file] || k < len(synced) && synced[k] {
			continue
		}
		done[file] = true
		if r.syncFile(file) {
			end = time.Now().UnixNano()
		}
	}
	return end
}

// syncFile syncs a file of the phase (relative to its data directory) and
// says whether it could.
func (r *prepared) syncFile(file string) bool {
	f, err := os.OpenFile(filepath.Join(r.dataDir, file), os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	err = f.Sync()
	f.Close()
	return err == nil
}

// endSyncs syncs the file of each job of the deadline pass that ends
// before the deadline (it wrote its whole size and can write no more) as
// it ends, each in a goroutine of its own, as IOR's ranks sync at their
// own close. A nil *endSyncs synced nothing.
type endSyncs struct {
	ends *jobEnds
	wg   sync.WaitGroup
	mu   sync.Mutex
	done []bool
	end  int64 // when the last sync ended (Unix ns)
}

func (r *prepared) syncAsTheyEnd(j *seqJob, ends *jobEnds, deadline time.Time) *endSyncs {
	s := &endSyncs{ends: ends, done: make([]bool, j.jobs)}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for k := range ends.ended {
			if !time.Now().Before(deadline) {
				continue // at the deadline: synced after the wear-out
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				if r.syncFile(r.job.cloneFile(j.sec, k)) {
					now := time.Now().UnixNano()
					s.mu.Lock()
					s.done[k], s.end = true, max(s.end, now)
					s.mu.Unlock()
				}
			}()
		}
	}()
	return s
}

// stop waits, once fio has ended, for every job's sync.
func (s *endSyncs) stop() {
	if s == nil {
		return
	}
	s.ends.stop()
	s.wg.Wait()
}

// synced says which jobs were synced as they ended.
func (s *endSyncs) synced() []bool {
	if s == nil {
		return nil
	}
	return s.done
}

// lastEnd is when the last of those syncs ended (Unix ns; 0: none).
func (s *endSyncs) lastEnd() int64 {
	if s == nil {
		return 0
	}
	return s.end
}

// wearOut runs the wear-out pass, when a job of this host is short of to
// blocks, at start, and adds it to res. It returns each job's bytes in it.
func (r *prepared) wearOut(ctx context.Context, res *engine.HostResult, j *seqJob, blocks []int64, to int64, start time.Time, live engine.LiveFunc) ([]int64, error) {
	wear := make([]int64, len(blocks))
	p2, err := r.job.wearOutPass(j, blocks, to)
	if err != nil || p2 == nil {
		return wear, err
	}
	path2, err := r.writeJob(p2, wearOutJobSuffix)
	if err != nil {
		return wear, err
	}
	// On several hosts the wear-out starts on all of them together, a
	// lead ahead of the agreement: the time a fio takes to start, which
	// the gate then keeps out of the window.
	at := start
	if r.env.Barrier != nil {
		at = start.Add(wearOutLead)
	}
	w, err := r.runFio(ctx, at, live, p2, path2, true)
	if w == nil {
		return wear, err
	}
	if o, perr := ParseOutput(w.Raw["fio.json"]); perr == nil {
		wear, _ = j.bytesOf(o)
	}
	s, e := record.Span(w.Ops)
	if s != 0 {
		res.Meta[model.MetaWearOutStart], res.Meta[model.MetaWearOutEnd] = strconv.FormatInt(s, 10), strconv.FormatInt(e, 10)
	}
	// IOR's ranks go on writing the moment they agree; fio has to start
	// again, behind the gate. That start-up (and the lead) is no part of
	// the window: the wear-out's window begins when the hosts agreed.
	if late := s - start.UnixNano(); s != 0 && late > 0 {
		res.Meta["wearout_startup_ns"] = strconv.FormatInt(late, 10)
		for i := range w.Ops {
			w.Ops[i].StartNs -= late
			w.Ops[i].EndNs -= late
		}
	}
	res.Meta[model.MetaWearOutJobBytes] = joinInts(wear)
	addPass(res, w)
	return wear, err
}

// agree brings this host's bytes per job to the other hosts' and returns
// the most blocks any job of any host wrote, and when the wear-out starts
// (the barrier's common start, or now on one host).
func (r *prepared) agree(ctx context.Context, bytes []int64, bs int64) (int64, time.Time, error) {
	var most int64
	for _, b := range bytes {
		most = max(most, b/bs)
	}
	bar := r.env.Barrier
	if bar == nil {
		return most, time.Now(), nil
	}
	data := binary.AppendUvarint(nil, uint64(len(bytes)))
	for _, b := range bytes {
		data = binary.AppendUvarint(data, uint64(b))
	}
	rel, err := bar.Wait(ctx, stonewallBarrier, data)
	if err != nil {
		return 0, time.Time{}, err
	}
	for _, a := range rel.Hosts {
		if a.Left {
			continue
		}
		d := a.Data
		n, w := binary.Uvarint(d)
		for i := uint64(0); w > 0 && i < n; i++ {
			d = d[w:]
			var b uint64
			if b, w = binary.Uvarint(d); w > 0 {
				most = max(most, int64(b)/bs)
			}
		}
	}
	return most, rel.Start, nil
}

// bytesOf is each job's bytes written in fio's report of a pass (its
// sections named by jobName), and how many jobs it reported.
func (j *seqJob) bytesOf(o *Output) ([]int64, int) {
	out := make([]int64, j.jobs)
	seen := 0
	for i := range o.Jobs {
		if k, ok := jobOf(j.sec.Name, o.Jobs[i].Name); ok && k < j.jobs {
			out[k] += int64(o.Jobs[i].Write.IOBytes)
			seen++
		}
	}
	return out, seen
}

// addPass adds the wear-out pass w to the deadline pass's result res.
func addPass(res, w *engine.HostResult) {
	res.Ops = record.CombineAll(res.Ops, w.Ops)
	res.Series = append(res.Series, w.Series...)
	if len(w.LatencySeconds) > 0 {
		a, errA := record.DecodeLatSeconds(res.LatencySeconds)
		b, errB := record.DecodeLatSeconds(w.LatencySeconds)
		if errA == nil && errB == nil {
			if enc, err := record.EncodeLatSeconds(append(a, b...)); err == nil {
				res.LatencySeconds = enc
			}
		}
	}
	for k, v := range w.Raw {
		res.Raw[wearOutRaw+k] = v
	}
	if w.Err != "" {
		res.Err = "wear-out: " + w.Err
	}
}

// keepCounts writes IO500's stonewall file of this host into its result.
func (r *prepared) keepCounts(res *engine.HostResult, j *seqJob, d time.Duration, at, wear []int64, to int64) {
	f := stonewallFile{DeadlineS: d.Seconds(), BlockBytes: j.bs, Blocks: to}
	for k := range at {
		f.Jobs = append(f.Jobs, jobCounts{Job: k, File: r.job.cloneFile(j.sec, k), BytesAtDeadline: at[k], BytesWearOut: wear[k],
			Blocks: at[k]/j.bs + wear[k]/j.bs})
	}
	if b, err := json.MarshalIndent(f, "", "  "); err == nil {
		res.Raw[StonewallFile] = append(b, '\n')
	}
}

// liveAfter passes the wear-out's snapshots on as the phase's: counts and
// latencies after the deadline pass's, time from the phase's start.
func liveAfter(live engine.LiveFunc, prev *Output, since time.Duration) engine.LiveFunc {
	if live == nil {
		return nil
	}
	base, baseLat := prev.Counts(), prev.LiveLat()
	return func(s engine.Snapshot) {
		s.Elapsed += max(since, 0)
		ops := append([]record.Count(nil), base...)
		for _, c := range s.Ops {
			found := false
			for i := range ops {
				if ops[i].Op == c.Op {
					ops[i].Ops, ops[i].Bytes, ops[i].Errors = ops[i].Ops+c.Ops, ops[i].Bytes+c.Bytes, ops[i].Errors+c.Errors
					found = true
				}
			}
			if !found {
				ops = append(ops, c)
			}
		}
		lat := append([]record.LiveLat(nil), baseLat...)
		for _, l := range s.Lat {
			found := false
			for i := range lat {
				if lat[i].Op == l.Op {
					lat[i], found = lat[i].Add(l), true
				}
			}
			if !found {
				lat = append(lat, l)
			}
		}
		s.Ops, s.Lat = ops, lat
		live(s)
	}
}

// writeJob writes a pass's job file beside the phase's, named by suffix,
// through the workspace's checked handle (engine.Workspace.WriteFile): a
// level of the workspace swapped for a symbolic link since Prepare fails
// the pass here, before a fio started on its paths writes where the link
// leads.
func (r *prepared) writeJob(jf *JobFile, suffix string) (string, error) {
	name := r.params.Job.Name + suffix
	return filepath.Join(r.ws.Path, name), r.ws.WriteFile(name, []byte(jf.Render()))
}

func joinInts(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(parts, ",")
}
