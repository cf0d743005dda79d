package specs

import (
	"strconv"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/catalog"
)

// A spec's claims are read in their units and apply to the figures their
// names say: sequential bandwidth to seq phases, IOPS at a block size to
// rand phases whose name holds it, a named figure to it alone.
func TestSharesOfClaims(t *testing.T) {
	s, err := Parse([]byte(`name: Test NVMe
claims:
  seq_read_bw: 6GB/s
  seq_write_bw: 2 GiB/s
  rand_read_iops: {bs: 4k, value: 1M}
  md_create: {figure: md/create/rate, value: 50k}
`))
	if err != nil {
		t.Fatal(err)
	}
	figs := []catalog.Figure{
		{Phase: "seq-read", Op: "read", Name: "bw", Value: 3e9},
		{Phase: "seq-read", Op: "read", Name: "bw", Host: "client1", Value: 1e9},
		{Phase: "seq-read", Op: "read", Name: "rate", Value: 3000},
		{Phase: "seq-write", Op: "write", Name: "bw", Value: 1 << 30},
		{Phase: "rand-read-4k", Op: "read", Name: "rate", Value: 250e3},
		{Phase: "rand-read-64k", Op: "read", Name: "rate", Value: 50e3},
		{Phase: "md", Op: "create", Name: "rate", Value: 40e3},
		{Phase: "md", Op: "stat", Name: "rate", Value: 40e3},
	}
	var got []string
	for _, sh := range s.Shares(figs) {
		got = append(got, sh.Claim+" "+sh.Phase+"/"+sh.Op+" "+strconv.FormatFloat(sh.Pct, 'f', -1, 64))
	}
	want := []string{"seq_read_bw seq-read/read 50", "seq_write_bw seq-write/write 50", "rand_read_iops rand-read-4k/read 25", "md_create md/create 80"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("shares\n got %q\nwant %q", got, want)
	}
}

// Bad specs are refused with one line naming the claim and what to fix.
func TestBadSpecs(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"claims: [", "not a spec"},
		{"name: x\n", "no claims"},
		{"claims:\n  seq_read_bw: 6GB\n", `unknown unit "GB"`},
		{"claims:\n  seq_read_bw: 6 furlongs/s\n", "unknown unit"},
		{"claims:\n  seq_read_bw: 6000\n", "unknown unit"},
		{"claims:\n  seq_read_bw: -6GB/s\n", "more than 0"},
		{"claims:\n  rand_read_iops: 0\n", "more than 0"},
		{"claims:\n  rand_read_iops: {bs: 4k, value: 0k}\n", "more than 0"},
		{"claims:\n  rand_read_iops: {bs: four, value: 1M}\n", "bs"},
		{"claims:\n  rand_read_iops: {bs: 4k}\n", "no value"},
		{"claims:\n  rand_read_iops: {bs: 4k, value: 1M, colour: red}\n", "colour"},
		{"claims:\n  fast: 6GB/s\n", "unknown claim"},
		{"claims:\n  x: {figure: md/create/p99, value: 1}\n", "bw or rate"},
		{"claims:\n  seq_read_bw: 6GB/s\nvendor: acme\n", "vendor"},
	} {
		_, err := Parse([]byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line saying %q", tc.text, err, tc.want)
		}
	}
}
