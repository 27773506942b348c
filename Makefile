# recite — common tasks. `make check` is what CI runs (see .ci/run).
GO ?= go
# The Go release recite is built and tested with. The standard library of
# go1.26.8 (the release this machine kind starts with) has vulnerabilities
# that govulncheck finds on recite's code paths, fixed in later releases; the
# go command fetches this toolchain through the module proxy on first use
# (about 76 MB). `make GOTOOLCHAIN=local …` uses the installed Go instead.
export GOTOOLCHAIN := go1.27.3
STATICCHECK_VERSION ?= v0.8.2
GOVULNCHECK_VERSION ?= v1.9.0
# The Go vulnerability database, read from the golang.org/x/vulndb module
# (its data/osv folder holds one OSV entry per vulnerability) so govulncheck
# needs no network beyond the module proxy. VULNDB_VERSION=latest takes the
# newest the proxy serves.
VULNDB_VERSION ?= v0.0.0-20261105234957-e22db6528018
# The platforms the agents run on: `make cross` builds ./cmd/recite for each.
CROSS_TARGETS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
BIN := bin/recite
PKGS := ./...

.PHONY: build test test-race test-norace test-replay test-exact race lint fmtcheck vet tidycheck vulncheck cross check bench bench-files bench-watch fuzz tools clean

build:
	$(GO) build -o $(BIN) ./cmd/recite

# The test command the README names. Four stages, run at the same time
# (each waits on its own builds and links while the others use the CPU),
# each stage's output printed whole when it ends. Fuzz targets run their
# seed corpus as ordinary tests. The timeout is per package binary; no test
# waits on the clock, so a slow machine (CI under load: make test passes
# under `stress-ng --cpu 4` on 2 cores) only makes the suite slower, never
# red.
test:
	@$(MAKE) --no-print-directory -j4 --output-sync=target test-race test-norace test-replay test-exact

# The race detector on the packages whose code starts goroutines or shares
# memory between them (scripts/race-pkgs.sh: go statements, channels, sync
# or sync/atomic in non-test files).
test-race:
	$(GO) test -race -count=1 -timeout 30m $(RACE_PKGS)

# The other packages without it: their code runs in one goroutine and
# holds no package-level state, so the detector has nothing to find there,
# and it made their tests (cmd/recite's testscripts above all, which run
# the recite binary hundreds of times) five to ten times slower.
test-norace:
	$(GO) test -count=1 -timeout 30m $(NORACE_PKGS)

# Replays of long sessions on real trees (thousands of builds), of real
# Claude Code sessions through the hook, one event after another: the race
# detector makes them ten times slower without anything to find that the
# shorter tests do not show; they skip under -race and run here without it.
# So does the count of the records a build decodes on 1,000,000-message
# logs. (The prompt-cache replays of engine/providertest skip under -race
# too; that package is not a race package, so test-norace runs them.)
test-replay:
	$(GO) test -count=1 -timeout 30m -run '$(REPLAY_TESTS)' ./engine/
	$(GO) test -count=1 -timeout 30m -run '$(HOOK_TESTS)' ./engine/claudecode/

# The same for the exactness of the piece counts over every file of the
# real trees, and for the secret rules over the real trees and gitleaks'
# 6,765 examples: they skip under -race and run here.
test-exact:
	$(GO) test -count=1 -timeout 30m -run '$(EXACT_TESTS)' ./engine/budget/
	$(GO) test -count=1 -timeout 30m -run '$(REDACT_TESTS)' ./engine/internal/redact/

RACE_PKGS = $(shell GO=$(GO) GOTOOLCHAIN=$(GOTOOLCHAIN) scripts/race-pkgs.sh)
NORACE_PKGS = $(filter-out $(RACE_PKGS),$(shell GOTOOLCHAIN=$(GOTOOLCHAIN) $(GO) list $(PKGS)))

REPLAY_TESTS := ^(TestCompressionCacheStability|TestCompressionSavings|TestBuildDecodesWhatItReads)$$

HOOK_TESTS := ^(TestPipelineRealCompactions|TestClaudeHookOutputLimit)$$

EXACT_TESTS := ^TestCountPiecesExact$$

REDACT_TESTS := ^(TestRealdataFalsePositives|TestGitleaksExamples)$$

race: test

vet:
	$(GO) vet $(PKGS)

tools:
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(GO) install golang.org/x/vuln/cmd/govulncheck@$(GOVULNCHECK_VERSION)

lint: vet
	@command -v staticcheck >/dev/null 2>&1 || $(MAKE) tools
	PATH="$$PATH:$$($(GO) env GOPATH)/bin" staticcheck $(PKGS)

fmtcheck:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# go.mod and go.sum as `go mod tidy` would leave them; prints the diff.
tidycheck:
	$(GO) mod tidy -diff

# Known vulnerabilities in the code paths recite calls (standard library and
# modules), from the database in the vulndb module (see VULNDB_VERSION).
vulncheck:
	@command -v govulncheck >/dev/null 2>&1 || $(MAKE) tools
	@tmp=$$(mktemp -d); \
	db=$$(cd "$$tmp" && GOWORK=off $(GO) mod download -json golang.org/x/vulndb@$(VULNDB_VERSION) | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p'); \
	rmdir "$$tmp"; \
	test -d "$$db/data/osv" || { echo "vulncheck: no vulnerability database in golang.org/x/vulndb@$(VULNDB_VERSION)"; exit 1; }; \
	PATH="$$PATH:$$($(GO) env GOPATH)/bin" govulncheck -db "file://$$db/data/osv" $(PKGS)

# Cross-compile ./cmd/recite for every platform of CROSS_TARGETS; all are
# tried, and the target fails when one does.
cross:
	@fail=""; for t in $(CROSS_TARGETS); do \
	  echo "== $$t"; \
	  CGO_ENABLED=0 GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) build -o /dev/null ./cmd/recite || fail="$$fail $$t"; \
	done; \
	if [ -n "$$fail" ]; then echo "cross: build failed for$$fail"; exit 1; fi

check: fmtcheck lint tidycheck test

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
