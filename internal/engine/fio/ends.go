package fio

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// jobEnds tells the agent when each job of a fio run has ended, while fio
// runs on: every job section runs, as fio's exec_postrun, a command that
// writes the job's number to a FIFO of the agent's. fio runs exec_postrun
// in the job's process right after the job's I/O and its timing (fio 3.33
// backend.c thread_main: update_runtime, then exec_postrun), where fio's
// own end comes up to 10 ms later (its main process looks for ended jobs
// every 10 ms) and its report after that.
type jobEnds struct {
	dir   string
	fifo  *os.File
	ended chan int // each job's number, as it ends; closed after the last
	read  chan struct{}
}

// newJobEnds makes the FIFO, in a local temporary directory as the
// gate's, and starts reading it; ended has room for jobs numbers.
func newJobEnds(jobs int) (*jobEnds, error) {
	dir, fs, err := openFifos(endsDirPrefix, "ended")
	if err != nil {
		return nil, err
	}
	e := &jobEnds{dir: dir, fifo: fs[0], ended: make(chan int, jobs), read: make(chan struct{})}
	go e.follow(jobs)
	return e, nil
}

// follow passes each job number written to the FIFO on to ended, until
// the line stop writes (or the FIFO's close); a line that is not a job's
// number is passed over.
func (e *jobEnds) follow(jobs int) {
	defer close(e.read)
	defer close(e.ended)
	sc := bufio.NewScanner(e.fifo)
	for sc.Scan() {
		if sc.Text() == endsStop {
			return
		}
		if k, err := strconv.Atoi(sc.Text()); err == nil && k >= 0 && k < jobs {
			select {
			case e.ended <- k:
			default: // a job that said so twice
			}
		}
	}
}

// endsStop is the line stop writes after fio's end: every job's line is
// before it in the FIFO.
const endsStop = "stop"

// postrun is the exec_postrun of job k: the signal, then own (the job's
// own exec_postrun, if --allow-exec let it have one), which is no part of
// the job's I/O. One subshell holds it all, so fio's redirection of the
// line's output binds to it; "1<>" opens the FIFO read-write, which never
// waits for a reader.
func (e *jobEnds) postrun(k int, own string) string {
	signal := "echo " + strconv.Itoa(k) + " 1<>" + e.dir + "/ended"
	if own = strings.TrimSpace(own); own != "" {
		return "((" + signal + " || true) && " + own + ")"
	}
	return "(" + signal + ")"
}

// mark gives every job section of jf, named by jobName(sec, k), the
// postrun that signals its end.
func (e *jobEnds) mark(jf *JobFile, sec string) {
	for _, s := range jf.Sections {
		if k, ok := jobOf(sec, s.Name); ok {
			own, _ := jf.Lookup(s, "exec_postrun")
			s.Set("exec_postrun", e.postrun(k, own))
		}
	}
}

// stop, once fio has ended, lets the reader pass on what the jobs wrote
// and end (ended is closed then), and removes the FIFO.
func (e *jobEnds) stop() {
	if _, err := e.fifo.WriteString(endsStop + "\n"); err != nil {
		e.fifo.Close()
	}
	<-e.read
	e.fifo.Close()
	os.RemoveAll(e.dir)
}
