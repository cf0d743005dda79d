package fio

import (
	"strings"
	"testing"
)

// storbench's three variables are filled in as fio will read the file:
// numbers, computed expressions, the shared directory as fio's
// directory= sees it; a wrong use is one line saying what to write.
func TestFill(t *testing.T) {
	v := Vars{Index: 2, Count: 3, SharedDir: "/mnt/fs/storbench/r/shared/fio"}
	for _, tc := range []struct {
		job  string
		vars Vars
		want string // the filled option line, or the error's words after "!"
	}{
		{"offset=${STORBENCH_HOST_INDEX}", v, "offset=2"},
		{"numjobs=${STORBENCH_HOST_COUNT}", v, "numjobs=3"},
		// IOR-hard's shape: host 2 of 3 with 2 jobs of 47,008-byte blocks.
		{"offset=(${STORBENCH_HOST_INDEX}*2*47008)", v, "offset=188032"},
		{"rw=write:((${STORBENCH_HOST_COUNT}*2-1)*47008)", v, "rw=write:235040"},
		{"size=(((4-1)*${STORBENCH_HOST_COUNT}*2+1)*47008)", v, "size=893152"},
		{"offset=( ${STORBENCH_HOST_INDEX} + 1 ) % ${STORBENCH_HOST_COUNT}", v, "offset=3 % 3"},
		{"offset=((${STORBENCH_HOST_INDEX}+1)%${STORBENCH_HOST_COUNT})", v, "offset=0"},
		{"size=(2^${STORBENCH_HOST_COUNT}*-1)", v, "size=-8"},
		{"size=(2*1024)", v, "size=(2*1024)"}, // no variable: fio's own
		{"filename=f.${STORBENCH_HOST_INDEX}:g", v, "filename=f.2:g"},
		{"filename=${STORBENCH_SHARED_DIR}/ior-hard", v, "filename=./ior-hard"},
		{"filename_format=${STORBENCH_SHARED_DIR}/$jobname.$jobnum", v, "filename_format=./$jobname.$jobnum"},
		{"description=in ${STORBENCH_SHARED_DIR}", v, "description=in /mnt/fs/storbench/r/shared/fio"},
		{"bs=${BS}", v, "bs=${BS}"}, // not storbench's: PathRules decide
		{"filename=${STORBENCH_SHARED_DIR}/x", Vars{Count: 1}, "!only a phase with shared: true"},
		{"write_bw_log=${STORBENCH_SHARED_DIR}/bw", v, "!only in filename= and filename_format="},
		{"opendir=${STORBENCH_SHARED_DIR}", v, "!only in filename= and filename_format="},
		{"description=${STORBENCH_SECRET_KEY}", v, "!no variable storbench fills in"},
		{"description=${storbench_host_index}", v, "!no variable storbench fills in"},
		{"offset=(${STORBENCH_HOST_IDX}*2)", v, "!no variable storbench fills in"},
		{"offset=(${STORBENCH_SHARED_DIR}*2)", v, "!a path, not a number"},
		{"startdelay=(${STORBENCH_HOST_INDEX}*2)", v, "!microseconds"},
		{"startdelay=${STORBENCH_HOST_INDEX}", v, "startdelay=2"},
		{"offset=(${STORBENCH_HOST_INDEX}/0)", v, "!division by zero"},
		{"offset=(${STORBENCH_HOST_INDEX}*4k)", v, "!not an expression storbench can compute"},
		{"offset=(${STORBENCH_HOST_INDEX}*9223372036854775807)", v, "!overflows"},
		{"offset=(2^(${STORBENCH_HOST_COUNT}*30))", v, "!overflows"},
		{"offset=((${STORBENCH_HOST_INDEX}*2)", v, "!unbalanced"},
		{"offset=(${STORBENCH_HOST_INDEX}*)", v, "!not an expression storbench can compute"},
		{"offset=(${STORBENCH_HOST_INDEX}*${N})", v, "!leave it out of the parentheses"},
	} {
		jf, err := ParseJobFile("j", "[j]\n"+tc.job+"\n")
		if err != nil {
			t.Fatal(err)
		}
		err = jf.Fill(tc.vars)
		if want, ok := strings.CutPrefix(tc.want, "!"); ok {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: got %v, want an error saying %q", tc.job, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.job, err)
			continue
		}
		o := jf.Sections[0].Options[0]
		if got := o.Key + "=" + o.Value; got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.job, got, tc.want)
		}
	}
}

func FuzzEvalArith(f *testing.F) {
	for _, s := range []string{"1+2*3", "(2^62)*2", "-(-9223372036854775807-1)", "7%-3", "((((1))))", "2^-1", "(-1)^9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = evalArith(s) // must not panic or loop
	})
}
