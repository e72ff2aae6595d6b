# simctl: `make run` runs the bundled suites and writes the reports to out/;
# `make test` is the whole test suite (CI runs it through .ci/run).
GO      ?= go
OUT     ?= out
SEED    ?= 1
BIN     := bin/simctl
PKGS    := ./...

.PHONY: all build run test vet bench peers clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/simctl

run: build
	$(BIN) run scenarios/ --out $(OUT) --seed $(SEED)

vet:
	$(GO) vet $(PKGS)

test: vet
	$(GO) test -race -count=1 $(PKGS)

# Benchmarks: engine.Step on the WORKLOAD machine, whole WORKLOAD
# conversations through the driver.
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# The peers of ../shared/peers beside simctl's own RESULT lines. shared/ is
# read-only, so the peers are built and run from a copy.
peers: build
	sh scripts/peers.sh

clean:
	rm -rf bin $(OUT)
