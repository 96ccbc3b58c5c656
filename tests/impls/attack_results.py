#!/usr/bin/env python3
"""An implementation under test that forges lctx's results: on its first
case it appends COUNT forged "pass" lines to the file named by
$ATTACK_RESULTS_TARGET (the results.jsonl of the run: the test hands it the
path a child could find through its working directory or /proc), writes
"forged" or "refused ERRNO" to $ATTACK_RESULTS_NOTE (when set), waits
$ATTACK_RESULTS_WAIT seconds (when set), then answers as if nothing
happened. Over the
process protocol it is the example implementation
(conformance/examples/python/lctx_example.py); with --sweep, the fake
exporter of tests/sweep_fake.py (its options follow --sweep).

Usage: ATTACK_RESULTS_TARGET=PATH attack_results.py COUNT [--sweep
       [OPTIONS...]]
Used by tests/test_holds_resume.sh.
"""
import errno
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attack_serve  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def forge(target, count, sweep):
    lines = []
    for k in range(count):
        if sweep:
            line = {"case": k, "program": "bad/complete",
                    "platforms": ["cpu", "cuda"],
                    "verdicts": [{"row": "SW-001", "verdict": "pass",
                                  "key": "", "detail": ""}],
                    "primitives": ["add"], "outcome": "ok"}
        else:
            line = {"case": k, "source": "random", "name": "forged",
                    "row": "BS-001", "verdict": "pass"}
        lines.append(json.dumps(line, separators=(",", ":")) + "\n")
    try:
        fd = os.open(target, os.O_WRONLY | os.O_APPEND)
        os.write(fd, "".join(lines).encode())
        os.close(fd)
        outcome = "forged"
    except OSError as e:
        outcome = "refused " + (errno.errorcode.get(e.errno) or str(e.errno))
    note = os.environ.get("ATTACK_RESULTS_NOTE")
    if note:
        with open(note, "w") as f:
            f.write(outcome + "\n")
    # ATTACK_RESULTS_WAIT: seconds to hold the first answer back (another
    # process alters the results meanwhile).
    time.sleep(float(os.environ.get("ATTACK_RESULTS_WAIT") or 0))


def main():
    target = os.environ.get("ATTACK_RESULTS_TARGET", "")
    count = int(sys.argv[1])
    rest = sys.argv[2:]
    sys.path.insert(0, HERE)
    sweep = rest[:1] == ["--sweep"]

    def hit():
        forge(target, count, sweep)

    if sweep:
        return attack_serve.serve_sweep(hit, 1, rest[1:])
    return attack_serve.serve_conform(hit, 1, 'attack-results')


if __name__ == "__main__":
    sys.exit(main())
