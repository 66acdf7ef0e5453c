# One target per everyday task. `make run` and `make test` are the whole
# setup for a newcomer: both install what they need.
CARGO ?= cargo
BIN := target/release/mastra-conform

.PHONY: run test check bench sweep build

build:
	$(CARGO) build --release

# The main job: the corpus on the pinned versions, report in target/report.json.
run: build
	$(BIN) run --versions pinned --json target/report.json

# Format, lints, unit tests, and the end-to-end tests on real Node + Mastra.
test: check
	$(CARGO) test

check:
	$(CARGO) fmt --check
	$(CARGO) clippy --all-targets -- -D warnings

# The harness end to end against the in-process ceiling (one run; quote its ratio).
bench: build
	$(BIN) bench --mastra-version 1.67.0 --repeat 10 --json target/bench.json
