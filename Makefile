# wsfs — see README.md. `make demo` shows the main job; `make test` runs the
# whole suite after installing what it needs (this is what .ci/run calls).
SHELL := /bin/bash
GOBIN := $(shell go env GOPATH)/bin
export PATH := $(GOBIN):$(PATH)
GO_TEST_TIMEOUT ?= 25m

.PHONY: all build deps lint test test-unit integration bench demo clean

all: build

# The front is stripped: it starts for every `wsfs run`, and a smaller
# binary starts about a millisecond sooner.
# wsfs version prints the version and commit stamped here.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
build:
	go build -ldflags='-s -w' -o bin/wsfs ./cmd/wsfs
	go build -ldflags='-X main.version=$(VERSION) -X main.commit=$(COMMIT)' -o bin/wsfs-core ./cmd/wsfs-core

deps:
	bash scripts/deps.sh

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt: not formatted:"; echo "$$unformatted"; exit 1; fi
	go vet ./...
	staticcheck ./...

# The full suite: deps, lint, every package's tests (FUSE and MinIO included).
test: deps lint
	RG_REFERENCE=$$(command -v rg) go test -count=1 -timeout $(GO_TEST_TIMEOUT) ./...
	go test -count=1 -race -timeout 10m -run 'TestParallelStress|TestConcurrent' ./fusefs ./meta

# Unit tests only, without installing anything (tests needing FUSE or MinIO
# skip when those are missing, unless CI=true).
test-unit:
	go test -count=1 ./...

integration: deps build
	go test -count=1 -timeout $(GO_TEST_TIMEOUT) ./integration/...

# One markdown report comparing wsfs with its baselines (see
# internal/benchreport): printed, and kept in docs/BENCH.md.
bench: deps
	go run ./internal/benchreport -o docs/BENCH.md

# Needs FUSE: /dev/fuse, and root or fusermount3 (scripts/demo.sh says so).
demo: build
	bash scripts/demo.sh

clean:
	rm -rf bin
