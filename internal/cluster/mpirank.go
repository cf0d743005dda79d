package cluster

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/storbench/storbench/internal/engine"
)

// MPIRank is an agent started by --launcher mpiexec (agent --launched-by
// mpiexec), as one
// rank of the job: it knows its rank from MPICH's Hydra (PMI_RANK,
// PMI_SIZE, MPI_LOCALRANKID) and speaks PMI-1 with Hydra's proxy over
// PMI_FD, to share what rank 0 read on stdin and to learn when to stop.
type MPIRank struct {
	// Rank, Size and LocalRank are the rank, the job's ranks and the
	// rank's place among its host's ranks.
	Rank, Size, LocalRank int
	// token and secrets are what the launcher sent on stdin.
	token   string
	secrets engine.Secrets

	pmi  *pmiConn
	stop chan struct{}
	// clean says the stop barrier completed, so finalize may follow.
	clean bool
}

// stdinChunk is how much of the stdin message one PMI value holds, in
// bytes before hex: Hydra's values hold 1,024 characters at least.
const stdinChunk = 400

// JoinMPI joins the mpiexec job this agent is a rank of: rank 0 reads the
// token and keys from stdin and puts them in the job's key-value space,
// every rank waits at a barrier, the others get them. Then every rank but
// 0 enters the stop barrier, which rank 0 enters when its stdin ends: Done
// is closed when it completes, or when Hydra's proxy goes away.
func JoinMPI(getenv func(string) string, stdin io.Reader) (AgentSide, error) {
	rank, err1 := strconv.Atoi(getenv("PMI_RANK"))
	size, err2 := strconv.Atoi(getenv("PMI_SIZE"))
	fd, err3 := strconv.Atoi(getenv("PMI_FD"))
	if err1 != nil || err2 != nil || err3 != nil || rank < 0 || rank >= size || fd < 3 {
		return nil, errors.New("--launched-by mpiexec: this is not a rank of an MPICH mpiexec job (PMI_RANK, PMI_SIZE, PMI_FD): it is for agents started by --launcher mpiexec")
	}
	local, _ := strconv.Atoi(getenv("MPI_LOCALRANKID"))
	f := os.NewFile(uintptr(fd), "pmi")
	m := &MPIRank{Rank: rank, Size: size, LocalRank: local, pmi: &pmiConn{w: f, r: bufio.NewReader(f)}, stop: make(chan struct{})}
	kvs, err := m.pmi.init()
	if err != nil {
		return nil, fmt.Errorf("--launched-by mpiexec: PMI: %v", err)
	}
	var in *bufio.Reader
	if rank == 0 {
		in = bufio.NewReader(stdin)
		if m.token, m.secrets, err = ReadStdin(in); err != nil {
			return nil, err
		}
		msg := hex.EncodeToString([]byte(stdinMessage(m.token, m.secrets)))
		n := 0
		for ; len(msg) > 0; n++ {
			part := msg[:min(len(msg), 2*stdinChunk)]
			msg = msg[len(part):]
			if err := m.pmi.put(kvs, "storbench-stdin-"+strconv.Itoa(n), part); err != nil {
				return nil, fmt.Errorf("--launched-by mpiexec: PMI: %v", err)
			}
		}
		if err := m.pmi.put(kvs, "storbench-stdin-n", strconv.Itoa(n)); err != nil {
			return nil, fmt.Errorf("--launched-by mpiexec: PMI: %v", err)
		}
	}
	if err := m.pmi.barrier(); err != nil {
		return nil, fmt.Errorf("--launched-by mpiexec: PMI: %v", err)
	}
	if rank != 0 {
		if err := m.fetch(kvs); err != nil {
			return nil, fmt.Errorf("--launched-by mpiexec: PMI: %v", err)
		}
	}
	go m.watch(in)
	return m, nil
}

// fetch gets what rank 0 read on stdin from the key-value space.
func (m *MPIRank) fetch(kvs string) error {
	v, err := m.pmi.get(kvs, "storbench-stdin-n")
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 64 {
		return fmt.Errorf("storbench-stdin-n: %q", v)
	}
	var msg strings.Builder
	for i := range n {
		part, err := m.pmi.get(kvs, "storbench-stdin-"+strconv.Itoa(i))
		if err != nil {
			return err
		}
		msg.WriteString(part)
	}
	b, err := hex.DecodeString(msg.String())
	if err != nil {
		return err
	}
	m.token, m.secrets, err = ReadStdin(bufio.NewReader(strings.NewReader(string(b))))
	return err
}

// watch enters the stop barrier (rank 0 once its stdin ends) and closes
// stop when it completes or the proxy is gone.
func (m *MPIRank) watch(in *bufio.Reader) {
	defer close(m.stop)
	if in != nil {
		_, _ = io.Copy(io.Discard, in)
	}
	if m.pmi.barrier() == nil {
		m.clean = true
	}
}

// Secrets are the token and the engines' secrets the launcher sent.
func (m *MPIRank) Secrets() (string, engine.Secrets) { return m.token, m.secrets }

// Done is closed when the agent is to stop: the launcher closed mpiexec's
// stdin, or the job is going away.
func (m *MPIRank) Done() <-chan struct{} { return m.stop }

// Announce is the line telling the launcher this rank's port.
func (m *MPIRank) Announce(host string, port int) string {
	return FormatMPIAnnounce(m.Rank, m.LocalRank, host, port)
}

// Close finalizes PMI after the stop barrier, so Hydra sees a clean end.
func (m *MPIRank) Close() {
	select {
	case <-m.stop:
	default:
		return // the barrier is still pending: Hydra ends the rank anyway
	}
	if m.clean {
		_ = m.pmi.call("cmd=finalize", "finalize_ack")
	}
}

// pmiConn is the PMI-1 wire protocol ("cmd=... key=value" lines) on
// Hydra's PMI_FD.
type pmiConn struct {
	w io.Writer
	r *bufio.Reader
}

// call sends a command and reads the reply, which must be cmd=want (with
// rc=0 when it carries an rc), and returns its fields.
func (p *pmiConn) call(line, want string) error {
	_, err := p.fields(line, want)
	return err
}

func (p *pmiConn) fields(line, want string) (map[string]string, error) {
	if _, err := io.WriteString(p.w, line+"\n"); err != nil {
		return nil, err
	}
	reply, err := p.r.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("%s: %v", line, err)
	}
	got := map[string]string{}
	for _, kv := range strings.Fields(reply) {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	if got["cmd"] != want || (got["rc"] != "" && got["rc"] != "0") {
		return nil, fmt.Errorf("%s: the process manager answered %q", strings.Fields(line)[0], strings.TrimSpace(reply))
	}
	return got, nil
}

// init starts PMI-1 and returns the job's key-value space.
func (p *pmiConn) init() (string, error) {
	if err := p.call("cmd=init pmi_version=1 pmi_subversion=1", "response_to_init"); err != nil {
		return "", err
	}
	got, err := p.fields("cmd=get_my_kvsname", "my_kvsname")
	if err != nil {
		return "", err
	}
	return got["kvsname"], nil
}

func (p *pmiConn) put(kvs, key, value string) error {
	return p.call("cmd=put kvsname="+kvs+" key="+key+" value="+value, "put_result")
}

func (p *pmiConn) get(kvs, key string) (string, error) {
	got, err := p.fields("cmd=get kvsname="+kvs+" key="+key, "get_result")
	return got["value"], err
}

func (p *pmiConn) barrier() error { return p.call("cmd=barrier_in", "barrier_out") }
