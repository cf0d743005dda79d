package hosts

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// The longest a host name and each of its labels may be (RFC 1035: 255
// octets on the wire, 253 written out; 63 a label).
const (
	MaxName  = 253
	MaxLabel = 63
)

// CheckName refuses a host that is neither an IP address nor a host name as
// DNS and /etc/hosts accept one: dot-separated labels of letters, digits,
// '-' and '_', none empty, longer than 63 bytes, or starting or ending with
// '-'. A name starting with '-' would reach ssh as an option.
func CheckName(name string) error {
	if net.ParseIP(name) != nil {
		return nil
	}
	bad := func() error {
		return fmt.Errorf("host %q is malformed: want a host name (letters, digits, '-', '.') or an IP address", name)
	}
	n := strings.TrimSuffix(name, ".")
	if n == "" || len(n) > MaxName {
		return bad()
	}
	for _, label := range strings.Split(n, ".") {
		if label == "" || len(label) > MaxLabel || label[0] == '-' || label[len(label)-1] == '-' {
			return bad()
		}
		for _, c := range []byte(label) {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return bad()
			}
		}
	}
	return nil
}

// SplitHostPort splits "host:port" (or "[v6]:port") and checks both: the
// host with CheckName, the port for 1 to 65535.
func SplitHostPort(s string) (string, int, error) {
	h, p, err := net.SplitHostPort(s)
	if err != nil {
		return "", 0, fmt.Errorf("%q: want host:port", s)
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 {
		return "", 0, fmt.Errorf("%q: port %q is not a port number (1 to 65535)", s, p)
	}
	if err := CheckName(h); err != nil {
		return "", 0, err
	}
	return h, n, nil
}
