#!/usr/bin/env python3
"""An implementation under test that attacks lctx itself: on its 3rd case
it sends a signal to the lctx that runs it, then answers as if nothing
happened. Over the process protocol it is the example implementation
(conformance/examples/python/lctx_example.py); with --sweep, the fake
exporter of tests/sweep_fake.py (its options follow --sweep).

Usage: attack_signal.py SIGNAL LCTX WORD SENT [--sweep [OPTIONS...]]
  SIGNAL  a signal's name without SIG (HUP, USR1, RTMIN, STOP, ...)
  LCTX    lctx's program, its path or its name (only the base name is
          compared with that of lctx's argv[0])
  WORD    a word of that lctx's command line no other run has (its report
          folder): only that lctx is attacked, never another test's
  SENT    a file the attack writes: "sent PID" once the signal went to
          lctx, or "unreachable" when no lctx could be found or signalled
          (then it waits, 20 s at most, for SENT.go, which the test writes
          once it sent the signal itself)
lctx is found as its parent (getppid()) and, since a child may run under
a shell, in a PID namespace of its own (getppid() is then 0) or under
another parent, by a scan of /proc for a process whose argv[0] is named
LCTX and whose command line holds WORD. Used by tests/test_holds_signals.sh.
"""
import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attack_serve  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def is_lctx(pid, lctx, word):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            argv = f.read().split(b"\0")
    except OSError:
        return False
    return (len(argv) > 1 and os.path.basename(argv[0]) ==
            os.path.basename(lctx).encode() and word.encode() in argv[1:])


def parent_of(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def attack(name, lctx, word, sent):
    sig = getattr(signal, "SIG" + name)
    candidates = [os.getppid()]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            candidates.append(int(entry))
    matches = [pid for pid in candidates
               if pid > 1 and pid != os.getpid() and is_lctx(pid, lctx, word)]
    # lctx itself, not a process of lctx's between it and this one (a
    # supervisor is a fork of lctx, with its command line).
    top = [pid for pid in matches if parent_of(pid) not in matches]
    for pid in top or matches:
        try:
            os.kill(pid, sig)
        except OSError:
            continue
        with open(sent, "w") as f:
            f.write("sent %d\n" % pid)
        # lctx meets the signal while it waits for this case (a signal is
        # delivered before lctx runs again, so a short wait is enough)
        time.sleep(0.2)
        return
    with open(sent, "w") as f:
        f.write("unreachable\n")
    # The test, outside, then sends the signal itself, and says so with
    # SENT.go: until then (20 s at most) this case is not answered.
    for _ in range(400):
        if os.path.exists(sent + ".go"):
            break
        time.sleep(0.05)


def main():
    name, lctx, word, sent = sys.argv[1:5]
    rest = sys.argv[5:]
    sys.path.insert(0, HERE)

    def hit():
        attack(name, lctx, word, sent)

    if rest[:1] == ["--sweep"]:
        return attack_serve.serve_sweep(hit, 3, rest[1:])
    return attack_serve.serve_conform(hit, 3, 'attack-signal')


if __name__ == "__main__":
    sys.exit(main())
