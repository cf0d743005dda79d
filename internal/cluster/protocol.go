package cluster

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// The controller-agent protocol is HTTP with JSON bodies under a versioned
// prefix: HTTP/2 (h2c without TLS), so that all of a controller's calls
// to one agent share one connection, or HTTP/1.1 with an agent that
// speaks only that (Server.HTTPServer, RemoteAgent.roundTrip). Over HTTP/2
// a heartbeat is never held behind a large result: its answer is headers
// alone, which stream flow control does not hold (on several hosts, and
// at most one short leave line more), and the controller reads
// every stream as it comes. Every request and response carries the protocol number
// in HeaderProtocol, and both sides refuse a different one with an error
// that says what to do.
//
//	GET  /v1/info       Info (versions, the agent's clock, who holds it)
//	GET  /v1/time       the agent's clock, for offset samples
//	POST /v1/prepare    Request; NDJSON stream of ticks, then the outcome
//	POST /v1/run        runBody; NDJSON stream of snapshots and barrier
//	                    arrivals, then the result
//	POST /v1/release    releaseBody: a barrier the run stream arrived at
//	                    opened (phases on several hosts; see barrier.go)
//	POST /v1/cleanup    cleanupBody; NDJSON stream of ticks, then the
//	                    outcome; a fio phase's files may go on being
//	                    removed after it
//	POST /v1/settle     settleBody; awaits the removals going on (no
//	                    session needed): NDJSON ticks, then their records
//	POST /v1/resources  resourcesBody; the phase's resources on the agent's
//	                    host (free space, memory): one line, Resources
//	POST /v1/heartbeats the controller is alive: one request a phase, its
//	                    body a byte a beat (at least every second) for as
//	                    long as the phase lasts; on several hosts over
//	                    HTTP/2 its answer begins at once and may carry a
//	                    leave line (an agent told to stop between stages)
//	POST /v1/heartbeat  the controller is alive, one request a beat (an
//	                    agent without /v1/heartbeats; HTTP/1.1); its
//	                    answer may be a leave line
//	POST /v1/stop       end the running phase early, keeping what it measured
//	POST /v1/leave      leaveBody: the answer to a leave line (an agent
//	                    told to stop in a phase asks whether other hosts
//	                    still run it; leave.go)
//	POST /v1/event      events.Action: an event of the running phase (a
//	                    command only with --allow-events); events.Outcome
//	POST /v1/end        the run is over (its launcher ended before its
//	                    agents): an agent started for that run alone ends,
//	                    any other refuses (no session needed; orphan.go)
//
// A phase is a session: the controller names it (HeaderSession) in
// prepare and in every later call. The agent serves one session at a time
// and ends it on its own, stopping the load and cleaning up, when the
// controller's heartbeats stop for HeartbeatTimeout or the stream of a
// prepare or run breaks.
const (
	// PathPrefix is the versioned path prefix of every endpoint.
	PathPrefix = "/v1"
	// HeaderProtocol carries Protocol on every request and response.
	HeaderProtocol = "Storbench-Protocol"
	// HeaderSession names the controller's phase session.
	HeaderSession = "Storbench-Session"
	// HeaderVersion carries the agent's storbench version on responses.
	HeaderVersion = "Storbench-Version"

	// DefaultPort is where an agent listens unless told otherwise.
	DefaultPort = 7761
	// HeartbeatEvery is how often the controller says it is alive, with
	// the default timeout (RemoteAgent.beatEvery: a sixth of a longer one).
	HeartbeatEvery = time.Second
	// HeartbeatTimeout is how long an agent waits without a heartbeat
	// before it stops the phase and cleans up, not counting time it could
	// not run itself (beatWatch): a lost controller stops the load well
	// within 5 seconds. It is the default of the one knob,
	// RemoteAgent.HeartbeatTimeout, that also sets the controller's
	// silence (silenceFor) and each side's lost message.
	HeartbeatTimeout = 3 * time.Second
	// maxHeartbeatTimeout bounds the timeout a controller may ask for.
	maxHeartbeatTimeout = time.Hour
	// tickEvery is how often an agent writes to a stream when it has
	// nothing else to say, so the controller can tell a slow stage from a
	// lost agent.
	tickEvery = time.Second
	// DefaultSilence is how long the controller waits for any line on a
	// stream before it marks the agent lost, with the default heartbeat
	// timeout: silenceFor(HeartbeatTimeout).
	DefaultSilence = 5 * time.Second
)

// runBody is the body of POST /v1/run.
type runBody struct {
	// StartNs is the common start in the agent's clock (Unix ns).
	StartNs int64 `json:"start_ns"`
}

// line is one NDJSON line of a stream. Exactly one of the fields is set on
// a line, except Done, which comes with Error, Result, Leftovers, Stopped
// and Unsupported on the last line.
type line struct {
	Tick     bool             `json:"tick,omitempty"`
	Snapshot *engine.Snapshot `json:"snapshot,omitempty"`
	// Arrive says the engine waits at a barrier (run streams only).
	Arrive *arriveLine `json:"arrive,omitempty"`
	// Leave asks, from an agent told to stop in a phase on several hosts,
	// whether other hosts still run it (prepare and run streams; the
	// controller answers with POST /v1/leave).
	Leave  bool               `json:"leave,omitempty"`
	Done   bool               `json:"done,omitempty"`
	Error  string             `json:"error,omitempty"`
	Result *engine.HostResult `json:"result,omitempty"`
	// Leftovers is what a cleanup could not remove (Error then holds the
	// rest of the error, if any).
	Leftovers []engine.Leftover `json:"leftovers,omitempty"`
	// Stopped says the agent was told to stop (a signal) and why: it ended
	// the phase, cleaned up, and is going away.
	Stopped string `json:"stopped,omitempty"`
	// Unsupported marks Error as engine.ErrUnsupported (bad input).
	Unsupported bool `json:"unsupported,omitempty"`
	// Removals are the records of background removals (settle streams).
	Removals []Removal `json:"removals,omitempty"`
	// Resources is a host's check of a phase's resources.
	Resources *Resources `json:"resources,omitempty"`
}

// timeBody is the body of GET /v1/time.
type timeBody struct {
	TimeNs int64 `json:"time_ns"`
}

// errorBody is the body of every non-2xx response.
type errorBody struct {
	Error string `json:"error"`
	// Stopped is set when the agent refuses because it was told to stop.
	Stopped string `json:"stopped,omitempty"`
}

// ErrLost marks an agent that stopped answering: its process died, its
// network went away, or it said nothing for DefaultSilence.
var ErrLost = errors.New("agent lost")

// ErrStopped marks an agent that was told to stop (SIGTERM or SIGINT on
// its host): it ended its phase, sent what it measured, cleaned up and
// went away. Later phases run without it, as without a lost one.
var ErrStopped = errors.New("agent stopped")

// tokenOK compares a request's bearer token with want in constant time.
func tokenOK(r *http.Request, want string) bool {
	got := r.Header.Get("Authorization")
	const prefix = "Bearer "
	if len(got) < len(prefix) || got[:len(prefix)] != prefix {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(got[len(prefix):]), []byte(want)) == 1
}

// protocolErr says what to do when the two sides speak different versions.
func protocolErr(agentProto int, agentVersion string, controllerProto string) error {
	return fmt.Errorf("protocol mismatch: the agent (storbench %s) speaks protocol %d, the controller protocol %s; run the same storbench version on both",
		agentVersion, agentProto, controllerProto)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeErr(w http.ResponseWriter, code int, format string, args ...any) {
	writeJSON(w, code, errorBody{Error: fmt.Sprintf(format, args...)})
}

var protoString = strconv.Itoa(Protocol)

// silenceFor is how long a side waits on a stream (a line to read, or to
// write) when agents wait timeout for a heartbeat: two seconds more, so
// that an agent that stopped its phase for want of heartbeats says so
// before the controller calls it lost.
func silenceFor(timeout time.Duration) time.Duration {
	return timeout + 2*time.Second
}
