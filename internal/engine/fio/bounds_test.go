package fio

import (
	"strings"
	"testing"
)

// What fio --parse-only lets through but fio refuses when it starts (or
// runs without end) is refused by the plan's checks, with the option named.
func TestCheckBounds(t *testing.T) {
	for _, c := range []struct {
		text string
		ps   Params
		want string // "" for accepted
	}{
		{"[j]\nrw=read\nsize=1M\nnumjobs=100000\n", Params{}, "numjobs=100000"},
		{"[global]\nnumjobs=2048\n[a]\nsize=1M\n[b]\nsize=1M\n[c]\nsize=1M\n", Params{}, "at most 4096"},
		{"[j]\nrw=read\nsize=0\n", Params{}, "size=0"},
		{"[j]\nrw=read\nfilesize=0k\n", Params{}, "filesize=0k"},
		{"[j]\nrw=read\n", Params{}, "has no size"},
		{"[global]\nrw=read\nsize=1M\n", Params{}, "no job section"},
		{"[j]\nsize=1M\nruntime=-1\n", Params{}, "runtime=-1"},
		{"[j]\nsize=1M\nstartdelay=1-3\n", Params{}, ""},
		{"[j]\nsize=10M\nnumjobs=4096\n", Params{}, ""},
		{"[j]\nrw=read\n", Params{ReadFrom: ReadFromNeighbour}, ""},
		{"[j]\nrw=read\nsize=0\n", Params{Shared: true}, ""},
		{"[j]\nfilename=f\n", Params{}, ""},
	} {
		jf, err := ParseJobFile("t.fio", c.text)
		if err != nil {
			t.Fatal(err)
		}
		err = jf.checkBounds("t.fio", &c.ps)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q refused: %v", c.text, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
}
