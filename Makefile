# storbench: build, demo and test. `make test` and `make demo` install what
# they need on a fresh machine: fio from the distribution's packages and the
# versitygw S3 server into ./.tools/.
GO        ?= go
TOOLS     := $(CURDIR)/.tools
VERSITYGW := $(TOOLS)/versitygw
VERSITYGW_VERSION := v1.8.0
BIN       := bin/storbench
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X github.com/storbench/storbench/internal/cli.Version=$(VERSION)

.PHONY: build demo test fio chromium vet bench-fio bench-md tools

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

tools: fio $(VERSITYGW) chromium

# The README's first command: the built-in quick suite on ./storbench-data
# and a local S3 server.
demo: build fio $(VERSITYGW)
	scripts/demo.sh $(BIN)

vet:
	$(GO) vet ./...

# The README's second command.
test: tools vet
	STORBENCH_VERSITYGW=$(VERSITYGW) $(GO) test -race -timeout 20m ./...

# storbench md against the raw syscall loop (issue 3's figures).
bench-md: build
	bench/md-vs-limit.sh $(BIN)

# storbench against plain fio on the seed's read-IOPS job (issue 2's figures).
bench-fio: build fio
	bench/fio-vs-storbench.sh $(BIN)
