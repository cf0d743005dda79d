package cluster

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// The allocation comes from Slurm's variables as salloc and sbatch set
// them: node lists in Slurm's syntax, tasks per node in its compressed
// form, one agent per node when the job gave no task count.
func TestAllocationFromEnv(t *testing.T) {
	for _, c := range []struct {
		name  string
		env   map[string]string
		nodes []string
		tasks []int
		err   string
	}{
		{"outside an allocation", map[string]string{}, nil, nil, "not inside a Slurm allocation"},
		{"salloc -N3", map[string]string{"SLURM_JOB_ID": "7", "SLURM_JOB_NODELIST": "node[01-02,20]", "SLURM_TASKS_PER_NODE": "36(x3)"},
			[]string{"node01", "node02", "node20"}, []int{1, 1, 1}, ""},
		{"salloc -n3 on one node", map[string]string{"SLURM_JOB_ID": "7", "SLURM_JOB_NODELIST": "vm", "SLURM_NTASKS": "3", "SLURM_TASKS_PER_NODE": "3"},
			[]string{"vm"}, []int{3}, ""},
		{"uneven", map[string]string{"SLURM_JOBID": "7", "SLURM_NODELIST": "a[1-3],b", "SLURM_NTASKS": "7", "SLURM_TASKS_PER_NODE": "2(x3),1"},
			[]string{"a1", "a2", "a3", "b"}, []int{2, 2, 2, 1}, ""},
		{"no node list", map[string]string{"SLURM_JOB_ID": "7"}, nil, nil, "no SLURM_JOB_NODELIST"},
		{"tasks and nodes disagree", map[string]string{"SLURM_JOB_ID": "7", "SLURM_JOB_NODELIST": "a[1-2]", "SLURM_NTASKS": "2", "SLURM_TASKS_PER_NODE": "2"},
			nil, nil, "gives 1 nodes"},
		{"malformed tasks", map[string]string{"SLURM_JOB_ID": "7", "SLURM_JOB_NODELIST": "a", "SLURM_NTASKS": "2", "SLURM_TASKS_PER_NODE": "2(x"},
			nil, nil, "SLURM_TASKS_PER_NODE"},
		{"zero tasks", map[string]string{"SLURM_JOB_ID": "7", "SLURM_JOB_NODELIST": "a", "SLURM_NTASKS": "0", "SLURM_TASKS_PER_NODE": "0"},
			nil, nil, "SLURM_TASKS_PER_NODE"},
		{"huge", map[string]string{"SLURM_JOB_ID": "7", "SLURM_JOB_NODELIST": "a", "SLURM_NTASKS": "9", "SLURM_TASKS_PER_NODE": "1000000000"},
			nil, nil, "SLURM_TASKS_PER_NODE"},
		{"too many agents", map[string]string{"SLURM_JOB_ID": "7", "SLURM_JOB_NODELIST": "a[1-2]", "SLURM_NTASKS": "9", "SLURM_TASKS_PER_NODE": "4000(x2)"},
			nil, nil, "at most 4096 agents"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := AllocationFromEnv(func(k string) string { return c.env[k] })
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %v, want one line saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(a.Nodes, c.nodes) || !slices.Equal(a.Tasks, c.tasks) || a.JobID != "7" {
				t.Errorf("got %+v, want nodes %v tasks %v", a, c.nodes, c.tasks)
			}
		})
	}
	if _, err := AllocationFromEnv(func(string) string { return "" }); !errors.Is(err, ErrNoAllocation) {
		t.Errorf("outside an allocation: %v", err)
	}
}

// srun gets one task per agent, and --ntasks-per-node only when every
// node runs as many (srun's own layout follows the allocation otherwise).
func TestSrunArgs(t *testing.T) {
	even := strings.Join(Allocation{Nodes: []string{"a", "b"}, Tasks: []int{3, 3}}.srunArgs(), " ")
	for _, w := range []string{"--nodes=2", "--ntasks=6", "--ntasks-per-node=3", "--input=all", "--kill-on-bad-exit=0", "--label"} {
		if !strings.Contains(even, w) {
			t.Errorf("%q lacks %s", even, w)
		}
	}
	uneven := strings.Join(Allocation{Nodes: []string{"a", "b"}, Tasks: []int{2, 1}}.srunArgs(), " ")
	if !strings.Contains(uneven, "--ntasks=3") || strings.Contains(uneven, "--ntasks-per-node") {
		t.Errorf("uneven layout: %q", uneven)
	}
}

// The launcher reads agents' announcements among their other lines (srun
// --label prefixes them), and srun's error lines for the tasks that ended.
func TestAnnouncementsAndExits(t *testing.T) {
	an, ok := parseAnnounce("2: " + FormatAnnounce("node07", 2, 1, 40123))
	if !ok || an != (announcement{node: "node07", procid: 2, localid: 1, port: 40123}) {
		t.Errorf("parsed %+v %v", an, ok)
	}
	for _, bad := range []string{
		"storbench agent dev listening on [::]:40123",
		SlurmAnnounce + " node=a procid=1 localid=0 port=0",
		SlurmAnnounce + " node=-oProxy procid=1 localid=0 port=9",
		SlurmAnnounce + " node=a procid=x localid=0 port=9",
	} {
		if _, ok := parseAnnounce(bad); ok {
			t.Errorf("%q taken as an announcement", bad)
		}
	}
	for line, want := range map[string][]int{
		"srun: error: node07: task 3: Exited with exit code 2": {3},
		"srun: error: vm: tasks 0-2,5: Killed":                 {0, 1, 2, 5},
		"srun: error: vm: tasks 5-2: Killed":                   nil,
		"3: storbench: --listen: bad":                          nil,
		"srun: Job step aborted":                               nil,
	} {
		if got := exitedTasks(line); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", line, got, want)
		}
	}
}

// Agents are named after their node, with the local task id when a node
// runs several; a node with fewer agents than tasks is named with what
// srun and its task said.
func TestSlurmAgentNames(t *testing.T) {
	l := &SlurmLauncher{Alloc: Allocation{Nodes: []string{"n1", "n2", "n3"}, Tasks: []int{2, 2, 2}}}
	got := []announcement{{"n1", 1, 1, 9001}, {"n1", 0, 0, 9000}, {"n3", 4, 0, 9004}, {"n3", 5, 1, 9005}, {"n2", 2, 0, 9002}}
	srunErr := []string{"3: storbench: --listen :0: address already in use", "srun: error: n2: task 3: Exited with exit code 2"}
	agents, failed := l.agents(got, "tok", srunErr)
	var names, addrs []string
	for _, a := range agents {
		names, addrs = append(names, a.Host), append(addrs, a.Addr)
	}
	if want := []string{"n1-0", "n1-1", "n2-0", "n3-0", "n3-1"}; !slices.Equal(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
	if addrs[2] != "n2:9002" {
		t.Errorf("addresses %v", addrs)
	}
	if len(failed) != 1 || !strings.HasPrefix(failed[0], "n2: 1 of 2 agents started") || !strings.Contains(failed[0], "exit code 2") ||
		!strings.Contains(failed[0], "address already in use") {
		t.Errorf("failed: %q", failed)
	}
}
