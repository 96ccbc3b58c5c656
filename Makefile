# lctx: the two commands of the README.
#   make run   installs what is missing, builds lctx (release) and runs the main job
#   make test  installs what is missing, builds under ASan+UBSan and runs ctest
# Other targets: deps, build, build-fuzz, build-afl, bench, mutants, format,
# format-check, clean.
#   make mutants  builds the fuzz preset and measures conform and
#                 fuzz_differential against every mutant of the example
#                 plugin (conformance/mutants/), 60 s per fuzz run

SOURCES := $(shell find reference harness tests bench fuzzers conformance -name '*.[ch]' 2>/dev/null)
LCTX    := build/release/harness/lctx

.PHONY: run test deps build build-fuzz build-afl bench mutants format format-check clean

run: build build-fuzz
	@echo "==> lctx: running the main job ($(LCTX) run): conformance cases, check-spec, a 30 s fuzz_model campaign"
	@$(LCTX) run

test: deps
	@echo "==> lctx: configuring and building the test build (ASan + UBSan)"
	@cmake --preset test >/dev/null
	@cmake --build --preset test
	@echo "==> lctx: running the tests (ctest)"
	@ctest --preset test

build: deps
	@echo "==> lctx: configuring and building the release build"
	@cmake --preset release >/dev/null
	@cmake --build --preset release

build-fuzz: deps
	@echo "==> lctx: configuring and building the libFuzzer targets (preset fuzz)"
	@cmake --preset fuzz >/dev/null
	@cmake --build --preset fuzz

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

bench: build
	@echo "==> lctx: check-spec throughput against decoding alone (one run)"
	@build/release/bench/bench_check_spec
	@sh bench/bench_fuzz.sh
	@sh bench/bench_fuzz_lowering.sh
	@sh bench/bench_conform.sh

format:
	clang-format -i $(SOURCES)

format-check:
	clang-format --dry-run -Werror $(SOURCES)

clean:
	rm -rf build
