package events

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/supervise"
)

// Action is what an event asks one machine to do; it travels to agents
// (POST /v1/event).
type Action struct {
	// Kind is model.EventCommand, EventDropCaches or EventPause.
	Kind    string `json:"action"`
	Command string `json:"command,omitempty"`
	// TimeoutNs bounds the action; PauseNs is a pause's length.
	TimeoutNs int64 `json:"timeout_ns"`
	PauseNs   int64 `json:"pause_ns,omitempty"`
	// Env is added to a command's environment (STORBENCH_RUN_ID,
	// STORBENCH_PHASE, STORBENCH_EVENT).
	Env []string `json:"env,omitempty"`
}

// Timeout is the action's bound.
func (a Action) Timeout() time.Duration { return time.Duration(a.TimeoutNs) }

// Outcome is how an action ended.
type Outcome struct {
	// Exit is a command's exit status, when it exited on its own.
	Exit *int `json:"exit,omitempty"`
	// Output is the command's first model.EventOutputMax bytes of
	// standard output and error; Truncated says more was cut.
	Output    string `json:"output,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	// Error says why the action failed ("" when it succeeded).
	Error string `json:"error,omitempty"`
	// StartNs and EndNs, when set, are when the action itself began and
	// ended on the host (Unix ns, the controller's clock once the agent's
	// answer is read): a pause's load stopped and went on then, later
	// than the request left and earlier than its answer came.
	StartNs int64 `json:"start_ns,omitempty"`
	EndNs   int64 `json:"end_ns,omitempty"`
}

// Shift moves the action's own times by d (from one clock to another);
// an outcome without them stays without.
func (o *Outcome) Shift(d time.Duration) {
	if o.StartNs != 0 {
		o.StartNs, o.EndNs = o.StartNs+int64(d), o.EndNs+int64(d)
	}
}

// Failed returns an Outcome that says err.
func Failed(err error) Outcome { return Outcome{Error: err.Error()} }

// Executor runs an action on one machine and says how it ended; it
// honours the action's timeout and ctx.
type Executor func(ctx context.Context, a Action) Outcome

// RunCommand runs command with sh -c, with this process's rights and
// environment plus env, its standard input empty. It runs under a
// supervisor (internal/supervise), which ends it and everything it
// started, in its process group or not: at timeout or when ctx ends (the
// outcome says so), when it exits (nothing it started in the background
// outlives the event), and when this process dies, even by SIGKILL.
func RunCommand(ctx context.Context, command string, timeout time.Duration, env []string) Outcome {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Env = append(os.Environ(), env...)
	out := &capped{max: model.EventOutputMax}
	cmd.Stdout, cmd.Stderr = out, out
	// Output pipes held open by a process that escaped the supervisor do
	// not hold Wait.
	cmd.WaitDelay = 2 * time.Second
	p, err := supervise.Start(cmd)
	if err == nil {
		stop := context.AfterFunc(cctx, p.Kill)
		err = p.Wait()
		stop()
	}
	o := Outcome{Output: out.String(), Truncated: out.cut}
	var ee *exec.ExitError
	switch {
	case errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		o.Error = fmt.Sprintf("timed out after %s: killed", timeout)
	case ctx.Err() != nil:
		o.Error = "stopped: " + ctx.Err().Error()
	case errors.As(err, &ee) && ee.Exited():
		code := ee.ExitCode()
		o.Exit = &code
		o.Error = fmt.Sprintf("exit status %d", code)
	case err != nil:
		o.Error = err.Error()
	default:
		code := 0
		o.Exit = &code
	}
	return o
}

// capped keeps the first max bytes written to it.
type capped struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.buf.Len(); room < len(p) {
		c.cut = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	c.buf.Write(p)
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}
