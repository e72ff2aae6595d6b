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
# The native Go fuzz targets, as package:Target. Each runs from its seed
# corpus under the package's testdata/fuzz/Target; a failing input is
# written there too and becomes a regression case of go test.
FUZZ_TARGETS := ./spec:FuzzMachine ./spec:FuzzScenario ./spec:FuzzNLU ./spec:FuzzUsers \
	./spec:FuzzCassette ./engine:FuzzExpr ./cli:FuzzCLIArgs ./explore:FuzzPart ./rasa:FuzzRasa

.PHONY: all build run test vet bench fuzz fuzz-short e2e peers mutate clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/simctl

run: build
	$(BIN) run scenarios/ --out $(OUT) --seed $(SEED)

vet:
	$(GO) vet $(PKGS)
	@unformatted="$$(gofmt -l .)"; if [ -n "$$unformatted" ]; then echo "gofmt: not formatted: $$unformatted"; exit 1; fi

test: vet
	$(GO) test -race -count=1 $(PKGS)
	$(GO) run ./cmd/simctl mutate scenarios/bench-soni --out "" --min-score 90

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
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZETIME) $$pkg || exit 1; \
	done

fuzz-short:
	$(MAKE) --no-print-directory fuzz FUZZTIME=$(FUZZTIME_SHORT)

# The browser check of report.html: simctl run on the bundled suites, the
# page opened in headless Chromium (Debian's, installed with
# fonts-liberation when missing) with the network off; fails on a script
# error, a fetch or a missing section, and, at 1400 and 900 px wide, on an
# element wider than the window, two state-graph labels overlapping or no
# navigation. The screenshots stay in $(OUT)/e2e/report-1400.png and
# report-900.png. See scripts/e2e.sh and scripts/e2e-check.js.
e2e: build
	E2E_DIR=$(OUT)/e2e SIMCTL=$(BIN) sh scripts/e2e.sh

# Benchmarks: engine.Step on the WORKLOAD machine, whole WORKLOAD
# conversations through the driver, simctl mutate on bench-soni.
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# The peers of ../shared/peers beside simctl's own RESULT lines. shared/ is
# read-only, so the peers are built and run from a copy.
peers: build
	sh scripts/peers.sh

clean:
	rm -rf bin $(OUT)
