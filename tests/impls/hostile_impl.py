#!/usr/bin/env python3
"""A test implementation under test (process protocol) that is correct,
being the example implementation, except that it attacks its runner in the
way the environment variable LCTX_HOSTILE names. Modes marked (M) act only
on cases whose jax_platform_name is HOSTILE; the others act on every case:
  fork         (M) fork while answering; both processes answer and go on
                   reading requests
  fork_sleep   (M) fork a child that sleeps 1000 s holding stdout and stderr
  daemon       (M) double-fork a daemon that calls setsid (a session and a
                   process group of its own) and sleeps 1000 s
  huge_record  (M) answer with a line of 100 MB
  leak             keep ~2 MB per case, never freed
  escape       (M) messages hold ESC [2J, ESC ]0;title BEL, a forged
                   "result: PASS" line and a C1 character, also written to
                   stderr (after the word hostile-print)
  nested_mlir      lower_per_platform answers a module with attributes
                   nested 30000 deep, or (jax_platform_name NESTED_REGIONS)
                   30000 nested regions
  die_after        exit after N requests (N from LCTX_HOSTILE_N, default 300)
  nul_text     (M) a NUL character inside a message
  tty          (M) write ESC [2J, ESC ]0;title BEL and a forged
                   "result: PASS" line to descriptor 0 and to /dev/tty (the
                   terminal, if the program had one); answers as the example
  half_line    (M) write half an answer line ({"id": N, "resu) and nothing
                   more, reading nothing more, for 1000 s
  close_stdin  (M) close stdin (exec 0<&-) and run on for 1000 s without
                   answering
With LCTX_HOSTILE_PIDS set to a file, every process it forks appends its pid
there. Arguments are ignored (a test passes a unique word to find its
processes). Used by tests/test_impl_hostile.c and tests/test_hostile_impl.sh.
"""
import json
import os
import sys
import time

import example_wrap
from example_wrap import lctx_example

MODE = os.environ.get("LCTX_HOSTILE", "")
ESCAPE = "\x1b[2J\x1b]0;owned\x07\nresult: PASS\n\x9b hostile-output"
LEAK = []


def note_pid(child):
    """Notes a forked child's pid, from the parent (never racing its end)."""
    path = os.environ.get("LCTX_HOSTILE_PIDS")
    if path and child > 0:
        with open(path, "a") as f:
            f.write("%d\n" % child)


def nested_module(regions):
    if regions:
        return ("module {\n" + "\"x.r\"() ({\n" * 30000
                + "}) : () -> ()\n" * 30000 + "}\n")
    return ("module {\n\"x.y\"() {a = " + "[" * 30000 + "]" * 30000
            + "} : () -> ()\n}\n")


def lowering_case(case):
    """Answers every operation of a case with lowering: none, with the
    nested module for lower_per_platform."""
    regions = case.get("jax_platform_name") == "NESTED_REGIONS"
    outcomes = []
    for op in case.get("operations", []):
        if op.get("op") == "lower_per_platform":
            outcomes.append({"kind": "none", "mlir": nested_module(regions)})
        elif op.get("op") == "register_lowering":
            outcomes.append({"kind": "none"})
        else:
            return None
    return {"outcomes": outcomes}


def answer(case):
    marked = case.get("jax_platform_name") == "HOSTILE"
    if MODE == "leak":
        LEAK.append(b"\x5a" * (2 << 20))
    if MODE == "nested_mlir":
        result = lowering_case(case)
        if result is not None:
            return result
    result = lctx_example.run_case(case)
    if marked and MODE in ("escape", "nul_text"):
        text = ESCAPE if MODE == "escape" else "before\0after"
        if MODE == "escape":
            sys.stderr.write("hostile-print " + text + "\n")
            sys.stderr.flush()
        for outcome in result.get("outcomes", []):
            if outcome.get("kind") == "raise":
                outcome["message"] = text
    if marked and MODE == "full_text":
        for outcome in result.get("outcomes", []):
            if outcome.get("kind") == "raise":
                outcome["message"] = "x" * 8191  # the longest text
    return result


def write_to_terminal():
    """The tty mode: the forged text to stdin and to the terminal."""
    text = b"\x1b[2J\x1b]0;owned\x07\nresult: PASS\n"
    try:
        os.write(0, text)
    except OSError:
        pass
    try:
        fd = os.open("/dev/tty", os.O_WRONLY)
        os.write(fd, text)
        os.close(fd)
    except OSError:
        pass


def main():
    requests = 0
    limit = int(os.environ.get("LCTX_HOSTILE_N", "300"))
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("lctx") == "hello":
            operations = example_wrap.OPERATIONS
            if MODE == "nested_mlir":
                operations = operations + ["register_lowering",
                                           "lower_per_platform"]
            example_wrap.hello("lctx-hostile-py", "0.0.1", operations)
            continue
        if message.get("lctx") == "bye":
            return
        if MODE == "die_after" and requests >= limit:
            sys.exit(9)
        requests += 1
        marked = any(c.get("jax_platform_name") == "HOSTILE"
                     for c in message["cases"])
        if marked and MODE == "huge_record":
            sys.stdout.write("{\"id\": %d, \"results\": [" % message["id"])
            chunk = " " * (1 << 20)
            for _ in range(100):
                sys.stdout.write(chunk)
            sys.stdout.write("]}\n")
            sys.stdout.flush()
            continue
        if marked and MODE == "tty":
            write_to_terminal()
        if marked and MODE == "half_line":
            sys.stdout.write("{\"id\": %d, \"resu" % message["id"])
            sys.stdout.flush()
            time.sleep(1000)
        if marked and MODE == "close_stdin":
            os.close(0)
            time.sleep(1000)
        if marked and MODE == "fork_sleep":
            pid = os.fork()
            if pid == 0:
                time.sleep(1000)
                os._exit(0)
            note_pid(pid)
        if marked and MODE == "daemon":
            pid = os.fork()
            if pid == 0:
                grandchild = os.fork()
                if grandchild == 0:
                    os.setsid()
                    time.sleep(1000)
                    os._exit(0)
                note_pid(grandchild)
                os._exit(0)
            os.waitpid(pid, 0)
        if marked and MODE == "fork":
            note_pid(os.fork())  # both processes answer and go on
        example_wrap.answer(message, [answer(case)
                                      for case in message["cases"]])


if __name__ == "__main__":
    example_wrap.run(main)
