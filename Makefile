# recite — common tasks. `make check` is what CI runs (see .ci/run).
GO ?= go
STATICCHECK_VERSION ?= v0.8.2
BIN := bin/recite
PKGS := ./...

.PHONY: build test race lint fmtcheck vet check bench bench-files bench-watch fuzz tools clean

build:
	$(GO) build -o $(BIN) ./cmd/recite

# The test command the README names. Race detector on; fuzz targets run
# their seed corpus as ordinary tests.
test:
	$(GO) test -race -count=1 $(PKGS)

race: test

vet:
	$(GO) vet $(PKGS)

tools:
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

lint: vet
	@command -v staticcheck >/dev/null 2>&1 || $(MAKE) tools
	PATH="$$PATH:$$($(GO) env GOPATH)/bin" staticcheck $(PKGS)

fmtcheck:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

check: fmtcheck lint test

# Benchmarks are run by hand; figures go in the closing notes.
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# `recite files` against git ls-files and ripgrep on the mktree monorepo
# (built in BENCH_TREE on first use), median of 5, with ratios.
BENCH_TREE ?= /tmp/recite-bench-mono
bench-files:
	scripts/bench-files.sh $(BENCH_TREE)

# `recite watch`: save-to-prompt latency p50/p99 over 200 saves (norish and
# the mktree monorepo), then RSS after 100 and WATCH_RENDERS renders and the
# peak RSS of the recite binary watching norish.
WATCH_RENDERS ?= 10000
bench-watch:
	$(GO) test -run '^$$' -bench 'BenchmarkWatchLatency' -benchtime=1x -timeout 30m ./engine/
	RECITE_BENCH_RENDERS=$(WATCH_RENDERS) $(GO) test -run '^$$' -bench 'BenchmarkWatchMemory' -benchtime=1x -timeout 60m ./engine/

# Long fuzzing, by hand: FUZZTIME=5m make fuzz
FUZZTIME ?= 30s
fuzz:
	@for pkg in $$($(GO) list $(PKGS)); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

clean:
	rm -rf bin
