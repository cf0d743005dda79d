package cli

import (
	"context"
	"strings"
	"testing"
)

// An agent started as a Slurm task refuses a CPU count it cannot use,
// in one line naming the variable, before it listens.
func TestSlurmCPUsPerTaskBadInput(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"0", "-2", "two", "1.5"} {
		st, _ := testState()
		env := map[string]string{"SLURMD_NODENAME": "n1", "SLURM_PROCID": "0", "SLURM_LOCALID": "0", "SLURM_CPUS_PER_TASK": v}
		st.Getenv = func(k string) string { return env[k] }
		err := Execute(context.Background(), st, []string{"agent", "--slurm", "--stdin"})
		if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), `SLURM_CPUS_PER_TASK="`+v+`"`) {
			t.Errorf("SLURM_CPUS_PER_TASK=%s: exit %d, %v; want exit 2 naming it", v, ExitCode(err), err)
		}
	}
}
