# One target per everyday task. `make run` and `make test` are the whole
# setup for a newcomer: both install what they need.
CARGO ?= cargo
BIN := target/release/mastra-conform

.PHONY: run test unit check lines setup bench sweep build nightly fuzz npm

build:
	$(CARGO) build --release

# The main job: the corpus on the pinned versions and every wire route; every
# report format in target/report/ and a headline (known issues per version,
# divergences, what could not run, where the HTML report is).
run: build
	$(BIN) run --versions pinned --route all --out target/report

# Format, lints, unit tests, and the end-to-end tests on real Node + Mastra:
# every test there is. Clippy first (beside the test build it took 404 s
# from a fresh clone, longer than the two one after the other); `check`'s
# Biome test builds the integration tests' binary, so their tier starts at
# once, and the library's tests and the fault suite are built beside it
# (cargo holds its build lock while it compiles, not while tests run).
# The three tiers run side by side, the integration tests four at a time:
# most of their time is spent in Node, npm and the registry, and a test
# waiting on one of those leaves its core to another. The `size` module
# (pure CPU, about 80 CPU seconds in the debug build, no Node) runs after
# the fault suite rather than in the integration tier, where its name put
# it last, alone on one core while the other idled; the fault suite, held
# to its own time budget, never runs beside it. `lint_project` (44 tests,
# npm installs of a dozen releases, a quarter of the tier's test time)
# would run last by its name too; it runs after the fault suite, in a
# process of its own, beside the rest of the tier instead of after it.
# `e2e`'s corpus run (every case on every route on the pinned versions,
# the tier's longest chain) and the tests that read it run in a process of
# their own from the start (`test-corpus`): in one process with the rest,
# its readers took every thread while they waited on it, and nothing else
# of the tier ran until it ended. `builds::diff…` goes with them: it
# starts that run and copies its store.
test: setup check
	$(MAKE) --no-print-directory -j5 --output-sync=target test-lib test-corpus test-it test-size test-lint

.PHONY: test-lib test-corpus test-it test-faults test-size test-lint
CORPUS_DIFF := builds::diff_lists_exactly_the_cases_whose_toolchoice_gets_rewritten
test-lib:
	$(CARGO) test --lib --bins
	$(CARGO) test --doc
test-corpus:
	$(CARGO) test --test it -- --test-threads 6 e2e:: $(CORPUS_DIFF)
test-it:
	$(CARGO) test --test it -- --test-threads 4 --skip size:: --skip lint_project:: --skip e2e:: --skip $(CORPUS_DIFF)
test-faults:
	$(CARGO) test --test faults
test-size: test-faults
	$(CARGO) test --test it size::
test-lint: test-faults
	$(CARGO) test --test it -- --test-threads 4 lint_project::

# The fast tier, to run while working: the library's unit tests and the
# import rules, no Node and no Mastra.
unit:
	$(CARGO) test --lib
	$(CARGO) test --test it structure::

# What the tests need beyond cargo and the npm registry, from Debian (once,
# as root): chromium for the test that opens the HTML report headless, and
# bubblewrap, the OS sandbox the isolation tests prove.
setup:
	bash harness/tests/setup.sh

# Formats and lints: Rust (clippy through `lines`), then node-probe/ and
# npm/ with the pinned Biome (node-probe/biome/, installed into the cache on
# first use, as pnpm is).
check: lines
	$(CARGO) fmt --check
	$(CARGO) test --test it javascript::biome

# Clippy over every target, once, with no function outside tests past
# clippy.toml's too-many-lines-threshold: test code is exempt by the
# crates' own `allow` (lib.rs under cfg(test), the test crates' roots), so
# one pass does what a pass over the library and one over its tests did.
lines:
	$(CARGO) clippy --all-targets -- -D warnings -W clippy::too_many_lines

# The harness end to end against the in-process ceiling: scaling from 1 to N
# probes, each route's rate, and the matrix on BENCH_RANGE from an empty cache
# and then warm, with each version's install time and disk. The figures, with
# their date, command, commit and cores, go to docs/figures/bench.md.
BENCH_RANGE ?= >=1.60.0 <1.70.0
bench: build
	$(BIN) bench --mastra-version 1.67.0 --repeat 2 --route all --matrix-versions "$(BENCH_RANGE)" --json target/bench.json --markdown docs/figures/bench.md

# The nightly job, unsharded (.github/workflows/nightly.yml runs it in slices): the corpus, the
# saved fuzz finds and a fuzz budget on the pinned versions and the latest.
VERSIONS ?= pinned,latest,next
FUZZ_COUNT ?= 200
SEED ?= 1
nightly: build
	$(BIN) matrix --versions "$(VERSIONS)" --route all --fuzz-count $(FUZZ_COUNT) --seed $(SEED) --out target/matrix

# Fuzzing: cases from a seed on the wire, every divergence shrunk and saved
# under cases/found/ (replayed first next time), the speed against the ceiling.
FUZZ_N ?= 5000
FUZZ_VERSIONS ?= 1.67.0
ROUTES ?= all
fuzz: build
	$(BIN) fuzz --route "$(ROUTES)" --seed $(SEED) --count $(FUZZ_N) --versions "$(FUZZ_VERSIONS)" --ceiling

# Where behaviour changes across every served stable 1.x (rewrites
# docs/figures/sweep.md and the per-version costs in node-probe/costs.json).
sweep: build
	$(BIN) sweep --versions all --route all --out docs/figures/sweep.md

# The npm packages (launcher + this machine's platform binary), packed into
# target/npm/; .github/workflows/release.yml packs every platform.
NPM_PLATFORM ?= $(shell node -p 'process.platform + "-" + process.arch')
npm: build
	node npm/pack.mjs --out target/npm --launcher --platform $(NPM_PLATFORM) --binary $(BIN)
