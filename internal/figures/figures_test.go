package figures

import "testing"

func TestParse(t *testing.T) {
	f, err := Parse("suite/randread/read/p99.9@client2")
	if err != nil || f != (Ref{Phase: "suite/randread", Op: "read", Name: P999, Host: "client2"}) {
		t.Fatalf("got %+v, %v", f, err)
	}
	for _, bad := range []string{"", "read/p99", "/read/p99", "randread//p99", "randread/read/p98"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
