# storbench: build, demo, test and release. Each installs what it needs on a
# fresh machine: from the distribution's packages fio (demo, test), Chromium,
# rpm, systemd-analyze, prometheus, MPICH (test) and, as root, Slurm (test), podman
# (test, release), GlusterFS and Ceph (cluster-test); into ./.tools/
# versitygw (demo, test), helm (test) and nfpm (test, release).
GO        ?= go
TOOLS     := $(CURDIR)/.tools
VERSITYGW := $(TOOLS)/versitygw
VERSITYGW_VERSION := v1.8.0
HELM      := $(TOOLS)/helm
HELM_VERSION := v3.22.0
NFPM      := $(TOOLS)/nfpm
NFPM_VERSION := v2.45.2
BIN       := bin/storbench
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS   := -X github.com/storbench/storbench/internal/cli.Version=$(VERSION) -X github.com/storbench/storbench/internal/cli.Commit=$(COMMIT)

.PHONY: docs build demo test race test-hog cluster-test fio chromium tmux podman rpm systemd-analyze prometheus mpich slurm glusterfs moosefs ceph sysroot postgresql chart vet bench-fio bench-md bench-s3 tools release

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/storbench

# fio from the distribution, when it is missing.
fio:
	@command -v fio >/dev/null 2>&1 || scripts/install-pkg.sh fio

$(VERSITYGW):
	mkdir -p $(TOOLS)
	GOBIN=$(TOOLS) $(GO) install github.com/versity/versitygw/cmd/versitygw@$(VERSITYGW_VERSION)

# Debian's Chromium, for the test that opens report.html headless.
chromium:
	@command -v chromium >/dev/null 2>&1 || scripts/install-pkg.sh chromium

# Debian's tmux, for the test that reads the live line off a terminal.
tmux:
	@command -v tmux >/dev/null 2>&1 || scripts/install-pkg.sh tmux

# helm for the chart's lint and tests (a few minutes to build).
$(HELM):
	mkdir -p $(TOOLS)
	GOBIN=$(TOOLS) $(GO) install helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)

# nfpm builds the .deb and .rpm.
$(NFPM):
	mkdir -p $(TOOLS)
	GOBIN=$(TOOLS) $(GO) install github.com/goreleaser/nfpm/v2/cmd/nfpm@$(NFPM_VERSION)

# podman builds the OCI image; rpm reads the .rpm in the tests;
# systemd-analyze verifies the agent's unit.
podman:
	@command -v podman >/dev/null 2>&1 || scripts/install-pkg.sh podman
rpm:
	@command -v rpm >/dev/null 2>&1 || scripts/install-pkg.sh rpm
systemd-analyze:
	@command -v systemd-analyze >/dev/null 2>&1 || scripts/install-pkg.sh systemd

# Debian's Prometheus, which the metrics test starts on loopback to scrape
# an agent and a controller.
prometheus:
	@command -v prometheus >/dev/null 2>&1 || scripts/install-pkg.sh prometheus

# Debian's MPICH, whose mpiexec the --launcher mpiexec test runs on loopback.
mpich:
	@command -v mpiexec.mpich >/dev/null 2>&1 || scripts/install-pkg.sh mpich

# Debian's Slurm and munge, which the --launcher slurm test starts as root
# (it skips without root, so only root installs them).
slurm:
	@if [ "$$(id -u)" -eq 0 ]; then for p in munge:munged slurmctld:slurmctld slurmd:slurmd slurm-client:salloc; do \
	  command -v $${p#*:} >/dev/null 2>&1 || scripts/install-pkg.sh $${p%%:*}; done; fi

# Debian's Ceph - monitor, OSD, RADOS Gateway, MDS, ceph-fuse and their
# tools, without what they only recommend (258 MB, about 140 s) - which
# the radosgw and CephFS tests start as root (they skip without root, so
# only root installs it).
# Each package is named with a program it installs.
CEPH_PKGS := ceph-mon:ceph-mon ceph-osd:ceph-osd radosgw:radosgw ceph-common:radosgw-admin ceph-mds:ceph-mds ceph-fuse:ceph-fuse
ceph:
	@if [ "$$(id -u)" -eq 0 ]; then missing=""; for p in $(CEPH_PKGS); do \
	  command -v $${p#*:} >/dev/null 2>&1 || [ -x /usr/bin/$${p#*:} ] || missing="$$missing $${p%%:*}"; done; \
	  [ -z "$$missing" ] || scripts/install-pkg.sh --no-install-recommends $$missing; fi

# Debian's GlusterFS (server and FUSE client), which the cluster tests
# start as root: glusterd, a volume on loopback, one client per agent
# (they skip without root, so only root installs it).
glusterfs:
	@if [ "$$(id -u)" -eq 0 ]; then for p in glusterfs-server:glusterd glusterfs-client:glusterfs; do \
	  command -v $${p#*:} >/dev/null 2>&1 || [ -x /usr/sbin/$${p#*:} ] || scripts/install-pkg.sh $${p%%:*}; done; fi

# Debian's MooseFS (master, chunkserver, FUSE client: 3 MB), which the
# cluster tests start as root in a network namespace of their own (they
# skip without root, so only root installs it).
moosefs:
	@if [ "$$(id -u)" -eq 0 ]; then for p in moosefs-master:mfsmaster moosefs-chunkserver:mfschunkserver moosefs-client:mfsmount; do \
	  command -v $${p#*:} >/dev/null 2>&1 || [ -x /usr/sbin/$${p#*:} ] || scripts/install-pkg.sh $${p%%:*}; done; fi

# The other architecture's fio and libraries, which the image test
# assembles an image root from: downloaded once (a few minutes, as root,
# where the distribution's archive answers) into .tools/sysroot, reused
# after.
SYSROOT   := $(TOOLS)/sysroot
sysroot: fio
	@if [ "$$(id -u)" -eq 0 ] && [ ! -e $(SYSROOT)/.done ]; then \
	  arch=$$(case "$$($(GO) env GOARCH)" in amd64) echo arm64;; *) echo amd64;; esac); \
	  mkdir -p $(SYSROOT) && SYSROOT=$(SYSROOT)/$$arch scripts/image-rootfs.sh $$arch $(SYSROOT)/check-$$arch >/dev/null && \
	  rm -rf $(SYSROOT)/check-$$arch && touch $(SYSROOT)/.done || echo "sysroot: the $$arch packages could not be downloaded; the image test will try again"; fi

# Debian's PostgreSQL server, which the catalog's tests start on loopback
# as an unprivileged user (they skip without it).
postgresql:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || scripts/install-pkg.sh postgresql

tools: fio $(VERSITYGW) chromium tmux $(HELM) $(NFPM) podman rpm systemd-analyze prometheus mpich slurm glusterfs moosefs sysroot postgresql

# The Helm chart: lint with the CI values, and render (values without a
# target must fail: tested in deploy/helm_test.go).
chart: $(HELM)
	$(HELM) lint --strict deploy/helm/storbench -f deploy/helm/storbench/ci/file-values.yaml
	$(HELM) lint --strict deploy/helm/storbench -f deploy/helm/storbench/ci/s3-values.yaml
	$(HELM) template bench deploy/helm/storbench -f deploy/helm/storbench/ci/s3-values.yaml >/dev/null

# The README's first command: the built-in quick suite on ./storbench-data
# and a local S3 server.
demo: build fio $(VERSITYGW)
	scripts/demo.sh $(BIN)

# The command reference in docs/reference, from the commands' help
# (TestDocsReferenceIsTheHelp fails when it is out of date).
docs: build
	rm -rf docs/reference && $(BIN) docs markdown docs/reference

vet:
	$(GO) vet ./...

# The README's second command. storbench is built once for every package's
# tests that run it (STORBENCH_TEST_BIN), not linked again by each of the
# ten test binaries (17-90 s of CPU each on a loaded 2-core machine). The
# race detector runs in `make race` (CI runs both): it doubles the tests'
# CPU and triples their compilation, and make test's 2 cores are its
# limit.
GOTEST_ENV = STORBENCH_VERSITYGW=$(VERSITYGW) STORBENCH_HELM=$(HELM) STORBENCH_NFPM=$(NFPM) STORBENCH_SYSROOT=$(SYSROOT)
define run_tests
	@bin_tmp=$$(mktemp -d /tmp/storbench-test-bin.XXXXXX); \
	$(GO) build -ldflags '-X github.com/storbench/storbench/internal/catalog.builtForTests=1' -o $$bin_tmp/storbench ./cmd/storbench && \
	STORBENCH_TEST_BIN=$$bin_tmp/storbench $(GOTEST_ENV) $(GO) test $(1) ./...; \
	rc=$$?; rm -rf $$bin_tmp; exit $$rc
endef
test: tools vet chart
	$(call run_tests,-p 3 -timeout 35m)

# Every package's tests under the race detector (CI runs it after make
# test): about twice make test's CPU.
race: tools
	$(call run_tests,-race -p 3 -timeout 50m)

# make test beside a CPU hog of two busy loops per core, stopped whatever
# happens; prints the wall time and the load averages at start and end
# (issue 37: the tests pass on a machine other work keeps busy).
test-hog:
	bench/test-hog.sh $(MAKE) test

# The real-cluster tests (issues 23, 39 and 40). First the distributed
# file systems, one after the other: a GlusterFS replica-2 volume, a
# MooseFS of a master and two chunkservers, a CephFS (the Ceph harness's
# cluster with an MDS); on each a FUSE client per agent, each agent in its
# client's mount and network namespace, and the seeds' procedures, shared
# md and a server stopped mid-phase (internal/testutil/dfs); everything
# torn down after. make test runs only the GlusterFS and MooseFS smokes.
# Then (issue 39) the s3 engine against Ceph's RADOS Gateway on a one-OSD
# cluster of this machine (internal/testutil/ceph): the conformance
# suite, the benchmarks, s3 probe and the seed's warp procedure; about 2
# minutes. As root, with /dev/fuse; they skip and say why elsewhere.
# Last, scripts/cluster-leftovers.sh fails the target on what the run
# left: processes, FUSE mounts, namespaces, links, the daemons' system
# files, /tmp entries. The tests get a TMPDIR of their own (go test's
# work directories, the clusters' directories, the one storbench binary
# they all run, built first), which must be empty at the end (the
# screenshots go to bin/artifacts, or STORBENCH_ARTIFACTS). On a
# machine others use at the same time, IGNORE_TMP='REGEX' leaves their
# /tmp names out.
CLUSTER_PKGS := ./internal/testutil/gluster/ ./internal/testutil/moosefs/ ./internal/testutil/cephfs/
cluster-test: fio glusterfs moosefs ceph $(VERSITYGW)
	@run_tmp=$$(mktemp -d /tmp/storbench-cluster-test.XXXXXX); state=$$(mktemp -d /tmp/storbench-cluster-state.XXXXXX); \
	scripts/cluster-leftovers.sh snapshot $$state || exit 1; \
	export TMPDIR=$$run_tmp STORBENCH_CLUSTER_TEST=1 STORBENCH_VERSITYGW=$(VERSITYGW) STORBENCH_TEST_BIN=$$run_tmp/storbench \
		STORBENCH_ARTIFACTS=$${STORBENCH_ARTIFACTS:-$(CURDIR)/bin/artifacts}; rc=0; \
	$(GO) build -ldflags '-X github.com/storbench/storbench/internal/catalog.builtForTests=1' -o $$run_tmp/storbench ./cmd/storbench || rc=1; \
	if [ $$rc = 0 ]; then $(GO) test -count=1 -p 1 -timeout 40m -v -run 'TestGluster|TestMooseFS|TestCephFS' $(CLUSTER_PKGS) || rc=1; fi; \
	if [ $$rc = 0 ]; then $(GO) test -count=1 -timeout 10m -v -run 'TestRadosgw' ./internal/engine/s3/ || rc=1; fi; \
	rm -f $$run_tmp/storbench; RUN_TMP=$$run_tmp scripts/cluster-leftovers.sh check $$state || rc=1; \
	exit $$rc

# Release artefacts in dist/: static binaries for linux/amd64 and arm64, .deb
# and .rpm, OCI images, SHA256SUMS (scripts/release.sh). VERSION=v1.2.0 sets
# the version; by default git describe, or v0.0.0-git.HASH without a tag.
release: $(NFPM) podman
	$(if $(filter-out file,$(origin VERSION)),VERSION=$(VERSION)) NFPM=$(NFPM) GO=$(GO) scripts/release.sh dist

# storbench md against the raw syscall loop (issue 3's figures).
bench-md: build
	bench/md-vs-limit.sh $(BIN)

# storbench's PUT, GET and STAT rates on several S3 servers of this
# machine, side by side (issue 39's figures, docs/measuring.md): name
# them, running, with SERVERS="versitygw=127.0.0.1:7070
# radosgw=127.0.0.1:7480" and their keys in STORBENCH_ACCESS_KEY and
# STORBENCH_SECRET_KEY.
bench-s3: build
	bench/s3-servers.sh $(BIN) $(SERVERS)

# storbench against plain fio on the seed's read-IOPS job (issue 2's figures).
bench-fio: build fio
	bench/fio-vs-storbench.sh $(BIN)
