package hosts

import (
	"reflect"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	cases := []struct {
		in   []string
		want []string
	}{
		{[]string{"client{1...3}:7761"}, []string{"client1:7761", "client2:7761", "client3:7761"}},
		{[]string{"a,b", "c"}, []string{"a", "b", "c"}},
		{[]string{"10.0.0.{9...10}"}, []string{"10.0.0.9", "10.0.0.10"}},
		{[]string{"node{01...03}"}, []string{"node01", "node02", "node03"}},
		{[]string{"r{1...2}n{1...2}"}, []string{"r1n1", "r1n2", "r2n1", "r2n2"}},
		{[]string{"a,a"}, []string{"a"}},
	}
	for _, c := range cases {
		got, err := Expand(c.in, 0)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestExpandBad(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{"h{5...1}", "empty"},
		{"h{1...5000}", "over the limit"},
		{"h{1..3}", "malformed"},
		{",", "names no host"},
	} {
		_, err := Expand([]string{c.in}, 0)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.in, err, c.want)
		}
	}
	if got, err := Expand([]string{"h{1...5000}"}, 10000); err != nil || len(got) != 5000 {
		t.Errorf("raised limit: %d %v", len(got), err)
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"client1", "node-01.rack_2.example.com", "s3.", "10.0.0.1", "::1", "fe80::1", "localhost", "local"} {
		if err := CheckName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "bad host!", "-oProxyCommand=sh", "a..b", "client/1", "host-", "x\ny", strings.Repeat("a", 64)} {
		if err := CheckName(bad); err == nil || !strings.Contains(err.Error(), "malformed") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	for _, bad := range []string{"127.0.0.1:99999", "127.0.0.1:", "h:0", "h:x", "h", "bad host:80"} {
		if _, _, err := SplitHostPort(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if h, p, err := SplitHostPort("[::1]:9000"); err != nil || h != "::1" || p != 9000 {
		t.Errorf("[::1]:9000: %s %d %v", h, p, err)
	}
}
