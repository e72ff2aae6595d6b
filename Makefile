# simctl: `make run` runs the bundled suites and writes the reports to out/;
# `make test` is the whole test suite (CI runs it through .ci/run).
GO      ?= go
OUT     ?= out
SEED    ?= 1
BIN     := bin/simctl
PKGS    := ./...
# Fuzzing time per target: `make fuzz` for a long run, `make fuzz-short`
# (CI, after make test) for a short one. fuzz-short takes about 45 s with a
# warm build cache; a cold one adds about 100 s, once, to build the
# coverage-instrumented test binaries.
FUZZTIME       ?= 5m
FUZZTIME_SHORT ?= 5s
# Minimizing each new interesting input may otherwise take a minute of the
# budget (the seeds are whole machine files).
FUZZMINIMIZETIME ?= 5s
# Random machines the reduction, workers and split properties try in make
# fuzz (make test: 50 for the reductions, 15 for the workers, which run
# under -race there, 10 for the split).
REDUCE_CASES ?= 2000
REDUCE_FORMFILL_DEPTH ?= 4
# The native Go fuzz targets, as package:Target. Each runs from its seed
# corpus under the package's testdata/fuzz/Target; a failing input is
# written there too and becomes a regression case of go test.
FUZZ_TARGETS := ./spec:FuzzMachine ./spec:FuzzScenario ./spec:FuzzNLU ./spec:FuzzUsers \
	./spec:FuzzCassette ./engine:FuzzExpr ./cli:FuzzCLIArgs ./explore:FuzzPart ./rasa:FuzzRasa ./dfcx:FuzzDfcx \
	./scxml:FuzzSCXML

.PHONY: all build run test vet bench fuzz fuzz-short e2e peers peers-graph conformance bot-check bot-planted mutate clean explore-big

all: build

# The revision goes in by -ldflags as well as by Go's -buildvcs, so that
# simctl --version names it when GOFLAGS has -buildvcs=false, and in a
# git worktree, where Go stamps nothing (golang/go#58218): what -buildvcs
# would embed, HEAD and "+modified" when git status lists anything,
# untracked files included, as Go's own check does. A cold build
# takes minutes (the graph layout's WebAssembly runtime among the
# dependencies); -v lists each package as it is compiled (nothing when
# the cache is warm), so the wait shows.
REVISION := $(shell git rev-parse HEAD 2>/dev/null)$(shell test -n "$$(git status --porcelain 2>/dev/null)" && echo +modified)
LDFLAGS  := -X github.com/simctl/simctl/version.revision=$(REVISION)

build:
	@echo "make build: compiling $(BIN) (revision $(or $(REVISION),unknown)); a cold build cache takes a few minutes, packages listed as they compile"
	@$(GO) build -v -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/simctl
	@echo "make build: $(BIN) ready"

# make run shows what simctl finds in the bundled suites. Findings make
# simctl exit 1 (as CI wants); make run reports that and still succeeds,
# since the reports were written. Bad input (2) or an interruption fails it.
run: build
	@echo "make run: $(BIN) run scenarios/ --out $(OUT) --seed $(SEED)"
	@status=0; $(BIN) run scenarios/ --out $(OUT) --seed $(SEED) || status=$$?; \
	if [ $$status -eq 1 ]; then echo "make run: simctl exited 1: the findings above fail a CI run; see $(OUT)/report.html"; \
	elif [ $$status -ne 0 ]; then exit $$status; fi

vet:
	$(GO) vet $(PKGS)
	@unformatted="$$(gofmt -l .)"; if [ -n "$$unformatted" ]; then echo "gofmt: not formatted: $$unformatted"; exit 1; fi

# make test runs every spec once, under the race detector wherever it has
# goroutines to watch. cli, engine, explore, generate and sim hold long,
# CPU-bound searches, runs and properties on one goroutine, where -race
# finds nothing and costs about 10 times the CPU: only their specs
# labelled "race" (those that start goroutines: several workers, the
# progress line, in-process bot and NLU servers, a machine shared by
# goroutines) run under -race, the others without it. NORACE_PKGS are the
# packages whose code and specs start no goroutine at all (a package that
# gains one leaves the list); every other package runs under -race whole.
#
# The parts run at once (make -j), so that both cores work until the end:
# go test runs two packages at a time, and cli, the longest, would
# otherwise run alone on one core for minutes. cli's specs without -race
# run in two processes (Ginkgo's -p, its CLI pinned by go.mod), which
# share its specs as each finishes one. The packages are compiled first,
# once, so that the parts do not compile the same ones side by side on a
# cold cache. --output-sync prints each part's output whole, when it ends.
#
# Warm, most of make test's CPU went to linking (some thirty test
# binaries, two or three seconds each) rather than to specs. So: the
# packages are compiled first without linking anything (no main package
# in the list); test binaries are linked without DWARF (-ldflags=-w, a
# third less CPU per link; a panic's trace keeps its files and lines,
# which come from the symbol table); and simctl itself is linked once,
# into TEST_BIN, for cli's specs that run it as a process and for
# test-mutate, instead of once per process: make test names it in
# $SIMCTL_BIN (a part run alone builds its own).
RACE_SPLIT  := ./cli ./engine ./explore ./generate ./sim
NORACE_PKGS := ./conformance ./deploy ./dfcx ./eval ./jsonpath ./latency ./mutate ./rasa ./reports ./scxml ./spec ./yamltree
TEST_LIBS   := github.com/onsi/ginkgo/v2 github.com/onsi/gomega github.com/leanovate/gopter
GINKGO      := $(GO) run github.com/onsi/ginkgo/v2/ginkgo
TEST_PARTS  := test-race test-race-split test-norace test-cli test-mutate
TEST_BIN    := bin/simctl-test
TEST_FLAGS  := -count=1 -timeout 30m -ldflags=-w
# The parts' processes (go, the linker, the test binaries and the simctl
# they start) collect garbage a quarter as often as by default: 10-15 %
# less CPU for explore's specs, each process's heap up to five times its
# live data (the largest stays well under 1 GB).
TEST_GOGC   ?= 400
.PHONY: $(TEST_PARTS)
test: vet
	@echo "make test: compiling the packages, with and without -race (linking nothing)"
	$(GO) build $$($(GO) list -f '{{if ne .Name "main"}}{{.ImportPath}}{{end}}' $(PKGS)) $(TEST_LIBS)
	$(GO) build -race $$($(GO) list -f '{{if ne .Name "main"}}{{.ImportPath}}{{end}}' $(PKGS)) $(TEST_LIBS)
	@GOFLAGS=-buildvcs=false $(MAKE) --no-print-directory build BIN=$(TEST_BIN)
	@echo "make test: $(TEST_PARTS) at once; each part's output appears when it ends"
	@GOGC=$(TEST_GOGC) SIMCTL_BIN=$(abspath $(TEST_BIN)) $(MAKE) --no-print-directory -j --output-sync=target $(TEST_PARTS)

test-race:
	@echo "make test: go test -race, every package but $(RACE_SPLIT) $(NORACE_PKGS)"
	$(GO) test -race $(TEST_FLAGS) $$($(GO) list $(PKGS) | grep -vxF "$$($(GO) list $(RACE_SPLIT) $(NORACE_PKGS))")

test-race-split:
	@echo "make test: $(RACE_SPLIT), the specs labelled race, under -race"
	$(GO) test -race $(TEST_FLAGS) $(RACE_SPLIT) -args -ginkgo.label-filter=race

test-norace:
	@echo "make test: $(filter-out ./cli,$(RACE_SPLIT)), the specs not labelled race, and $(NORACE_PKGS), without -race"
	$(GO) test $(TEST_FLAGS) $(filter-out ./cli,$(RACE_SPLIT)) $(NORACE_PKGS) -args -ginkgo.label-filter='!race'

test-cli:
	@echo "make test: ./cli, the specs not labelled race, without -race, in two processes"
	$(GINKGO) --procs=2 --no-color --succinct --timeout=30m --ldflags=-w --label-filter='!race' ./cli

test-mutate:
	@echo "make test: simctl mutate scenarios/bench-soni --min-score 90"
	$${SIMCTL_BIN:-$(GO) run ./cmd/simctl} mutate scenarios/bench-soni --out "" --min-score 90

# Mutation testing of every bundled suite (docs/mutate.md): mutants.csv and
# report.html in $(OUT)/mutate; exits 1 when a suite scores below
# MIN_SCORE percent.
WORKERS   ?= 2
MIN_SCORE ?= 90
mutate: build
	$(BIN) mutate scenarios/ --out $(OUT)/mutate --seed $(SEED) --workers $(WORKERS) --min-score $(MIN_SCORE)

# Fuzzing is not part of make test, which stays fast and deterministic.
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz: $$name ($$pkg) for $(FUZZTIME)"; \
		out=$$($(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZETIME) $$pkg 2>&1); rc=$$?; \
		printf '%s\n' "$$out"; \
		if [ $$rc -ne 0 ]; then \
			if printf '%s' "$$out" | grep -q '^    context deadline exceeded$$' && \
				[ -z "$$(git status --porcelain --untracked-files=all -- $$pkg/testdata/fuzz 2>/dev/null)" ]; then \
				echo "fuzz: $$name: Go's fuzz coordinator reported its own -fuzztime deadline and wrote no failing input (golang/go#75804, fixed in Go 1.27): not a failure"; \
			else exit 1; fi; \
		fi; \
	done
	@echo "fuzz: the reductions against the unreduced search, several goroutines against one, and split searches against one, on $(REDUCE_CASES) random machines"
	SIMCTL_REDUCE_CASES=$(REDUCE_CASES) SIMCTL_WORKERS_CASES=$(REDUCE_CASES) SIMCTL_SPLIT_CASES=$(REDUCE_CASES) SIMCTL_REDUCE_FORMFILL_DEPTH=$(REDUCE_FORMFILL_DEPTH) $(GO) test -count=1 -run TestExplore ./explore -args -ginkgo.focus='reductions|on several goroutines|one configuration per shard'

fuzz-short:
	$(MAKE) --no-print-directory fuzz FUZZTIME=$(FUZZTIME_SHORT) REDUCE_CASES=100 REDUCE_FORMFILL_DEPTH=3

# The browser check of report.html: simctl run on the bundled suites, the
# page opened in headless Chromium (Debian's, installed with
# fonts-liberation when missing) with the network off; fails on a script
# error, a fetch or a missing section, and, at 1400 and 900 px wide, on an
# element wider than the window, two state-graph labels overlapping or no
# navigation. The screenshots stay in $(OUT)/e2e/report-1400.png and
# report-900.png. See scripts/e2e.sh and scripts/e2e-check.js.
e2e: build
	E2E_DIR=$(OUT)/e2e SIMCTL=$(BIN) sh scripts/e2e.sh

# The SCXML conformance suite (@scion-scxml/test-framework, pinned by
# conformance/npm/package-lock.json, installed with npm into .cache/) run
# through simctl's loader and engine: $(OUT)/conformance/conformance.csv and
# "N passed, M failed (K unsupported)"; fails below 100 SCION or 50 W3C
# passes. See scripts/conformance.sh.
conformance:
	GO=$(GO) OUT=$(OUT) sh scripts/conformance.sh

# The reference LangGraph.js bot (examples/formfill-langgraph, seed 002)
# checked live against scenarios/formfill: npm ci, the bot started on a free
# loopback port, simctl run --bot --generate 2000, the bot stopped always;
# the status is simctl's. See docs/bot-check.md and scripts/bot-check.sh.
bot-check: build
	OUT=$(OUT)/bot-check SIMCTL=$(BIN) sh scripts/bot-check.sh

# Four copies of the reference bot, one bug planted in each (a routing bug
# after completion, a wrong stored slot behind an unchanged reply, an
# escalation priority inversion, a validator accepting a bad value), each
# checked as bot-check checks the bot: every bug must be found and shrunk.
bot-planted: build
	OUT=$(OUT)/bot-planted SIMCTL=$(BIN) sh scripts/bot-planted.sh

# Benchmarks: engine.Step on the WORKLOAD machine, whole WORKLOAD
# conversations through the driver, simctl mutate on bench-soni, the
# explorer on every seed suite and generated machines on one goroutine and
# two (BenchmarkExplore, BenchmarkExploreWorkers: distinct and generated
# configurations per second, bytes per configuration, speed-up).
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# A complete search of ten million configurations (a generated machine of
# seven counters) within 2 GB: prints the time, the rates and the peak
# resident memory. The soft memory limit makes the collector work before
# the heap doubles. BIG_WORKERS=2: on two goroutines.
BIG_WORKERS ?= 1
explore-big:
	GOMEMLIMIT=1600MiB SIMCTL_BIG=1 SIMCTL_BIG_WORKERS=$(BIG_WORKERS) $(GO) test -count=1 -timeout 20m -v -run TestExplore ./explore -args -ginkgo.focus='a big search' -ginkgo.v

# The peers of ../shared/peers and simctl's WORKLOAD runner in one table:
# RUNS runs each, simctl's interleaved with the peers', medians (see
# scripts/peers.sh). shared/ is read-only, so the peers are built and run
# from a copy.
peers: build
	sh scripts/peers.sh

# The xstate graph peer's getAdjacencyMap and getShortestPaths beside
# simctl's explorer on the same machines (docs/explore.md, Speed).
peers-graph:
	sh scripts/peers-graph.sh

clean:
	rm -rf bin $(OUT)
