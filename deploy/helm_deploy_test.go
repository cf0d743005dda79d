package deploy_test

// What makes the chart deployable beyond its wiring (helm_test.go): who the
// pods run as and what they mount, their resources, the metrics port and
// ServiceMonitor, a token Secret a GitOps tool can live with, and the way
// the results come out of their claim.

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/storbench/storbench/internal/testutil"
)

// raw renders the chart and returns its text and every object as a map.
func raw(t *testing.T, args ...string) (string, []map[string]any) {
	t.Helper()
	out, errOut, err := helm(t, append([]string{"template", "bench", chartDir(t), "--namespace", "lab"}, args...)...)
	if err != nil {
		t.Fatalf("helm template %q: %v: %s", args, err, errOut)
	}
	var objs []map[string]any
	dec := yaml.NewDecoder(strings.NewReader(out))
	for {
		var o map[string]any
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			return out, objs
		}
		if err != nil {
			t.Fatalf("helm template output is not YAML: %v", err)
		}
		if o != nil {
			objs = append(objs, o)
		}
	}
}

// get walks a path of map keys and list indexes ("spec.template.spec").
func get(v any, p string) any {
	for _, k := range strings.Split(p, ".") {
		switch m := v.(type) {
		case map[string]any:
			v = m[k]
		case []any:
			var i int
			if _, err := fmt.Sscan(k, &i); err != nil || i >= len(m) {
				return nil
			}
			v = m[i]
		default:
			return nil
		}
	}
	return v
}

func kinds(objs []map[string]any, kind string) []map[string]any {
	var out []map[string]any
	for _, o := range objs {
		if o["kind"] == kind {
			out = append(out, o)
		}
	}
	return out
}

// pods returns the pod specs of the agents' StatefulSet and the Job.
func pods(t *testing.T, objs []map[string]any) (agent, controller map[string]any) {
	t.Helper()
	sts, job := kinds(objs, "StatefulSet"), kinds(objs, "Job")
	if len(sts) != 1 || len(job) != 1 {
		t.Fatalf("%d StatefulSets and %d Jobs, want one of each", len(sts), len(job))
	}
	return get(sts[0], "spec.template.spec").(map[string]any), get(job[0], "spec.template.spec").(map[string]any)
}

const s3Only = "--set target.s3.endpoint=s3.example:9000 --set target.s3.credentialsSecret=s3-keys"

// An S3-only run and a claim run as the image's user 65532, with no
// hostPath, no privilege escalation and no capabilities; a hostPath target
// runs its agents as root, and dropping caches (asked in any of three ways)
// makes them privileged root. The controller never runs as root.
func TestHelmRunsAsRootOnlyWhenAsked(t *testing.T) {
	suite := writeFile(t, t.TempDir(), "suite.yaml", "name: dc\ndrop_caches: true\nphases:\n  - md: {items: 20}\n", 0o644)
	for _, tc := range []struct {
		name             string
		args             string
		root, privileged bool
	}{
		{"s3 only", s3Only, false, false},
		{"claim", "--set target.pvc.claimName=fs", false, false},
		{"hostPath", "--set target.hostPath.path=/mnt/fs", true, false},
		{"dropCaches", "--set target.pvc.claimName=fs --set dropCaches=true", true, true},
		{"--drop-caches", "--set target.pvc.claimName=fs --set controller.extraArgs={--drop-caches}", true, true},
		{"suite drop_caches", "--set target.pvc.claimName=fs --set-file suite=" + suite, true, true},
		{"runAsRoot false", "--set target.hostPath.path=/mnt/fs --set agents.runAsRoot=false", false, false},
		{"runAsRoot true", s3Only + " --set agents.runAsRoot=true", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, objs := raw(t, strings.Fields(tc.args)...)
			agent, ctrl := pods(t, objs)
			for _, side := range []struct {
				name       string
				pod        map[string]any
				root, priv bool
			}{{"agents", agent, tc.root, tc.privileged}, {"controller", ctrl, false, false}} {
				psc := side.pod["securityContext"]
				csc := get(side.pod, "containers.0.securityContext")
				uid, _ := get(psc, "runAsUser").(int)
				if side.root != (uid == 0) || (!side.root && (uid != 65532 || get(psc, "runAsNonRoot") != true)) {
					t.Errorf("%s: runAsUser %v runAsNonRoot %v, want root %v (else 65532, runAsNonRoot)", side.name, get(psc, "runAsUser"), get(psc, "runAsNonRoot"), side.root)
				}
				if priv := get(csc, "privileged") == true; priv != side.priv {
					t.Errorf("%s: privileged %v, want %v", side.name, priv, side.priv)
				}
				if !side.priv && get(csc, "allowPrivilegeEscalation") != false {
					t.Errorf("%s: allowPrivilegeEscalation %v, want false", side.name, get(csc, "allowPrivilegeEscalation"))
				}
				if !side.root && fmt.Sprint(get(csc, "capabilities.drop")) != "[ALL]" {
					t.Errorf("%s: capabilities %v, want every one dropped", side.name, get(csc, "capabilities"))
				}
				for _, v := range side.pod["volumes"].([]any) {
					if get(v, "hostPath") != nil && !strings.Contains(tc.args, "hostPath") {
						t.Errorf("%s: a hostPath volume %v without a hostPath target", side.name, v)
					}
				}
			}
			if tc.privileged && !slices.Contains(argsOf(ctrl), "--drop-caches") && tc.name != "suite drop_caches" {
				t.Errorf("dropping caches but the controller runs without --drop-caches: %q", argsOf(ctrl))
			}
			if n := strings.Count(strings.Join(argsOf(ctrl), " "), "--drop-caches"); n > 1 {
				t.Errorf("--drop-caches %d times: %q", n, argsOf(ctrl))
			}
		})
	}
	_, errOut, err := helm(t, "template", "bench", chartDir(t), "--set", "target.pvc.claimName=fs", "--set", "dropCaches=true", "--set", "agents.runAsRoot=false")
	if err == nil || !strings.Contains(errOut, "needs root agents: agents.runAsRoot is false") {
		t.Errorf("dropCaches with runAsRoot=false: %v, want a refusal naming agents.runAsRoot; stderr: %s", err, errOut)
	}
}

// volField returns a field of the pod's volume named name.
func volField(pod map[string]any, name, field string) any {
	vols, _ := pod["volumes"].([]any)
	for _, v := range vols {
		if get(v, "name") == name {
			return get(v, field)
		}
	}
	return nil
}

func argsOf(pod map[string]any) []string {
	var out []string
	for _, a := range get(pod, "containers.0.args").([]any) {
		out = append(out, fmt.Sprint(a))
	}
	return out
}

// Agents and controller reserve CPU and memory and have a memory limit;
// the agents have no CPU limit (throttling would show as storage latency).
func TestHelmResources(t *testing.T) {
	_, objs := raw(t, strings.Fields(s3Only)...)
	agent, ctrl := pods(t, objs)
	for name, pod := range map[string]map[string]any{"agents": agent, "controller": ctrl} {
		res := get(pod, "containers.0.resources")
		for _, k := range []string{"requests.cpu", "requests.memory", "limits.memory"} {
			if get(res, k) == nil {
				t.Errorf("%s: no %s in %v", name, k, res)
			}
		}
	}
	if cpu := get(agent, "containers.0.resources.limits.cpu"); cpu != nil {
		t.Errorf("agents: a CPU limit %v", cpu)
	}
}

// freePort returns a TCP port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// The agents serve metrics on a named port the headless Service exposes,
// only to a scraper with the token: the rendered agent command is started
// and scraped with and without it. The controller has the port too.
func TestHelmMetricsPort(t *testing.T) {
	r := render(t, "--set", "target.pvc.claimName=fs", "--set", "metrics.port=9800")
	d := checkWiring(t, r, 2)
	for _, c := range []container{d.agent, d.controller} {
		if l := flagValue(c.Args, "--metrics-listen"); l != "0.0.0.0:9800" {
			t.Errorf("%s --metrics-listen %q, want every address, port 9800", c.Name, l)
		}
		if i := slices.IndexFunc(c.Ports, func(p struct {
			Name          string `yaml:"name"`
			ContainerPort int    `yaml:"containerPort"`
		}) bool {
			return p.Name == "metrics"
		}); i < 0 || c.Ports[i].ContainerPort != 9800 {
			t.Errorf("%s ports %+v, want metrics 9800", c.Name, c.Ports)
		}
	}
	svc := r.one(t, "Service", d.sts.Spec.ServiceName)
	if i := slices.IndexFunc(svc.Spec.Ports, func(p servicePort) bool { return p.Name == "metrics" }); i < 0 || svc.Spec.Ports[i].TargetPort != "metrics" {
		t.Errorf("agent Service ports %+v, want metrics -> metrics", svc.Spec.Ports)
	}

	// The agent as the chart starts it: metrics on every address, token
	// required.
	tmp := t.TempDir()
	token := writeFile(t, tmp, "token", "metrics-test-token-0123456789abcdef\n", 0o600)
	port := freePort(t)
	args := append(d.agent.Command, d.agent.Args...)
	args[0] = testutil.StorbenchBin(t)
	args = replaceFlag(t, args, "--token-file", token)
	args = replaceFlag(t, args, "--listen", "127.0.0.1:0")
	args = replaceFlag(t, args, "--metrics-listen", fmt.Sprintf("0.0.0.0:%d", port))
	startAgent(t, args, baseEnv())
	url := fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("scrape without the token: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("scrape without the token: %s, want 401", resp.Status)
	}
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer metrics-test-token-0123456789abcdef")
	resp, err = client.Do(req)
	if err != nil {
		t.Fatalf("scrape with the token: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "storbench_") {
		t.Errorf("scrape with the token: %s, want 200 and storbench series:\n%.400s", resp.Status, body)
	}

	// metrics.enabled=false: no flag, no port.
	r = render(t, "--set", "target.pvc.claimName=fs", "--set", "metrics.enabled=false")
	d = checkWiring(t, r, 2)
	if flagValue(d.agent.Args, "--metrics-listen") != "" || len(d.agent.Ports) != 1 {
		t.Errorf("metrics disabled: agent args %q ports %+v", d.agent.Args, d.agent.Ports)
	}
}

// No ServiceMonitor unless asked; asked, it selects the agents' Service
// (and the controller's with controller: true) on the metrics port and
// sends the token from the pods' Secret.
func TestHelmServiceMonitor(t *testing.T) {
	_, objs := raw(t, strings.Fields(s3Only)...)
	if n := len(kinds(objs, "ServiceMonitor")); n != 0 {
		t.Errorf("%d ServiceMonitors by default, want none (the CRD may be absent)", n)
	}
	for _, withController := range []bool{false, true} {
		_, objs = raw(t, append(strings.Fields(s3Only), "--set", "metrics.serviceMonitor.enabled=true",
			"--set", fmt.Sprintf("metrics.serviceMonitor.controller=%v", withController), "--set", "metrics.serviceMonitor.labels.release=prom")...)
		sms := kinds(objs, "ServiceMonitor")
		if len(sms) != 1 {
			t.Fatalf("%d ServiceMonitors, want 1", len(sms))
		}
		sm := sms[0]
		if get(sm, "metadata.labels.release") != "prom" {
			t.Errorf("ServiceMonitor labels %v, want release=prom", get(sm, "metadata.labels"))
		}
		agent, ctrl := pods(t, objs)
		tokenSecret := volField(agent, "token", "secret.secretName")
		if get(sm, "spec.endpoints.0.port") != "metrics" || get(sm, "spec.endpoints.0.authorization.credentials.name") != tokenSecret ||
			get(sm, "spec.endpoints.0.authorization.credentials.key") != "token" {
			t.Errorf("ServiceMonitor endpoint %v, want port metrics with the token of Secret %v", get(sm, "spec.endpoints"), tokenSecret)
		}
		// Which Services it selects: each selected one must expose metrics
		// and select pods that serve them.
		var selected []string
		for _, svc := range kinds(objs, "Service") {
			if selects(sm, get(svc, "metadata.labels").(map[string]any)) {
				selected = append(selected, fmt.Sprint(get(svc, "metadata.name")))
			}
		}
		want := []string{"bench-storbench-agents"}
		if withController {
			want = append(want, "bench-storbench-controller")
			sel := get(kinds(objs, "Service")[slices.IndexFunc(kinds(objs, "Service"), func(o map[string]any) bool {
				return get(o, "metadata.name") == "bench-storbench-controller"
			})], "spec.selector").(map[string]any)
			job := kinds(objs, "Job")[0]
			for k, v := range sel {
				if get(job, "spec.template.metadata.labels").(map[string]any)[k] != v {
					t.Errorf("controller Service selects %s=%v, which the Job's pod lacks", k, v)
				}
			}
			if !slices.Contains(argsOf(ctrl), "--metrics-listen") {
				t.Errorf("controller scraped but serves no metrics: %q", argsOf(ctrl))
			}
		}
		slices.Sort(selected)
		if !slices.Equal(selected, want) {
			t.Errorf("controller %v: ServiceMonitor selects %q, want %q", withController, selected, want)
		}
	}
	_, errOut, err := helm(t, append([]string{"template", "bench", chartDir(t)}, append(strings.Fields(s3Only), "--set", "metrics.serviceMonitor.enabled=true", "--set", "metrics.enabled=false")...)...)
	if err == nil || !strings.Contains(errOut, "needs metrics.enabled") {
		t.Errorf("a ServiceMonitor without metrics: %v, want a refusal; stderr: %s", err, errOut)
	}
}

// selects applies a ServiceMonitor's label selector (matchLabels and In
// expressions) to labels.
func selects(sm map[string]any, labels map[string]any) bool {
	for k, v := range get(sm, "spec.selector.matchLabels").(map[string]any) {
		if labels[k] != v {
			return false
		}
	}
	exprs, _ := get(sm, "spec.selector.matchExpressions").([]any)
	for _, e := range exprs {
		if get(e, "operator") != "In" {
			return false
		}
		vals, _ := get(e, "values").([]any)
		if !slices.Contains(vals, labels[fmt.Sprint(get(e, "key"))]) {
			return false
		}
	}
	return true
}

// GitOps: with token.existingSecret the chart renders no Secret, the pods
// read that one, and two renderings are the same bytes (a random token
// would make every sync a change, as it does without existingSecret).
func TestHelmExistingSecretRendersTheSame(t *testing.T) {
	args := append(strings.Fields(s3Only), "--set", "token.existingSecret=bench-token", "--set", "metrics.serviceMonitor.enabled=true")
	first, objs := raw(t, args...)
	if n := len(kinds(objs, "Secret")); n != 0 {
		t.Errorf("with token.existingSecret the chart renders %d Secrets, want none", n)
	}
	agent, ctrl := pods(t, objs)
	for name, pod := range map[string]map[string]any{"agents": agent, "controller": ctrl} {
		if s := volField(pod, "token", "secret.secretName"); s != "bench-token" {
			t.Errorf("%s read the token from %v, want bench-token", name, s)
		}
	}
	if s := get(kinds(objs, "ServiceMonitor")[0], "spec.endpoints.0.authorization.credentials.name"); s != "bench-token" {
		t.Errorf("the ServiceMonitor sends the token of %v, want bench-token", s)
	}
	if second, _ := raw(t, args...); second != first {
		t.Errorf("two renderings with token.existingSecret differ")
	}
	a, _ := raw(t, strings.Fields(s3Only)...)
	if b, _ := raw(t, strings.Fields(s3Only)...); a == b {
		t.Errorf("without existingSecret two renderings are the same: the generated token is not random")
	}
}

// The results come out through a reader pod on the results claim
// (read-only), with tar for kubectl cp; none unless asked.
func TestHelmResultsReader(t *testing.T) {
	_, objs := raw(t, strings.Fields(s3Only)...)
	if n := len(kinds(objs, "Pod")); n != 0 {
		t.Errorf("%d Pods by default, want none", n)
	}
	for _, claim := range []string{"", "old-results"} {
		args := append(strings.Fields(s3Only), "--set", "results.reader.enabled=true", "--set", "results.existingClaim="+claim)
		_, objs = raw(t, args...)
		ps := kinds(objs, "Pod")
		if len(ps) != 1 {
			t.Fatalf("%d reader Pods, want 1", len(ps))
		}
		p := ps[0]
		_, ctrl := pods(t, objs)
		resultsClaim := volField(ctrl, "results", "persistentVolumeClaim.claimName")
		if c := get(p, "spec.volumes.0.persistentVolumeClaim.claimName"); c != resultsClaim || c == nil {
			t.Errorf("reader mounts claim %v, the controller writes to %v", c, resultsClaim)
		}
		if get(p, "spec.containers.0.volumeMounts.0.readOnly") != true || get(p, "spec.containers.0.volumeMounts.0.mountPath") != "/results" {
			t.Errorf("reader mount %v, want /results read-only", get(p, "spec.containers.0.volumeMounts"))
		}
		if img := fmt.Sprint(get(p, "spec.containers.0.image")); strings.Contains(img, "storbench") {
			t.Errorf("reader image %s: kubectl cp needs tar, which the storbench image lacks", img)
		}
		if get(p, "spec.securityContext.runAsNonRoot") != true {
			t.Errorf("reader runs as root: %v", get(p, "spec.securityContext"))
		}
	}
}
