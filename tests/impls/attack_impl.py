#!/usr/bin/env python3
"""A test implementation under test (process protocol) that is the example
implementation, except that on a request holding a case whose
jax_platform_name is HOSTILE it attacks lctx in the way the environment
variable LCTX_ATTACK names:
  trace   fork a grandchild that leaves the session, PTRACE_SEIZEs the
          program (through ctypes) and sleeps 600 s; then the program
          kills itself with SIGSEGV
  daemon  double-fork a daemon that leaves the session and sleeps 600 s,
          then answer as the example does
Arguments are ignored (a test passes a unique word to find its processes).
Used by tests/test_attacks.sh.
"""
import ctypes
import json
import os
import signal
import sys
import time

from example_wrap import answer, hello, lctx_example, run

MODE = os.environ.get("LCTX_ATTACK", "")
PTRACE_SEIZE = 0x4206


def traced_crash():
    program = os.getpid()
    if os.fork() == 0:
        if os.fork() == 0:
            os.setsid()
            libc = ctypes.CDLL(None, use_errno=True)
            libc.ptrace(PTRACE_SEIZE, program, None, None)
            time.sleep(600)
        os._exit(0)
    time.sleep(1)  # the grandchild attaches
    os.kill(program, signal.SIGSEGV)


def daemon():
    pid = os.fork()
    if pid == 0:
        if os.fork() == 0:
            os.setsid()
            time.sleep(600)
        os._exit(0)
    os.waitpid(pid, 0)


def main():
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("lctx") == "hello":
            hello("lctx-attack-py", "0.0.1")
            continue
        if message.get("lctx") == "bye":
            return
        if any(c.get("jax_platform_name") == "HOSTILE"
               for c in message["cases"]):
            if MODE == "trace":
                traced_crash()
            if MODE == "daemon":
                daemon()
        answer(message, [lctx_example.run_case(case)
                         for case in message["cases"]])


if __name__ == "__main__":
    run(main)
