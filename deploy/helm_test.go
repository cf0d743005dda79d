package deploy_test

// The Helm chart, rendered by the real helm: its values are checked, its
// objects fit together the way Kubernetes joins them (Service to pods, Secret
// and ConfigMap to mounts, the controller's agent list to the pods' DNS
// names), and the agent and controller command lines it holds are started
// for real, on loopback, so a chart storbench would refuse cannot pass.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/storbench/storbench/internal/hosts"
	"github.com/storbench/storbench/internal/s3test"
	"github.com/storbench/storbench/internal/testutil"
)

// helmBin finds helm: $STORBENCH_HELM (make test sets it), PATH, or
// <repo>/.tools/helm; the test is skipped, saying so, when there is none.
func helmBin(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("STORBENCH_HELM"); p != "" {
		return p
	}
	if p, err := exec.LookPath("helm"); err == nil {
		return p
	}
	if p := filepath.Join(repoRoot(t), ".tools", "helm"); fileExists(p) {
		return p
	}
	t.Skip("helm is missing: `make test` builds it into .tools/ (go install helm.sh/helm/v3/cmd/helm@v3.22.0); or set STORBENCH_HELM")
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func chartDir(t *testing.T) string { return filepath.Join(repoRoot(t), "deploy", "helm", "storbench") }

// helm runs helm and returns stdout, stderr and the error.
func helm(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(helmBin(t), args...)
	// No kubeconfig, no repositories: everything the chart needs is local.
	cmd.Env = append(baseEnv(), "HELM_CACHE_HOME="+t.TempDir(), "HELM_CONFIG_HOME="+t.TempDir(), "HELM_DATA_HOME="+t.TempDir())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// k8s objects, only the fields the tests read.
type (
	object struct {
		Kind     string `yaml:"kind"`
		Metadata struct {
			Name        string            `yaml:"name"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"metadata"`
		Spec struct {
			ClusterIP   string        `yaml:"clusterIP"`
			Selector    yaml.Node     `yaml:"selector"`
			Ports       []servicePort `yaml:"ports"`
			ServiceName string        `yaml:"serviceName"`
			Replicas    int           `yaml:"replicas"`
			Template    podTemplate   `yaml:"template"`
		} `yaml:"spec"`
		Data map[string]string `yaml:"data"`
	}
	servicePort struct {
		Name       string `yaml:"name"`
		Port       int    `yaml:"port"`
		TargetPort string `yaml:"targetPort"`
	}
	podTemplate struct {
		Metadata struct {
			Labels map[string]string `yaml:"labels"`
		} `yaml:"metadata"`
		Spec struct {
			RestartPolicy string      `yaml:"restartPolicy"`
			Containers    []container `yaml:"containers"`
			Volumes       []volume    `yaml:"volumes"`
		} `yaml:"spec"`
	}
	container struct {
		Name    string   `yaml:"name"`
		Image   string   `yaml:"image"`
		Command []string `yaml:"command"`
		Args    []string `yaml:"args"`
		Env     []struct {
			Name      string `yaml:"name"`
			Value     string `yaml:"value"`
			ValueFrom *struct {
				SecretKeyRef *struct {
					Name string `yaml:"name"`
					Key  string `yaml:"key"`
				} `yaml:"secretKeyRef"`
			} `yaml:"valueFrom"`
		} `yaml:"env"`
		Ports []struct {
			Name          string `yaml:"name"`
			ContainerPort int    `yaml:"containerPort"`
		} `yaml:"ports"`
		VolumeMounts []struct {
			Name      string `yaml:"name"`
			MountPath string `yaml:"mountPath"`
		} `yaml:"volumeMounts"`
	}
	volume struct {
		Name   string `yaml:"name"`
		Secret *struct {
			SecretName string `yaml:"secretName"`
		} `yaml:"secret"`
		ConfigMap *struct {
			Name string `yaml:"name"`
		} `yaml:"configMap"`
		PVC *struct {
			ClaimName string `yaml:"claimName"`
		} `yaml:"persistentVolumeClaim"`
		HostPath *struct {
			Path string `yaml:"path"`
		} `yaml:"hostPath"`
		EmptyDir any `yaml:"emptyDir"`
	}
)

// rendered is a chart rendered with some values.
type rendered struct {
	objs []object
}

// render runs helm template with the release name "bench" in namespace
// "lab" and parses every object.
func render(t *testing.T, args ...string) *rendered {
	t.Helper()
	out, errOut, err := helm(t, append([]string{"template", "bench", chartDir(t), "--namespace", "lab"}, args...)...)
	if err != nil {
		t.Fatalf("helm template %q: %v: %s", args, err, errOut)
	}
	r := &rendered{}
	dec := yaml.NewDecoder(strings.NewReader(out))
	for {
		var o object
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("helm template output is not YAML: %v\n%s", err, out)
		}
		if o.Kind != "" {
			r.objs = append(r.objs, o)
		}
	}
	return r
}

// one returns the only object of kind (name, if given).
func (r *rendered) one(t *testing.T, kind string, name string) object {
	t.Helper()
	var found []object
	for _, o := range r.objs {
		if o.Kind == kind && (name == "" || o.Metadata.Name == name) {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one %s %s, the chart renders %d", kind, name, len(found))
	}
	return found[0]
}

func (c container) mountOf(t *testing.T, p string) (string, string) {
	t.Helper()
	for _, m := range c.VolumeMounts {
		if p == m.MountPath || strings.HasPrefix(p, strings.TrimSuffix(m.MountPath, "/")+"/") {
			return m.Name, m.MountPath
		}
	}
	t.Fatalf("container %s: %s is on no volume (mounts %+v)", c.Name, p, c.VolumeMounts)
	return "", ""
}

func volumeNamed(t *testing.T, pt podTemplate, name string) volume {
	t.Helper()
	for _, v := range pt.Spec.Volumes {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no volume %s in %+v", name, pt.Spec.Volumes)
	return volume{}
}

// env resolves a container's environment the way the kubelet does, with
// secrets standing for the cluster's Secrets (name/key -> value).
func (c container) env(t *testing.T, secrets map[string]string) []string {
	t.Helper()
	var out []string
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
			ref := e.ValueFrom.SecretKeyRef.Name + "/" + e.ValueFrom.SecretKeyRef.Key
			v, ok := secrets[ref]
			if !ok {
				t.Fatalf("container %s: %s comes from Secret key %s, which the test does not provide", c.Name, e.Name, ref)
			}
			out = append(out, e.Name+"="+v)
		case e.ValueFrom != nil:
			t.Fatalf("container %s: %s: a valueFrom the test cannot resolve", c.Name, e.Name)
		default:
			out = append(out, e.Name+"="+e.Value)
		}
	}
	return out
}

// deployment is the parts of a rendered chart that must fit together.
type deployment struct {
	agent, controller container
	sts, job          object
}

// checkWiring asserts what Kubernetes needs for the controller to reach
// every agent with the shared token, read the suite and keep the results,
// and returns the agent and controller containers.
func checkWiring(t *testing.T, r *rendered, replicas int) deployment {
	t.Helper()
	sts := r.one(t, "StatefulSet", "")
	job := r.one(t, "Job", "")
	if len(sts.Spec.Template.Spec.Containers) != 1 || len(job.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("want one container in the agent pods and one in the controller pod")
	}
	d := deployment{agent: sts.Spec.Template.Spec.Containers[0], controller: job.Spec.Template.Spec.Containers[0], sts: sts, job: job}
	if sts.Spec.Replicas != replicas {
		t.Errorf("StatefulSet replicas %d, want %d", sts.Spec.Replicas, replicas)
	}
	if job.Spec.Template.Spec.RestartPolicy != "Never" {
		t.Errorf("Job restartPolicy %q: a failed run must not restart in place", job.Spec.Template.Spec.RestartPolicy)
	}
	agentArgs := append(d.agent.Command[1:], d.agent.Args...)
	ctrlArgs := append(d.controller.Command[1:], d.controller.Args...)
	if len(agentArgs) == 0 || agentArgs[0] != "agent" || len(ctrlArgs) == 0 || ctrlArgs[0] != "run" {
		t.Fatalf("agent command %q, controller command %q", agentArgs, ctrlArgs)
	}

	// The agent listens on the pod's address, on the port the Service names.
	listen := flagValue(agentArgs, "--listen")
	host, portText, err := net.SplitHostPort(listen)
	if err != nil {
		t.Fatalf("agent --listen %q: %v", listen, err)
	}
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		t.Errorf("agent --listen %q: loopback, the controller pod cannot reach it", listen)
	}
	port, _ := strconv.Atoi(portText)

	// The headless Service the StatefulSet names selects its pods.
	svc := r.one(t, "Service", sts.Spec.ServiceName)
	if svc.Spec.ClusterIP != "None" {
		t.Errorf("Service %s: clusterIP %q, want None (headless: one DNS name per agent pod)", svc.Metadata.Name, svc.Spec.ClusterIP)
	}
	var sel map[string]string
	if err := svc.Spec.Selector.Decode(&sel); err != nil || len(sel) == 0 {
		t.Fatalf("Service %s selects nothing: %v", svc.Metadata.Name, err)
	}
	for k, v := range sel {
		if sts.Spec.Template.Metadata.Labels[k] != v {
			t.Errorf("Service %s selects %s=%s, which the agent pods lack (%v)", svc.Metadata.Name, k, v, sts.Spec.Template.Metadata.Labels)
		}
	}
	if i := slices.IndexFunc(svc.Spec.Ports, func(p servicePort) bool { return p.Name == "agent" }); i < 0 || svc.Spec.Ports[i].Port != port {
		t.Errorf("Service ports %+v, want agent: the agents' %d", svc.Spec.Ports, port)
	}

	// --agents is every pod by its DNS name in that Service.
	list, err := hosts.Expand([]string{flagValue(ctrlArgs, "--agents")}, 0)
	if err != nil {
		t.Fatalf("controller --agents: %v", err)
	}
	var want []string
	for i := range replicas {
		want = append(want, fmt.Sprintf("%s-%d.%s.lab.svc:%d", sts.Metadata.Name, i, svc.Metadata.Name, port))
	}
	if !slices.Equal(list, want) {
		t.Errorf("controller --agents expands to %q, want the pods %q", list, want)
	}

	// Both read the token from the same Secret, as a file.
	tokenSecret := ""
	for _, side := range []struct {
		c    container
		args []string
		pt   podTemplate
	}{{d.agent, agentArgs, sts.Spec.Template}, {d.controller, ctrlArgs, job.Spec.Template}} {
		tf := flagValue(side.args, "--token-file")
		if tf == "" {
			t.Fatalf("%s: no --token-file in %q", side.c.Name, side.args)
		}
		vol, at := side.c.mountOf(t, tf)
		v := volumeNamed(t, side.pt, vol)
		if v.Secret == nil {
			t.Fatalf("%s: --token-file %s is not on a Secret volume", side.c.Name, tf)
		}
		if tokenSecret != "" && v.Secret.SecretName != tokenSecret {
			t.Errorf("agents read the token from Secret %s, the controller from %s", tokenSecret, v.Secret.SecretName)
		}
		tokenSecret = v.Secret.SecretName
		key := strings.TrimPrefix(tf, at+"/")
		if s := findObj(r, "Secret", tokenSecret); s != nil {
			if _, ok := s.Data[key]; !ok {
				t.Errorf("Secret %s has no key %s (--token-file %s)", tokenSecret, key, tf)
			}
		}
	}

	// The suite comes from the ConfigMap, the results go to a claim.
	suitePath := ctrlArgs[1]
	vol, at := d.controller.mountOf(t, suitePath)
	v := volumeNamed(t, job.Spec.Template, vol)
	if v.ConfigMap == nil {
		t.Fatalf("suite %s is not on a ConfigMap volume", suitePath)
	}
	if _, ok := r.one(t, "ConfigMap", v.ConfigMap.Name).Data[path.Base(suitePath)]; !ok || path.Dir(suitePath) != at {
		t.Errorf("ConfigMap %s has no %s", v.ConfigMap.Name, suitePath)
	}
	res := flagValue(ctrlArgs, "--results")
	vol, _ = d.controller.mountOf(t, res)
	if v := volumeNamed(t, job.Spec.Template, vol); v.PVC == nil {
		t.Errorf("--results %s is not on a PersistentVolumeClaim", res)
	}

	// The controller gets no S3 key: keys belong to the agents.
	for _, e := range d.controller.Env {
		if strings.Contains(e.Name, "KEY") {
			t.Errorf("the controller gets %s: S3 keys belong to the agents alone", e.Name)
		}
	}
	return d
}

func findObj(r *rendered, kind, name string) *object {
	for i, o := range r.objs {
		if o.Kind == kind && o.Metadata.Name == name {
			return &r.objs[i]
		}
	}
	return nil
}

// runChart starts one agent per replica with the StatefulSet's command and
// environment, and the Job's controller against them: paths that only exist
// in the pods (the token, the suite, the target, the results) and the
// addresses are replaced with local ones. It returns summary.json.
func runChart(t *testing.T, r *rendered, d deployment, secrets map[string]string) map[string]any {
	t.Helper()
	bin := testutil.StorbenchBin(t)
	tmp := t.TempDir()
	token := writeFile(t, tmp, "token", "deploy-test-token-0123456789abcdef\n", 0o600)

	agentArgs := append(d.agent.Command[1:], d.agent.Args...)
	agentArgs = replaceFlag(t, agentArgs, "--token-file", token)
	agentArgs = replaceFlag(t, agentArgs, "--listen", "127.0.0.1:0")
	agentEnv := append(baseEnv(), d.agent.env(t, secrets)...)
	var addrs []string
	for range d.sts.Spec.Replicas {
		addrs = append(addrs, startAgent(t, append([]string{bin}, freeMetrics(t, slices.Clone(agentArgs))...), agentEnv))
	}

	ctrlArgs := append(d.controller.Command[1:], d.controller.Args...)
	suite := r.one(t, "ConfigMap", "").Data[path.Base(ctrlArgs[1])]
	ctrlArgs[1] = writeFile(t, tmp, "suite.yaml", suite, 0o644)
	ctrlArgs = replaceFlag(t, ctrlArgs, "--agents", strings.Join(addrs, ","))
	ctrlArgs = replaceFlag(t, ctrlArgs, "--token-file", token)
	ctrlArgs = freeMetrics(t, ctrlArgs)
	results := filepath.Join(tmp, "results")
	ctrlArgs = replaceFlag(t, ctrlArgs, "--results", results)
	if flagValue(ctrlArgs, "--directory") != "" {
		target := filepath.Join(tmp, "target")
		if err := os.Mkdir(target, 0o755); err != nil {
			t.Fatal(err)
		}
		ctrlArgs = replaceFlag(t, ctrlArgs, "--directory", target)
	}
	out, code := runController(t, append([]string{bin}, ctrlArgs...), append(baseEnv(), d.controller.env(t, nil)...))
	if code != 0 {
		t.Fatalf("controller %q: exit %d\n%s", ctrlArgs, code, out)
	}
	return completedRun(t, results)
}

// freeMetrics moves --metrics-listen, where given, to a port free here
// (the agents of a test share one machine, the pods do not).
func freeMetrics(t *testing.T, args []string) []string {
	t.Helper()
	if flagValue(args, "--metrics-listen") == "" {
		return args
	}
	return replaceFlag(t, args, "--metrics-listen", fmt.Sprintf("127.0.0.1:%d", freePort(t)))
}

func TestHelmLint(t *testing.T) {
	for _, v := range []string{"file-values.yaml", "s3-values.yaml", "monitor-values.yaml"} {
		out, errOut, err := helm(t, "lint", "--strict", chartDir(t), "-f", filepath.Join(chartDir(t), "ci", v))
		if err != nil {
			t.Errorf("helm lint with ci/%s: %v\n%s%s", v, err, out, errOut)
		}
	}
}

// Values that cannot work fail at `helm template` (so at `helm install`),
// with one message saying what to set; nothing is rendered.
func TestHelmRefusesBadValues(t *testing.T) {
	file := []string{"--set", "target.hostPath.path=/mnt/fs"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no target", nil, "no target: set target.pvc.claimName"},
		{"empty target", []string{"--set", "target.hostPath.path=", "--set", "target.pvc.claimName="}, "no target"},
		{"pvc and hostPath", []string{"--set", "target.pvc.claimName=fs", "--set", "target.hostPath.path=/mnt/fs"}, "not both"},
		{"s3 without keys", []string{"--set", "target.s3.endpoint=s3:9000"}, "target.s3.credentialsSecret is not"},
		{"keys without s3", append([]string{"--set", "target.s3.credentialsSecret=keys"}, file...), "target.s3.endpoint is not"},
		{"relative mountPath", append([]string{"--set", "target.mountPath=data"}, file...), "want an absolute path"},
		{"zero replicas", append([]string{"--set", "agents.replicas=0"}, file...), "agents.replicas 0"},
		{"negative replicas", append([]string{"--set", "agents.replicas=-2"}, file...), "agents.replicas -2"},
		{"replicas not a number", append([]string{"--set", "agents.replicas=many"}, file...), "agents.replicas many"},
		{"more replicas than a controller takes", append([]string{"--set", fmt.Sprintf("agents.replicas=%d", hosts.DefaultLimit+1)}, file...), "want 1 to 1024"},
		{"port zero", append([]string{"--set", "agents.port=0"}, file...), "agents.port 0"},
		{"port too big", append([]string{"--set", "agents.port=70000"}, file...), "agents.port 70000"},
		{"no token key", append([]string{"--set", "token.key="}, file...), "token.key is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, err := helm(t, append([]string{"template", "bench", chartDir(t)}, tc.args...)...)
			if err == nil {
				t.Fatalf("helm template %q succeeded:\n%s", tc.args, out)
			}
			if !strings.Contains(errOut, tc.want) || out != "" {
				t.Errorf("helm template %q: want an error with %q and nothing rendered; stderr:\n%s\nstdout:\n%s", tc.args, tc.want, errOut, out)
			}
		})
	}
	// The chart's limit is the controller's: the most a host list expands to.
	r := render(t, append([]string{"--set", fmt.Sprintf("agents.replicas=%d", hosts.DefaultLimit)}, file...)...)
	if n := r.one(t, "StatefulSet", "").Spec.Replicas; n != hosts.DefaultLimit {
		t.Errorf("replicas %d, want %d", n, hosts.DefaultLimit)
	}
}

const tinyMD = `name: helm-md
phases:
  - md: {items: 20, workers: 2, iterations: 1}
`

// A file target: the chart's agents and controller, started as the chart
// writes them, run a metadata phase on two agents.
func TestHelmFileTargetRuns(t *testing.T) {
	t.Parallel()
	suite := writeFile(t, t.TempDir(), "suite.yaml", tinyMD, 0o644)
	r := render(t, "--set", "target.hostPath.path=/mnt/fs", "--set", "agents.replicas=2", "--set-file", "suite="+suite)
	d := checkWiring(t, r, 2)
	ctrlArgs := d.controller.Args
	if dir := flagValue(ctrlArgs, "--directory"); dir != "/data" {
		t.Errorf("controller --directory %q, want the target's mount /data", dir)
	}
	if name, _ := d.agent.mountOf(t, "/data"); volumeNamed(t, d.sts.Spec.Template, name).HostPath == nil {
		t.Errorf("/data in the agents is not the hostPath target")
	}
	sum := runChart(t, r, d, nil)
	for phase, hs := range phaseHosts(t, sum) {
		if len(hs) != 2 {
			t.Errorf("phase %s ran on %v, want both agents", phase, hs)
		}
	}
}

// An S3 target: the keys reach the agents from the Secret through their
// environment (checkWiring: not the controller), the endpoint reaches the
// controller, and an s3 phase runs on two agents against a real S3 server.
func TestHelmS3TargetRuns(t *testing.T) {
	t.Parallel()
	srv := s3test.StartT(t, s3test.Options{})
	suite := writeFile(t, t.TempDir(), "suite.yaml", `name: helm-s3
s3: {bucket: helm-s3}
phases:
  - s3: {op: put, obj_size: 4KiB, concurrent: 2, duration: 2s}
`, 0o644)
	r := render(t, "--set", "target.s3.endpoint="+srv.Endpoint, "--set", "target.s3.credentialsSecret=s3-keys",
		"--set", "agents.replicas=2", "--set-file", "suite="+suite)
	d := checkWiring(t, r, 2)
	if flagValue(d.controller.Args, "--directory") != "" {
		t.Errorf("an S3-only target passes --directory: %q", d.controller.Args)
	}
	sum := runChart(t, r, d, map[string]string{"s3-keys/accessKey": s3test.AccessKey, "s3-keys/secretKey": s3test.SecretKey})
	for phase, hs := range phaseHosts(t, sum) {
		if len(hs) != 2 {
			t.Errorf("phase %s ran on %v, want both agents", phase, hs)
		}
	}
}

// Without a suite the chart runs a default one for its target, which
// storbench accepts: the Job's command with --dry-run plans both phases.
func TestHelmDefaultSuite(t *testing.T) {
	r := render(t, "--set", "target.pvc.claimName=fs", "--set", "target.s3.endpoint=s3.example:9000", "--set", "target.s3.credentialsSecret=k")
	d := checkWiring(t, r, 2)
	tmp := t.TempDir()
	args := append(d.controller.Command[1:], d.controller.Args...)
	args[1] = writeFile(t, tmp, "suite.yaml", r.one(t, "ConfigMap", "").Data["suite.yaml"], 0o644)
	args = replaceFlag(t, args, "--token-file", writeFile(t, tmp, "token", "helm-default-suite-token-0123456789\n", 0o600))
	args = replaceFlag(t, args, "--results", filepath.Join(tmp, "results"))
	args = replaceFlag(t, args, "--directory", tmp)
	args = freeMetrics(t, args)
	out, code := runController(t, append([]string{testutil.StorbenchBin(t)}, append(args, "--dry-run")...), append(baseEnv(), d.controller.env(t, nil)...))
	if code != 0 {
		t.Fatalf("dry run of the default suite: exit %d\n%s", code, out)
	}
	for _, w := range []string{" md ", " s3 ", "2 phases"} {
		if !strings.Contains(out, w) {
			t.Errorf("dry run does not plan %q:\n%s", w, out)
		}
	}
	if fileExists(filepath.Join(tmp, "results")) {
		t.Errorf("a dry run wrote results")
	}
}
