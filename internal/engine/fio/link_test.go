package fio

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/engine"
)

func linkParams(t *testing.T, p engine.Phase) Params {
	t.Helper()
	var ps Params
	if err := json.Unmarshal(p.Params, &ps); err != nil {
		t.Fatal(err)
	}
	return ps
}

// A read_from phase reads what an earlier phase wrote: Link finds that
// phase (the latest whose job makes the same files on the same directory),
// has it keep its files for the read, and has every phase with files in
// the shared area keep them while a later one uses them.
func TestLinkReadFrom(t *testing.T) {
	w := "[global]\nfilename_format=easy.$jobnum\nnumjobs=2\nsize=1m\n[w]\nrw=write\n"
	r := "[global]\nfilename_format=easy.$jobnum\nnumjobs=2\nsize=1m\n[r]\nrw=read\n"
	phases := []engine.Phase{
		sharedPhase(t, "write", "/mnt/a", w, Params{}),
		sharedPhase(t, "other", "/mnt/a", "[o]\nrw=randread\nsize=1m\n", Params{}),
		sharedPhase(t, "read", "/mnt/a", r, Params{ReadFrom: ReadFromNeighbour}),
		sharedPhase(t, "hard-write", "/mnt/a", "[h]\nrw=write\nfilename=hard\nsize=1m\n", Params{Shared: true}),
		sharedPhase(t, "hard-read", "/mnt/a", "[h]\nrw=read\nfilename=hard\nsize=1m\n", Params{Shared: true, ReadFrom: ReadFromNeighbour}),
	}
	out, err := Link(phases, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ runFiles, later bool }{{true, true}, {false, false}, {false, true}, {false, true}, {false, false}}
	for i, p := range out {
		ps := linkParams(t, p)
		if ps.RunFiles != want[i].runFiles || ps.Later != want[i].later {
			t.Errorf("%s: run_files %v later %v, want %v %v", p.Name, ps.RunFiles, ps.Later, want[i].runFiles, want[i].later)
		}
	}
	again, err := Link(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range out {
		if string(again[i].Params) != string(out[i].Params) {
			t.Errorf("%s: linked twice, %s then %s", out[i].Name, out[i].Params, again[i].Params)
		}
	}
}

// Bad input: read_from with nothing earlier that wrote its files is
// refused before anything runs, naming the phase and the files.
func TestLinkRefusesReadFromWithoutWriter(t *testing.T) {
	read := func(dir string, ps Params) engine.Phase {
		ps.ReadFrom = ReadFromNeighbour
		return sharedPhase(t, "read", dir, "[r]\nrw=read\nfilename_format=f.$jobnum\nnumjobs=2\n", ps)
	}
	write := func(dir, format string, ps Params) engine.Phase {
		return sharedPhase(t, "write", dir, "[w]\nrw=write\nfilename_format="+format+"\nnumjobs=2\n", ps)
	}
	for _, tc := range []struct {
		name   string
		phases []engine.Phase
		hosts  []int
		want   string
	}{
		{"no earlier phase", []engine.Phase{read("/d", Params{})}, nil, "no earlier fio phase on /d writes f.0, f.1"},
		{"after it, not before", []engine.Phase{read("/d", Params{}), write("/d", "f.$jobnum", Params{})}, nil, "no earlier fio phase"},
		{"other names", []engine.Phase{write("/d", "g.$jobnum", Params{}), read("/d", Params{})}, nil, "give the write and read phases the same filename= or filename_format="},
		{"other directory", []engine.Phase{write("/e", "f.$jobnum", Params{}), read("/d", Params{})}, nil, "no earlier fio phase on /d"},
		{"default names differ by job", []engine.Phase{
			sharedPhase(t, "write", "/d", "[w]\nrw=write\n", Params{}),
			sharedPhase(t, "read", "/d", "[r]\nrw=read\n", Params{ReadFrom: ReadFromNeighbour})}, nil, "writes r.0.0"},
		{"shared reads a shared file", []engine.Phase{write("/d", "f.$jobnum", Params{}), read("/d", Params{Shared: true})}, nil, "no earlier shared fio phase"},
		{"more hosts than wrote", []engine.Phase{write("/d", "f.$jobnum", Params{}), read("/d", Params{})}, []int{2, 4}, "reads on 4 hosts the files phase write wrote on 2"},
		{"a shared file on fewer hosts", []engine.Phase{write("/d", "f.$jobnum", Params{Shared: true}), read("/d", Params{Shared: true})}, []int{4, 2},
			"reads on 2 hosts the shared file phase write wrote on 4"},
	} {
		_, err := Link(tc.phases, tc.hosts)
		var le *LinkError
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &le) || tc.phases[le.Phase].Name != "read" {
			t.Errorf("%s: got %v, want a refusal of phase read saying %q", tc.name, err, tc.want)
		}
	}
	for _, hosts := range [][]int{{4, 2}, {2, 0}, nil} {
		if _, err := Link([]engine.Phase{
			sharedPhase(t, "write", "/d", "[w]\nrw=write\nfilename_format=f.$jobnum\nnumjobs=2\n", Params{}),
			read("/d", Params{})}, hosts); err != nil {
			t.Errorf("hosts %v (0: all, not known yet): %v", hosts, err)
		}
	}
}
