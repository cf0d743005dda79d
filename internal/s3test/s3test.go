// Package s3test runs a real S3 server (versitygw with its posix backend) on a
// loopback port for tests, benchmarks and the demo. The binary is installed
// into <repo>/.tools when missing, with the pinned version the design names.
package s3test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/testutil"
)

// Version is the versitygw release tests run against.
const Version = "v1.8.0"

// Module is the package go install builds.
const Module = "github.com/versity/versitygw/cmd/versitygw"

// Fixed credentials of the test server. They open a throwaway server on
// loopback only and are never real secrets.
const (
	AccessKey = "storbenchtest"
	SecretKey = "storbenchtestsecret"
)

// Server is a running versitygw.
type Server struct {
	// Endpoint is host:port on loopback.
	Endpoint string
	// Root is the posix backend's directory: buckets are its subdirectories.
	Root string
	// TLS says the server speaks HTTPS only, with a self-signed
	// certificate for 127.0.0.1 and localhost whose PEM file is CAFile
	// (CA is the same certificate, parsed).
	TLS    bool
	CAFile string
	CA     *x509.CertPool
	bin    string
	cmd    *exec.Cmd
	done   chan struct{}
	err    error
	// release gives up the claim on the port Start picked (ClaimPort).
	release func()
}

// Options tune the server.
type Options struct {
	// Versioning enables bucket versioning (a versioning directory is made).
	Versioning bool
	// Port, when not zero, is the loopback port to listen on.
	Port int
	// IAM keeps users in a directory so CreateUser can add restricted ones.
	IAM bool
	// TLS serves HTTPS with a self-signed certificate made for the server
	// (Server.CAFile).
	TLS bool
	// AccessLog, when set, is a file versitygw logs every request to, the
	// client's address included.
	AccessLog string
}

var installMu sync.Mutex

// RepoRoot is testutil.RepoRoot, for the tests that start servers.
func RepoRoot() (string, error) { return testutil.RepoRoot() }

// Binary returns the path of versitygw, installing it into <repo>/.tools
// when it is not there yet. $STORBENCH_VERSITYGW overrides the path.
func Binary() (string, error) {
	if p := os.Getenv("STORBENCH_VERSITYGW"); p != "" {
		return p, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	tools := filepath.Join(root, ".tools")
	bin := filepath.Join(tools, "versitygw")
	installMu.Lock()
	defer installMu.Unlock()
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	cmd := exec.Command("go", "install", Module+"@"+Version)
	cmd.Env = append(os.Environ(), "GOBIN="+tools)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("installing versitygw %s: %v: %s", Version, err, out.Bytes())
	}
	return bin, nil
}

// Start launches versitygw on a free loopback port with a fresh posix root
// under dir, and waits until it answers.
func Start(dir string, o Options) (*Server, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	root := filepath.Join(dir, "gwroot")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	port, release := o.Port, func() {}
	if port == 0 {
		// Not a port of 127.0.0.1:0 closed again: another process here
		// could take it before versitygw binds it (ClaimPort).
		if port, release, err = testutil.ClaimPort(); err != nil {
			return nil, err
		}
	}
	s, err := start(bin, root, dir, port, o)
	if err != nil {
		release()
		return nil, err
	}
	s.release = release
	return s, nil
}

// start is Start on port.
func start(bin, root, dir string, port int, o Options) (*Server, error) {
	var err error
	endpoint := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	args := []string{"--port", endpoint, "--quiet", "--keep-alive"}
	var ca *x509.CertPool
	var caFile string
	if o.TLS {
		var keyFile string
		if caFile, keyFile, err = SelfSigned(dir); err != nil {
			return nil, err
		}
		pem, _ := os.ReadFile(caFile)
		ca = x509.NewCertPool()
		ca.AppendCertsFromPEM(pem)
		args = append(args, "--cert", caFile, "--key", keyFile)
	}
	if o.AccessLog != "" {
		args = append(args, "--access-log", o.AccessLog)
	}
	args = append(args, "posix")
	if o.Versioning {
		vdir := filepath.Join(dir, "versions")
		if err := os.MkdirAll(vdir, 0o755); err != nil {
			return nil, err
		}
		args = append(args, "--versioning-dir", vdir)
	}
	if o.IAM {
		iam := filepath.Join(dir, "iam")
		if err := os.MkdirAll(iam, 0o755); err != nil {
			return nil, err
		}
		args = append([]string{"--iam-dir", iam}, args...)
	}
	args = append(args, root)
	cmd := exec.Command(bin, args...)
	// Credentials through the environment keep them out of the process title.
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+AccessKey, "ROOT_SECRET_KEY="+SecretKey)
	var logBuf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logBuf, &logBuf
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{Endpoint: endpoint, Root: root, TLS: o.TLS, CAFile: caFile, CA: ca, bin: bin, cmd: cmd, done: make(chan struct{})}
	go func() { s.err = cmd.Wait(); close(s.done) }()
	if err := s.waitAnswer(ca, &logBuf); err != nil {
		return nil, err
	}
	return s, nil
}

// waitAnswer waits up to 15 s for the server to answer, and stops it when
// it does not; log is its output, for the error.
func (s *Server) waitAnswer(ca *x509.CertPool, log *bytes.Buffer) error {
	probe, scheme := http.DefaultClient, "http://"
	if s.TLS {
		probe = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca}}}
		scheme = "https://"
	}
	defer probe.CloseIdleConnections()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return fmt.Errorf("versitygw exited at start: %v: %s", s.err, log.Bytes())
		default:
		}
		resp, err := probe.Get(scheme + s.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.Stop()
	return fmt.Errorf("versitygw did not answer on %s within 15s", s.Endpoint)
}

// Pid is the versitygw process's id, for tests that stop and continue it
// (SIGSTOP, SIGCONT) as a server that hangs for a while.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Remote is a server on endpoint that this package did not start (a
// RADOS Gateway a test harness runs) with the test keys, AccessKey and
// SecretKey, for the tests written against a versitygw. Stop leaves it.
func Remote(endpoint string) *Server {
	s := &Server{Endpoint: endpoint, done: make(chan struct{})}
	close(s.done)
	return s
}

// Stop ends the server and waits for it to exit.
func (s *Server) Stop() {
	if s == nil || s.cmd == nil || s.cmd.Process == nil {
		return
	}
	select {
	case <-s.done:
	default:
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	if s.release != nil {
		s.release()
	}
}

// StartT is the testing helper: it starts a server for t, skipping the test
// with a clear message only when versitygw cannot be built here.
func StartT(t testing.TB, o Options) *Server {
	t.Helper()
	if _, err := Binary(); err != nil {
		t.Skipf("versitygw %s cannot be built, S3 tests need it: %v", Version, err)
	}
	s, err := Start(t.TempDir(), o)
	if err != nil {
		t.Fatalf("start versitygw: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

// SelfSigned writes a new self-signed ECDSA certificate for 127.0.0.1, ::1
// and localhost, valid for a day, and its key as PEM files in dir, and
// returns their paths. The certificate is its own CA: a client that trusts
// it (as a CA file) verifies the server.
func SelfSigned(dir string) (certFile, keyFile string, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return "", "", err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "storbench test S3"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return "", "", err
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", "", err
	}
	certFile, keyFile = filepath.Join(dir, "s3-cert.pem"), filepath.Join(dir, "s3-key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		return "", "", err
	}
	return certFile, keyFile, nil
}

// CreateUser adds a user with a versitygw role ("user" may not create
// buckets; "userplus" and "admin" may). The server must run with IAM.
func (s *Server) CreateUser(access, secret, role string) error {
	scheme, insecure := "http://", []string{}
	if s.TLS {
		scheme, insecure = "https://", []string{"--allow-insecure"}
	}
	cmd := exec.Command(s.bin, append(append([]string{"admin", "--endpoint-url", scheme + s.Endpoint}, insecure...),
		"create-user", "--access", access, "--secret", secret, "--role", role)...)
	cmd.Env = append(os.Environ(), "ADMIN_ACCESS_KEY="+AccessKey, "ADMIN_SECRET_KEY="+SecretKey)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("create user: %v: %s", err, out)
	}
	return nil
}
