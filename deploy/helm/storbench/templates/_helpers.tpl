{{/* The release's base name, at most 63 characters (a DNS label). */}}
{{- define "storbench.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/*
The StatefulSet's name. Its pods are <name>-0 ... <name>-(replicas-1), and
the suffix must leave room for them in a 63-character label.
*/}}
{{- define "storbench.agentName" -}}
{{- printf "%s-agent" (include "storbench.fullname" . | trunc 50 | trimSuffix "-") -}}
{{- end -}}

{{- define "storbench.agentService" -}}
{{- printf "%s-agents" (include "storbench.fullname" . | trunc 50 | trimSuffix "-") -}}
{{- end -}}

{{- define "storbench.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "storbench.agentSelector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: agent
{{- end -}}

{{- define "storbench.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{- define "storbench.tokenSecret" -}}
{{- .Values.token.existingSecret | default (printf "%s-token" (include "storbench.fullname" .)) -}}
{{- end -}}

{{/* Where the token Secret is mounted, in agents and controller alike. */}}
{{- define "storbench.tokenDir" -}}/etc/storbench/token{{- end -}}

{{/*
The target check: every template that needs the target includes this, so
`helm template` and `helm install` fail with one line saying what to set.
*/}}
{{- define "storbench.checkTarget" -}}
{{- $t := .Values.target -}}
{{- if and $t.pvc.claimName $t.hostPath.path -}}
{{- fail "target: set target.pvc.claimName or target.hostPath.path, not both (file phases run in one directory)" -}}
{{- end -}}
{{- if not (or $t.pvc.claimName $t.hostPath.path $t.s3.endpoint) -}}
{{- fail "no target: set target.pvc.claimName (an existing PersistentVolumeClaim) or target.hostPath.path (a directory on every node) for file phases, or target.s3.endpoint and target.s3.credentialsSecret for s3 phases" -}}
{{- end -}}
{{- if and $t.s3.endpoint (not $t.s3.credentialsSecret) -}}
{{- fail "target.s3.endpoint is set but target.s3.credentialsSecret is not: name an existing Secret holding the S3 keys (keys target.s3.accessKeyKey and target.s3.secretKeyKey)" -}}
{{- end -}}
{{- if and $t.s3.credentialsSecret (not $t.s3.endpoint) -}}
{{- fail "target.s3.credentialsSecret is set but target.s3.endpoint is not: give the S3 endpoint (host:port)" -}}
{{- end -}}
{{- if not (hasPrefix "/" $t.mountPath) -}}
{{- fail (printf "target.mountPath %q: want an absolute path" $t.mountPath) -}}
{{- end -}}
{{- $n := int .Values.agents.replicas -}}
{{- if or (lt $n 1) (gt $n 1024) -}}
{{- fail (printf "agents.replicas %v: want 1 to 1024 (the most agents one storbench controller takes)" .Values.agents.replicas) -}}
{{- end -}}
{{- $p := int .Values.agents.port -}}
{{- if or (lt $p 1) (gt $p 65535) -}}
{{- fail (printf "agents.port %v: want a port number, 1 to 65535" .Values.agents.port) -}}
{{- end -}}
{{- if .Values.metrics.enabled -}}
{{- $m := int .Values.metrics.port -}}
{{- if or (lt $m 1) (gt $m 65535) (eq $m $p) -}}
{{- fail (printf "metrics.port %v: want a port number, 1 to 65535, other than agents.port" .Values.metrics.port) -}}
{{- end -}}
{{- end -}}
{{- if and .Values.metrics.serviceMonitor.enabled (not .Values.metrics.enabled) -}}
{{- fail "metrics.serviceMonitor.enabled needs metrics.enabled: true (the pods serve no metrics without it)" -}}
{{- end -}}
{{- if and (include "storbench.dropCaches" .) (eq (toString .Values.agents.runAsRoot) "false") -}}
{{- fail "dropping caches (dropCaches, --drop-caches or the suite's drop_caches) needs root agents: agents.runAsRoot is false" -}}
{{- end -}}
{{- if not .Values.token.key -}}
{{- fail "token.key is empty: name the Secret's key that holds the token" -}}
{{- end -}}
{{- end -}}

{{- define "storbench.fileTarget" -}}
{{- if or .Values.target.pvc.claimName .Values.target.hostPath.path -}}true{{- end -}}
{{- end -}}

{{/*
The suite: the user's, or a default for the target: a metadata phase for a
file target, warp's mixed benchmark for an S3 target.
*/}}
{{- define "storbench.suite" -}}
{{- if .Values.suite -}}
{{- .Values.suite -}}
{{- else -}}
name: {{ .Release.Name }}
{{- if .Values.target.s3.endpoint }}
s3:
  bucket: storbench-{{ .Release.Name }}
{{- end }}
phases:
{{- if include "storbench.fileTarget" . }}
  - md: {items: 10000, workers: 4, iterations: 3, files_only: true, unique_dir: true}
{{- end }}
{{- if .Values.target.s3.endpoint }}
  - s3: {op: mixed, objects: 2500, obj_size: 1MiB, concurrent: 16, duration: 1m}
{{- end }}
{{- end -}}
{{- end -}}

{{/*
Whether the run drops the page cache: dropCaches, --drop-caches among the
controller's flags, or drop_caches: true in the suite.
*/}}
{{- define "storbench.dropCaches" -}}
{{- $suite := dict -}}
{{- if .Values.suite -}}{{- $suite = fromYaml .Values.suite -}}{{- end -}}
{{- if or .Values.dropCaches (has "--drop-caches" .Values.controller.extraArgs) (eq (toString (get $suite "drop_caches")) "true") -}}true{{- end -}}
{{- end -}}

{{/*
Whether the agents run as root: agents.runAsRoot if set, else only when a
hostPath target (a node's directory, usually root's) or dropping caches
needs it. S3-only runs and claims run as the image's user.
*/}}
{{- define "storbench.agentRoot" -}}
{{- if kindIs "invalid" .Values.agents.runAsRoot -}}
{{- if or .Values.target.hostPath.path (include "storbench.dropCaches" .) -}}true{{- end -}}
{{- else if .Values.agents.runAsRoot -}}true{{- end -}}
{{- end -}}

{{/* The non-root user of the image (scripts/image-rootfs.sh's passwd). */}}
{{- define "storbench.nonRootContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* The agents' pod securityContext: the chart's choice, then the user's. */}}
{{- define "storbench.agentPodSecurity" -}}
{{- $base := dict -}}
{{- if include "storbench.agentRoot" . -}}
{{- $base = dict "runAsUser" 0 "runAsGroup" 0 "seccompProfile" (dict "type" "RuntimeDefault") -}}
{{- else -}}
{{- $base = include "storbench.nonRootContext" . | fromYaml -}}
{{- end -}}
{{- toYaml (mustMergeOverwrite $base (deepCopy .Values.agents.podSecurityContext)) -}}
{{- end -}}

{{/*
The agent container's securityContext: privileged to drop caches (writing
/proc/sys/vm/drop_caches), else no privilege escalation and, as non-root,
no capabilities.
*/}}
{{- define "storbench.agentSecurity" -}}
{{- $base := dict "readOnlyRootFilesystem" true -}}
{{- if and (include "storbench.agentRoot" .) (include "storbench.dropCaches" .) -}}
{{- $_ := set $base "privileged" true -}}
{{- else -}}
{{- $_ := set $base "allowPrivilegeEscalation" false -}}
{{- if not (include "storbench.agentRoot" .) -}}
{{- $_ := set $base "capabilities" (dict "drop" (list "ALL")) -}}
{{- end -}}
{{- end -}}
{{- toYaml (mustMergeOverwrite $base (deepCopy .Values.agents.securityContext)) -}}
{{- end -}}

{{/* Where metrics are served in a pod: every address, the token required. */}}
{{- define "storbench.metricsListen" -}}0.0.0.0:{{ .Values.metrics.port }}{{- end -}}
