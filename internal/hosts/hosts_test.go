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
