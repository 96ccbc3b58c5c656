# lctx: the two commands of the README.
#   make run   installs what is missing, builds lctx (release) and runs the main job
#   make test  installs what is missing, builds under ASan+UBSan and runs ctest
#   make coverage  builds the coverage preset (clang source-based coverage),
#                  replays the seeds, the regressions and any campaign corpus
#                  (lctx-fuzz/) through the replay drivers and writes
#                  build/coverage/html and the line and branch coverage of
#                  reference/ and harness/ (fuzzers/coverage.sh)
# Other targets: deps, jax, build, build-fuzz, build-afl, bench, bench-check, bench-compare, mutants,
# conform-jax, jax-matrix, sweep, sweep-record, lint-jax, user-packages, format, format-check, clean.
#   make jax          installs the pinned JAX (JAX_PINNED, pinned and hashed)
#                     into build/jax/venv-JAX_PINNED and the newest one lctx
#                     knows (JAX_NEWEST, Python 3.12) beside it
#                     (tools/setup-jax.sh); make
#                     test does it first. LCTX_JAX=off skips it, and the real-JAX
#                     tests with it, saying so loudly
#   make conform-jax  judges the pinned JAX by the spec, as that release behaves
#                     (--jax JAX_PINNED): lctx conform through
#                     conformance/adapters/jax_adapter.py over the cases, the
#                     random cases and the full domain (build/conform/jax/)
#   make jax-matrix   the drift matrix: every spec row against each JAX version
#                     with a requirements file (tools/jax_matrix.py), written to
#                     build/jax-matrix/matrix.md and matrix.json; conform options
#                     in JAX_MATRIX_ARGS
#   make sweep        JAX as the subject: lctx sweep exports every program of
#                     the catalogue of conformance/adapters/jax_export.py (JAX's
#                     harnesses, effects, callbacks, custom rules, control flow,
#                     lctx's rule corpus) for seeded platform lists and judges
#                     them (build/sweep/; resumes; SWEEP_ARGS adds options, e.g.
#                     --subset ci, --shard 1/2, --lists 3, --jobs N: N exporter
#                     processes at once, default the online cores, results as
#                     with --jobs 1)
#   make lint-jax     the static check of Python lowering code (docs/lint.md)
#                     over the pinned JAX's jax/_src: regenerates the
#                     listing of docs/lint-jax-src.md (tools/lint_jax_src.py)
#   make user-packages  lctx sweep on real third-party packages that register
#                     JAX primitives, each pinned and hashed in its own venv
#                     (tools/package_venvs.py, build/packages/PKG/), and the
#                     table docs/user-packages.md (tools/user_packages.py;
#                     USER_PACKAGES_ARGS adds options, e.g. package names)
#   make mutants  builds the fuzz preset and measures conform and
#                 fuzz_differential against every mutant of the example
#                 plugin (conformance/mutants/), 60 s per fuzz run

SOURCES := $(shell find reference harness tests bench fuzzers conformance -name '*.[ch]' 2>/dev/null)
LCTX    := build/release/harness/lctx

# The JAX release make test installs and make conform-jax judges; its
# pinned, hashed requirements are conformance/adapters/requirements/.
JAX_PINNED := 0.10.2
JAX_VENV   := build/jax/venv-$(JAX_PINNED)
# The newest JAX on PyPI that lctx knows (it needs Python 3.12, found on
# PATH or in pyenv's versions by tools/setup-jax.sh). make test installs and
# judges it beside the pinned one (jax_conform_newest,
# jax_installed_registry); without a Python 3.12 it says so and those tests
# skip, naming why.
JAX_NEWEST := 0.12.1
# make jax-matrix: per JAX version, judged as that release behaves and as the
# modelled commit behaves, the conformance cases, 10,000 random cases and an
# eighth of the bounded domain (both sides in 3 to 7 minutes a version on a
# 2-core machine, measured 2026-12-03), each version stopped after 15 minutes.
# make jax-matrix JAX_MATRIX_ARGS="--no-domain --random 300" is a quick look.
# After `make generate`, its findings' status per release joins matrix.md.
JAX_MATRIX_ARGS ?= --random 10000 --domain-shard 1/8 --time-limit 900

.PHONY: run test deps jax jax-venvs build build-fuzz build-afl coverage bench bench-check bench-compare mutants conform-jax jax-matrix sweep sweep-record generate lint-jax user-packages format format-check clean

run: build build-fuzz
	@echo "==> lctx: running the main job ($(LCTX) run): conformance cases, check-spec, a 30 s fuzz_model campaign, then the HTML scoreboard build/report.html"
	@$(LCTX) run

# make test also builds the AFL++ targets that tests/test_afl_cmplog.sh
# runs (fuzz_spec_afl and its CMPLOG build, afl preset, build/afl/; AFL++ is
# Debian's afl++, installed by make deps), and LCTX_REQUIRE_AFL=1 makes a
# missing AFL++ build fail that test instead of skipping it.
AFL_TEST_TARGETS := fuzz_spec_afl fuzz_spec_cmplog

#
# ctest runs TEST_JOBS tests at once (default: the online cores); tests that
# keep two cores busy say so in tests/CMakeLists.txt (PROCESSORS 2), and the
# longest have a COST that starts them first. Each part's seconds go to
# build/test/junit/make-test-parts.jsonl (tools/test_figures.py --time),
# and the figures of the run are printed at the end (tools/test_figures.py
# build/test), then where its reports are (tools/test_figures.py --reports
# build/test: the JUnit files under build/test/junit, the tests' output);
# the shell times the packages' check, as python3 may come with them.
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
TEST_PARTS := build/test/junit/make-test-parts.jsonl
TIMED := python3 tools/test_figures.py --time

test:
	@mkdir -p build/test/junit && rm -f $(TEST_PARTS)
	@s=$$(date +%s); $(MAKE) --no-print-directory deps || exit $$?; \
	  echo "{\"part\": \"deps\", \"seconds\": $$(($$(date +%s) - s)), \"command\": \"make deps\"}" >>$(TEST_PARTS)
	@$(TIMED) jax $(TEST_PARTS) -- $(MAKE) --no-print-directory jax-venvs
	@echo "==> lctx: configuring and building the test build (ASan + UBSan)"
	@$(TIMED) build $(TEST_PARTS) -- sh -c 'cmake --preset test >/dev/null && cmake --build --preset test'
	@echo "==> lctx: building the AFL++ targets the tests run (preset afl: $(AFL_TEST_TARGETS))"
	@$(TIMED) afl $(TEST_PARTS) -- sh -c 'cmake --preset afl >/dev/null && cmake --build --preset afl --target $(AFL_TEST_TARGETS)'
	@echo "==> lctx: running the tests (ctest, $(TEST_JOBS) at once; then why each skipped test did not run)"
	@LCTX_REQUIRE_AFL=1 $(TIMED) ctest $(TEST_PARTS) -- ctest --preset test --parallel $(TEST_JOBS); rc=$$?; \
	  python3 tools/ctest_skipped.py build/test/junit/ctest.xml; \
	  python3 tools/test_figures.py build/test; \
	  python3 tools/test_figures.py --reports build/test; exit $$rc

build: deps
	@echo "==> lctx: configuring and building the release build"
	@cmake --preset release >/dev/null
	@cmake --build --preset release

build-fuzz: deps
	@echo "==> lctx: configuring and building the libFuzzer targets (preset fuzz)"
	@cmake --preset fuzz >/dev/null
	@cmake --build --preset fuzz
	@echo "==> lctx: configuring and building the libFuzzer targets without sanitizers for lctx fuzz --fast (preset fuzz-fast, build/fuzz-fast)"
	@cmake --preset fuzz-fast >/dev/null
	@cmake --build --preset fuzz-fast --target lctx_fuzz_engines

coverage: deps
	@echo "==> lctx: configuring and building the coverage build (preset coverage)"
	@cmake --preset coverage >/dev/null
	@cmake --build --preset coverage
	@sh fuzzers/coverage.sh .

build-afl: deps
	@echo "==> lctx: configuring and building the AFL++ targets (preset afl)"
	@cmake --preset afl >/dev/null
	@cmake --build --preset afl

mutants: build-fuzz
	@echo "==> lctx: the kill matrix: conform and fuzz_differential (60 s per run) against every mutant (build/mutants/)"
	@build/fuzz/harness/lctx mutants --fuzz 60 --out build/mutants

deps:
	@echo "==> lctx: checking the required packages"
	@sh tools/install-deps.sh

jax: deps
	@$(MAKE) --no-print-directory jax-venvs

# jax-venvs: jax without checking the packages first (make test checks them
# as a part of its own).
jax-venvs:
	@echo "==> lctx: installing JAX $(JAX_PINNED), pinned and hashed, into $(JAX_VENV) (LCTX_JAX=off skips it)"
	@sh tools/setup-jax.sh $(JAX_PINNED)
	@echo "==> lctx: installing the newest JAX lctx knows, $(JAX_NEWEST), pinned and hashed, into build/jax/venv-$(JAX_NEWEST) (needs Python 3.12)"
	@sh tools/setup-jax.sh $(JAX_NEWEST); rc=$$?; \
	  if [ $$rc -eq 3 ]; then echo "lctx: WARNING: no Python 3.12 here: JAX $(JAX_NEWEST) is NOT installed, and its tests (jax_conform_newest, jax_installed_registry's newest half) are SKIPPED"; \
	  elif [ $$rc -ne 0 ]; then exit $$rc; fi

conform-jax: build jax
	@echo "==> lctx: judging JAX $(JAX_PINNED) by the spec as JAX $(JAX_PINNED) behaves: lctx conform --jax $(JAX_PINNED) through conformance/adapters/jax_adapter.py, cases, random cases and the full domain (reports in build/conform/jax/)"
	@if [ "$${LCTX_JAX:-}" = off ]; then \
	  echo "lctx: LCTX_JAX=off: JAX is NOT installed and conform-jax is SKIPPED"; \
	else \
	  $(LCTX) conform --jax $(JAX_PINNED) --cmd "$(JAX_VENV)/bin/python conformance/adapters/jax_adapter.py" --report-dir build/conform/jax; \
	fi

SWEEP_ARGS ?=

sweep: build jax
	@echo "==> lctx: sweeping JAX $(JAX_PINNED)'s own programs under seeded platform lists: lctx sweep through conformance/adapters/jax_export.py (reports and findings in build/sweep/; a second run resumes)"
	@if [ "$${LCTX_JAX:-}" = off ]; then \
	  echo "lctx: LCTX_JAX=off: JAX is NOT installed and sweep is SKIPPED"; \
	else \
	  $(LCTX) sweep --cmd "$(JAX_VENV)/bin/python conformance/adapters/jax_export.py --host-devices 4 --lctx $(LCTX)" --out build/sweep $(SWEEP_ARGS); \
	fi

# make sweep-record: the full catalogue's time, the figure README.md and
# `lctx sweep --help` give: a fresh sweep of every program on the pinned
# JAX at --jobs 2 into build/sweep-record/ (as long as the figure says),
# timed by tools/sweep_figures.py into
# docs/sweep-figures.json and written into README.md and
# harness/cli/cmd_sweep.c (the help has it from the next build; ctest
# lctx_sweep_figures checks both against the record).
sweep-record: build jax
	@echo "==> lctx: timing the full catalogue: a fresh lctx sweep --jobs 2 of every program on JAX $(JAX_PINNED) into build/sweep-record/, kept in docs/sweep-figures.json"
	@if [ "$${LCTX_JAX:-}" = off ]; then \
	  echo "lctx: LCTX_JAX=off: JAX is NOT installed and sweep-record is SKIPPED"; \
	else \
	  rm -rf build/sweep-record && \
	  python3 tools/sweep_figures.py --run docs/sweep-figures.json build/sweep-record -- \
	    $(LCTX) sweep --cmd "$(JAX_VENV)/bin/python conformance/adapters/jax_export.py --host-devices 4 --lctx $(LCTX)" \
	    --out build/sweep-record --jobs 2 --quiet && \
	  python3 tools/sweep_figures.py --write README.md harness/cli/cmd_sweep.c docs/sweep-figures.json; \
	fi

# make generate: the long campaign of generated programs (lctx generate) on
# the pinned JAX, from GENERATE_SEED with no known defects, for
# GENERATE_SECONDS on every core; then each finding's status in every
# installed JAX release (tools/defect_status.py --write on its report.md)
# and the campaign's figures (tools/generate_figures.py). A second run
# resumes; GENERATE_ARGS adds lctx generate options.
GENERATE_SEED ?= 1
GENERATE_SECONDS ?= 1800
GENERATE_OUT ?= build/generate
generate: build jax
	@echo "==> lctx: a campaign of generated programs on JAX $(JAX_PINNED): lctx generate --seed $(GENERATE_SEED) for $(GENERATE_SECONDS) s, no known defects (reports and findings in $(GENERATE_OUT)/; a second run resumes)"
	@if [ "$${LCTX_JAX:-}" = off ]; then \
	  echo "lctx: LCTX_JAX=off: JAX is NOT installed and generate is SKIPPED"; \
	else \
	  mkdir -p $(GENERATE_OUT)/no-known && \
	  { $(LCTX) generate --cmd "$(JAX_VENV)/bin/python conformance/adapters/jax_export.py --host-devices 4" \
	      --seed $(GENERATE_SEED) --programs 1000000 --time-limit $(GENERATE_SECONDS) \
	      --known $(GENERATE_OUT)/no-known --out $(GENERATE_OUT) --quiet $(GENERATE_ARGS) \
	      >$(GENERATE_OUT)/summary.txt; rc=$$?; cat $(GENERATE_OUT)/summary.txt; [ $$rc -le 1 ]; } && \
	  echo "==> lctx: each finding's status in every installed JAX release (tools/defect_status.py --write)" && \
	  for r in $(GENERATE_OUT)/findings/*/report.md; do \
	    [ -f "$$r" ] || continue; \
	    grep -q 'lctx-defect: repro=' "$$r" && python3 tools/defect_status.py --write "$$r"; \
	  done; \
	  python3 tools/generate_figures.py $(GENERATE_OUT); \
	fi

jax-matrix: build
	@echo "==> lctx: the JAX drift matrix: every spec row against each JAX version with a requirements file ($(JAX_MATRIX_ARGS))"
	@if [ "$${LCTX_JAX:-}" = off ]; then \
	  echo "lctx: LCTX_JAX=off: JAX is NOT installed and jax-matrix is SKIPPED"; \
	else \
	  python3 tools/jax_matrix.py $(JAX_MATRIX_ARGS) $$( [ -d $(GENERATE_OUT)/findings ] && echo --findings $(GENERATE_OUT)/findings ) && \
	  echo "==> lctx: the matrix is in build/jax-matrix/matrix.md (and matrix.json; reports in build/jax-matrix/VERSION/)"; \
	fi

# make bench: the ratio benchmarks, instruction counts under callgrind, the
# whole jobs' wall time and the jax tests' time against a baseline build,
# then each speed goal (bench/goals.py) with its value and met / NOT met
# (bench/run_bench.py). All figures go to build/bench/bench.json (the
# previous one is kept as bench.prev.json; bench/compare prints the two).
# BENCH_BASELINE is the commit built in build/baseline-COMMIT/ and measured
# in the same run: by default 5d62bba, the main the goals were set against;
# BENCH_BASELINE= (empty) leaves out what needs one. BENCH_ARGS adds options
# of bench/run_bench.py (e.g. --no-ratios, --no-jax-tests, --cases N).
# It takes about half an hour on a 2-core machine. It exits 1 when a goal
# is not met (or NOT MEASURED), after writing every figure; make
# bench-check judges the goals again on build/bench/bench.json (BENCH_JSON)
# without measuring.
BENCH_BASELINE ?= 5d62bba
BENCH_ARGS ?=

lint-jax: jax
	@echo "==> lctx: the static check of Python lowering code over JAX $(JAX_PINNED)'s jax/_src, listed in docs/lint-jax-src.md (tools/lint_jax_src.py --write)"
	@python3 tools/lint_jax_src.py --write --python $(JAX_VENV)/bin/python

user-packages: build
	@echo "==> lctx: sweeping third-party packages that register JAX primitives, each in its own pinned venv (build/packages/), into docs/user-packages.md"
	@if [ "$${LCTX_JAX:-}" = off ]; then \
	  echo "lctx: LCTX_JAX=off: the packages are NOT installed and user-packages is SKIPPED"; \
	else \
	  python3 tools/user_packages.py --lctx $(LCTX) $(USER_PACKAGES_ARGS); \
	fi

bench: build
	@echo "==> lctx: benchmarks and the speed goals$(if $(BENCH_BASELINE), against $(BENCH_BASELINE)) (build/bench/bench.json)"
	@python3 bench/run_bench.py $(if $(BENCH_BASELINE),--baseline $(BENCH_BASELINE)) $(BENCH_ARGS)

BENCH_JSON ?= build/bench/bench.json

bench-check:
	@python3 bench/run_bench.py --check $(BENCH_JSON)

bench-compare:
	@python3 bench/compare

format:
	clang-format -i $(SOURCES)

format-check:
	clang-format --dry-run -Werror $(SOURCES)

clean:
	rm -rf build
