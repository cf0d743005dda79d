package cluster

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/storbench/storbench/internal/infile"
)

// The controller and the agent load their token and certificates from
// files named on their command lines; errors name those flags, so a user
// sees one line saying which file to fix.

// ReadToken reads a token file's first line (--token-file). A file that
// others can read is refused, as ssh refuses such a key (SecretFileMode).
func ReadToken(path string) (string, error) {
	b, err := infile.Read("--token-file", path, infile.TokenLimit)
	if infile.IsRefusal(err) {
		return "", err
	}
	if err != nil {
		return "", fmt.Errorf("--token-file: %v", err)
	}
	if err := SecretFileMode("--token-file", path); err != nil {
		return "", err
	}
	t, _, _ := strings.Cut(string(b), "\n")
	t = strings.TrimSpace(t)
	if t == "" {
		return "", fmt.Errorf("--token-file %s is empty", path)
	}
	return t, nil
}

// ClientTLS builds a controller's TLS configuration: agents verified
// against ca (--tls-ca), and a client certificate (--tls-cert, --tls-key)
// for agents that require one. It returns nil when none is given.
func ClientTLS(ca, cert, key string) (*tls.Config, error) {
	if ca == "" && cert == "" && key == "" {
		return nil, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca != "" {
		pool, err := loadPool(ca)
		if err != nil {
			return nil, err
		}
		tc.RootCAs = pool
	}
	if cert != "" || key != "" {
		if err := certPair(cert, key); err != nil {
			return nil, err
		}
		if err := SecretFileMode("--tls-key", key); err != nil {
			return nil, err
		}
		c, err := loadPair(cert, key)
		if err != nil {
			return nil, err
		}
		tc.Certificates = []tls.Certificate{c}
	}
	return tc, nil
}

// ServerTLS builds an agent's TLS configuration, or nil without a
// certificate: it serves HTTPS with cert and key (--tls-cert, --tls-key)
// and, with ca (--tls-ca), requires controllers to present a client
// certificate signed by it.
func ServerTLS(cert, key, ca string) (*tls.Config, error) {
	if cert == "" && key == "" {
		if ca != "" {
			return nil, errors.New("--tls-ca needs --tls-cert and --tls-key")
		}
		return nil, nil
	}
	if err := certPair(cert, key); err != nil {
		return nil, err
	}
	if err := SecretFileMode("--tls-key", key); err != nil {
		return nil, err
	}
	pair, err := loadPair(cert, key)
	if err != nil {
		return nil, err
	}
	// h2 first: an agent's listener is a tls.NewListener, which offers
	// no protocol unless told (http.Server.ServeTLS would add these).
	c := &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}
	if ca != "" {
		pool, err := loadPool(ca)
		if err != nil {
			return nil, err
		}
		c.ClientCAs, c.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return c, nil
}

// certPair refuses a certificate without its key or a key without its
// certificate, naming the missing flag.
func certPair(cert, key string) error {
	switch {
	case cert != "" && key == "":
		return errors.New("--tls-cert needs --tls-key (the certificate's private key, PEM)")
	case cert == "" && key != "":
		return errors.New("--tls-key needs --tls-cert (the certificate the key belongs to, PEM)")
	}
	return nil
}

// loadPair reads a certificate and its key (--tls-cert, --tls-key) as
// tls.LoadX509KeyPair does, each file read as every input is (infile).
func loadPair(cert, key string) (tls.Certificate, error) {
	var pem [2][]byte
	for i, f := range [2]struct{ flag, path string }{{"--tls-cert", cert}, {"--tls-key", key}} {
		b, err := infile.Read(f.flag, f.path, infile.SecretLimit)
		if infile.IsRefusal(err) {
			return tls.Certificate{}, err
		}
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("--tls-cert/--tls-key: %v", err)
		}
		pem[i] = b
	}
	c, err := tls.X509KeyPair(pem[0], pem[1])
	switch {
	case err == nil:
		return c, nil
	case strings.Contains(err.Error(), "in certificate input"):
		return tls.Certificate{}, fmt.Errorf("--tls-cert %s holds no PEM certificate: give the certificate's PEM file", cert)
	case strings.Contains(err.Error(), "in key input"):
		return tls.Certificate{}, fmt.Errorf("--tls-key %s holds no PEM private key: give the certificate's key (PEM)", key)
	}
	return tls.Certificate{}, fmt.Errorf("--tls-cert %s, --tls-key %s: %s", cert, key, strings.TrimPrefix(err.Error(), "tls: "))
}

func loadPool(path string) (*x509.CertPool, error) {
	b, err := infile.Read("--tls-ca", path, infile.SecretLimit)
	if infile.IsRefusal(err) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("--tls-ca: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("--tls-ca %s holds no PEM certificate", path)
	}
	return pool, nil
}

// SecretFileMode refuses a file holding a secret that users other than
// its owner may read or change, with ssh's rule for private keys: a file
// of this user's must give group and others nothing (mode 0600 or
// tighter); one owned by another user (root's, shared with a service's
// group) must at least give others nothing.
func SecretFileMode(flag, path string) error {
	// What is not a file is said as such (a device is not "open to
	// others"), before its mode.
	if err := infile.Check(flag, path); err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s: %v", flag, err)
	}
	mode := fi.Mode().Perm()
	open := mode & 0o007
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == os.Geteuid() {
		open = mode & 0o077
	}
	if open != 0 {
		return fmt.Errorf("%s %s is open to group or others (mode %04o): run chmod 600 %s (ssh refuses a key file so open)", flag, path, mode, path)
	}
	return nil
}
