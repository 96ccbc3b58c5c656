"""bench/jax_tests.py - the wall time of make test's real-JAX tests
(`ctest -L jax`) of the current test build against a baseline's, measured
in one run.

Each side's lctx is built under its own test preset (ASan+UBSan, as make
test builds it; only the targets the jax tests run), then the two ctest
runs alternate, ROUNDS each, the baseline first in odd rounds and the
current tree first in even ones; the fastest run of each side counts.
Figures: jax_tests.seconds, baseline.jax_tests.seconds and
jax_tests.time_vs_baseline (current / baseline: below 1 is faster now).
A side whose ctest fails, or skips the tests (LCTX_JAX=off, no JAX), gives
no figure, and says why.

Used by bench/run_bench.py; on its own:
python3 bench/jax_tests.py CUR_SRC [BASE_SRC BASE_TEST_BUILD] [--rounds N]
"""

import os
import re
import subprocess
import sys
import time

import wall  # run_alone: the command line of a measurer on its own

TARGETS = ["lctx"]


def prepare(src, build, python, log):
    """Configures (preset test's settings, the jax tests on PYTHON, the
    pinned JAX's) and builds what the jax tests run; False (logged) when
    it cannot."""
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        cfg = subprocess.run(
            ["cmake", "-S", src, "-B", build, "-G", "Ninja",
             "-DCMAKE_C_COMPILER=clang-19", "-DCMAKE_BUILD_TYPE=Debug",
             "-DLCTX_SANITIZE=ON", "-DLCTX_JAX_PYTHON=" + python],
            capture_output=True, text=True, check=False)
        if cfg.returncode != 0:
            log("jax tests: cmake of %s failed: %s" % (build, cfg.stderr[-400:]))
            return False
    b = subprocess.run(["cmake", "--build", build, "--target"] + TARGETS,
                       capture_output=True, text=True, check=False)
    if b.returncode != 0:
        log("jax tests: building %s failed: %s" % (build, b.stdout[-400:]))
        return False
    return True


def run_once(build, log):
    """Seconds of one `ctest -L jax` in BUILD, or None (logged)."""
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    t = time.monotonic()
    p = subprocess.run(["ctest", "--test-dir", build, "-L", "jax",
                        "--timeout", "900"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, check=False, env=env)
    seconds = time.monotonic() - t
    if p.returncode != 0:
        log("jax tests in %s failed (exit %d): %s" % (build, p.returncode,
                                                      p.stdout[-600:]))
        return None
    if re.search(r"\bNot Run\b|\*\*\*Skipped", p.stdout) or \
            not re.search(r"100% tests passed", p.stdout):
        log("jax tests in %s were skipped or incomplete; no figure" % build)
        return None
    return seconds


def measure(cur, base, python, rounds, log):
    """cur and base are (src, test_build) or None; PYTHON is the pinned
    JAX's; returns the figures."""
    if not os.access(python, os.X_OK):
        log("jax tests: no pinned JAX (%s); no figure (make jax)" % python)
        return {}
    sides = [("current", cur), ("baseline", base)]
    ready = {label: where for label, where in sides
             if where and prepare(where[0], where[1], python, log)}
    best = {}
    for r in range(rounds):
        order = ["baseline", "current"] if r % 2 == 0 else \
            ["current", "baseline"]
        for label in order:
            if label not in ready:
                continue
            print("==> bench: ctest -L jax, %s (%s)" % (label,
                                                       ready[label][1]),
                  flush=True)
            s = run_once(ready[label][1], log)
            if s is not None and (label not in best or s < best[label]):
                best[label] = s
    figs = {}
    if "current" in best:
        figs["jax_tests.seconds"] = best["current"]
    if "baseline" in best:
        figs["baseline.jax_tests.seconds"] = best["baseline"]
        if "current" in best:
            figs["jax_tests.time_vs_baseline"] = \
                best["current"] / best["baseline"]
    return figs


def main():
    def measure_where(where, rounds, log):
        python = os.path.join(where[0], "build", "jax", "venv-0.10.2",
                              "bin", "python")
        return measure((where[0], os.path.join(where[0], "build", "test")),
                       tuple(where[1:3]) if len(where) >= 3 else None,
                       python, rounds, log)
    return wall.run_alone(measure_where, 1)


if __name__ == "__main__":
    sys.exit(main())
