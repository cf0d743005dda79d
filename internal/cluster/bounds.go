package cluster

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/units"
)

// What the controller and an agent take from each other is bounded, each
// message by what a legitimate one holds with room to spare, so a peer
// that sends more (broken, or hostile: a token holder) costs a refusal,
// not the other side's memory. Measured on this machine: a run's last
// line (the host's result) of a 64-job fio phase of 20 s without
// group_reporting is 5.1 MB, about 79 KB a job (fio's json+ output and
// the per-job histograms) and 1.2 KB a second (the per-second latency);
// of a 64-worker md phase 126 KB; a snapshot line 11 KB.
const (
	// maxLine bounds a stream line other than a run's last: ticks,
	// snapshots, barrier arrivals, a stage's outcome, removal records.
	maxLine = 8 << 20
	// resultBase and resultPerSecond bound a run's last line, with what
	// the phase's engine says it adds (engine.Plan.ResultBytes: fio, per job):
	// resultBase, and resultPerSecond for each second the run lasted (the
	// per-second series and histograms grow with it).
	resultBase      = 64 << 20
	resultPerSecond = 64 << 10
	// maxArrival bounds what a host brings to a barrier: md's per-rank
	// counts, fio's stonewall blocks (4096 jobs: 40 KB).
	maxArrival = 64 << 10
	// maxAnswer bounds the answers that are no stream: info, time, an
	// event's outcome (its output is cut at 4 KiB).
	maxAnswer = 1 << 20
	// maxPhaseBody bounds a request that carries a phase (prepare,
	// resources): its settings and job file (a 1 MiB job file: 1.1 MB).
	maxPhaseBody = 16 << 20
	// maxSmallBody bounds the other requests (run, settle, event).
	maxSmallBody = 1 << 20
	// releasePerHost bounds a release per host of the phase: its name
	// and what it brought to the barrier (maxArrival, in base64).
	releasePerHost = 2 * maxArrival
	// maxText bounds a text an agent sends that the controller prints or
	// keeps (an error, why it stopped, a leftover's place and reason),
	// and maxLogLine a line of the agent's log.
	maxText    = 4 << 10
	maxLogLine = 4 << 10
)

// resultSize is what a phase's engine adds to the bound of a run's last
// line (engine.Plan.ResultBytes): fixed, and perSecond for each second of the
// run.
type resultSize struct{ fixed, perSecond int64 }

// limit bounds the last line of a run that began at start.
func (r resultSize) limit(start time.Time) int64 {
	return resultBase + r.fixed + int64(time.Since(start).Seconds()+1)*(resultPerSecond+r.perSecond)
}

// errTooLong is a line, body or answer over its bound.
type errTooLong struct {
	what  string
	limit int64
}

func (e *errTooLong) Error() string {
	return fmt.Sprintf("%s is over %s, more than any legitimate one: refused", e.what, units.Bytes(float64(e.limit)))
}

// lineReader reads a stream's NDJSON lines, each at most small bytes,
// except a stage's last line ({"done":true...), which may hold big.
type lineReader struct {
	br  *bufio.Reader
	buf []byte
	// more, if set, hears that more of a line that fills the buffer
	// arrived: a long line is no silence.
	more func()
}

// readBuffer is a stream's reading buffer. Every agent's stream is open
// at once (10,000 agents: 10,000 buffers), and its lines are small (a
// snapshot: 0.4-11 KB); a longer line is read in pieces (next).
const readBuffer = 4 << 10

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, readBuffer)}
}

// next returns the next line, valid until the next call.
func (lr *lineReader) next(small, big int64) ([]byte, error) {
	if cap(lr.buf) > maxLine {
		lr.buf = nil // a result's buffer is not kept for the ticks
	}
	lr.buf = lr.buf[:0]
	limit := small
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if n := len(lr.buf) + len(chunk); n > cap(lr.buf) {
			// Doubling up to the bound: a long line costs twice its
			// length in all, where append's growth by a quarter would
			// cost five times, and never much more than the bound.
			nb := make([]byte, len(lr.buf), max(min(2*cap(lr.buf), int(max(big, small))+len(chunk)), n))
			copy(nb, lr.buf)
			lr.buf = nb
		}
		lr.buf = append(lr.buf, chunk...)
		if n := int64(len(lr.buf)); n > limit {
			if limit < big && bytes.HasPrefix(lr.buf, []byte(`{"done":true`)) {
				limit = big
			}
			if n > limit {
				return nil, &errTooLong{what: "a line", limit: limit}
			}
		}
		switch {
		case err == nil:
			return lr.buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if lr.more != nil {
				lr.more()
			}
		default:
			if errors.Is(err, io.EOF) && len(lr.buf) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// readAnswer reads an answer that is no stream, at most maxAnswer bytes.
func readAnswer(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxAnswer+1))
	if err == nil && len(b) > maxAnswer {
		err = &errTooLong{what: "the answer", limit: maxAnswer}
	}
	return b, err
}

// decodeAnswer decodes an answer that is no stream (readAnswer) into v.
func decodeAnswer(r io.Reader, v any) error {
	b, err := readAnswer(r)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// bodyErr says what is wrong with a request body that did not decode:
// over its bound (http.MaxBytesReader), or not what was expected.
func bodyErr(what string, err error) string {
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return (&errTooLong{what: "the " + what + " request", limit: mb.Limit}).Error()
	}
	return fmt.Sprintf("bad %s request: %v", what, err)
}

// clipText cuts s to at most n bytes (on a character's boundary), saying
// how much was left out.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + fmt.Sprintf("... (%d more bytes)", len(s)-n)
}

// clip bounds the texts of a line an agent sent, which the controller
// prints and keeps.
func (l *line) clip() {
	l.Error, l.Stopped = clipText(l.Error, maxText), clipText(l.Stopped, maxText)
	for i := range l.Leftovers {
		lo := &l.Leftovers[i]
		lo.Host, lo.What, lo.Where, lo.Reason = clipText(lo.Host, maxText), clipText(lo.What, maxText), clipText(lo.Where, maxText), clipText(lo.Reason, maxText)
	}
	if l.Result != nil {
		l.Result.Err = clipText(l.Result.Err, maxText)
	}
	if a := l.Arrive; a != nil {
		a.Name = clipText(a.Name, maxText)
	}
}
