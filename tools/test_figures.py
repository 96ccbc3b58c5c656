#!/usr/bin/env python3
"""The figures of a `make test` run: its parts' seconds and ctest's.

    test_figures.py --time PART FILE -- COMMAND...
                                          run COMMAND, add its seconds to FILE
    test_figures.py BUILD [--record FILE] print the figures of BUILD's last
                                          make test (and keep them in FILE)
    test_figures.py --write README FILE   put FILE's block into README
    test_figures.py --check README FILE   README's block is FILE's
    test_figures.py --reports BUILD       say where BUILD's reports are

--time runs COMMAND (its output untouched) and appends one JSON line to
FILE: the part's name, its seconds, its exit status, its command and the
load average when it ended; it exits with COMMAND's status. make test
times each of its parts so (deps, jax, build, afl, ctest) into
BUILD/junit/make-test-parts.jsonl.

BUILD is the test build folder (build/test): its junit/ctest.xml (ctest's
JUnit file: each test's seconds and status), junit/make-test-parts.jsonl,
and the labels of its tests (ctest --show-only=json-v1). The figures: each
part's seconds, the tests run, failed and skipped, the sum of the tests'
seconds (ctest run serially would take about that), the tests labelled
unit and the sum of their seconds (`ctest -L unit` run serially), the
slowest tests, the cores and ctest's --parallel.

The block README holds (between <!-- lctx-test-figures:begin --> and
<!-- lctx-test-figures:end -->) is what --write makes of FILE
(docs/test-figures.json); ctest lctx_test_figures runs --check, which
fails when the block is not what FILE gives (an edit by hand, or FILE
recorded again without --write). tests/test_doc_figures.sh lets measured
figures stand in that block only.

--reports is make test's last word: where the reports of BUILD's run
are (those there): ctest's JUnit file, the CMocka executables' JUnit
files, the parts' seconds, every test's output and the HTML report's
screenshot; exit 1 when ctest's JUnit file is not there.

Exit status: 0 done (or --check agrees), 1 --check disagrees, 2 bad usage
or unreadable input; --time: COMMAND's. Standard library only.
"""

import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

from doc_block import BadInput, read, write_or_check, write_record

BEGIN = "<!-- lctx-test-figures:begin -->"
END = "<!-- lctx-test-figures:end -->"
PARTS = ("deps", "jax", "build", "afl", "ctest")
PART_TEXT = {"deps": "the packages checked", "jax": "the JAX venvs checked",
             "build": "the test build (configure and build)",
             "afl": "the AFL++ targets", "ctest": "ctest"}
SLOWEST = 10


def timed(part, record, command):
    """Runs command; appends its seconds to record; returns its status."""
    start = time.monotonic()
    try:
        rc = subprocess.call(command)
    except OSError as e:
        print("test_figures: cannot run %s: %s" % (command[0], e),
              file=sys.stderr)
        rc = 127
    line = {"part": part, "seconds": round(time.monotonic() - start, 1),
            "rc": rc, "command": " ".join(command),
            "load": [round(x, 2) for x in os.getloadavg()]}
    with open(record, "a", encoding="utf-8") as f:
        f.write(json.dumps(line, sort_keys=True) + "\n")
    return rc


def read_parts(path):
    """The parts of make-test-parts.jsonl, the last of each name."""
    parts = {}
    if not os.path.exists(path):
        return parts
    for k, line in enumerate(read(path).splitlines(), 1):
        try:
            obj = json.loads(line)
            parts[obj["part"]] = obj
        except (ValueError, KeyError, TypeError):
            raise BadInput("%s:%d: not a part's JSON line" % (path, k))
    return parts


def read_junit(path):
    """[(name, seconds, status)] of ctest's JUnit file."""
    try:
        root = ET.fromstring(read(path))
    except ET.ParseError as e:
        raise BadInput("%s: not XML: %s" % (path, e))
    tests = []
    for case in root.iter("testcase"):
        try:
            seconds = float(case.get("time", ""))
        except ValueError:
            raise BadInput("%s: test %s has no time" % (path, case.get("name")))
        tests.append((case.get("name"), seconds, case.get("status")))
    if not tests:
        raise BadInput("%s: no test case (did ctest run?)" % path)
    return tests


def read_labels(build):
    """{test: [labels]} from ctest --show-only=json-v1 of build."""
    try:
        out = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build,
                             capture_output=True, text=True, check=True).stdout
        tests = json.loads(out)["tests"]
    except (OSError, subprocess.CalledProcessError, ValueError, KeyError) as e:
        raise BadInput("%s: cannot list the tests (ctest --show-only): %s"
                       % (build, e))
    labels = {}
    for t in tests:
        for p in t.get("properties", []):
            if p.get("name") == "LABELS":
                labels[t["name"]] = list(p.get("value", []))
    return labels


def collect(build):
    """The figures of build's last make test, as a dict."""
    tests = read_junit(os.path.join(build, "junit", "ctest.xml"))
    parts = read_parts(os.path.join(build, "junit", "make-test-parts.jsonl"))
    labels = read_labels(build)
    unit = [t for t in tests if "unit" in labels.get(t[0], [])]
    ctest = parts.get("ctest", {})
    fig = {
        "cores": os.cpu_count(),
        "parts": {p: parts[p]["seconds"] for p in PARTS if p in parts},
        "ctest_command": ctest.get("command"),
        "load": ctest.get("load"),
        "tests": len(tests),
        "failed": sum(1 for t in tests if t[2] == "fail"),
        "skipped": sum(1 for t in tests if t[2] in ("notrun", "disabled")),
        "serial_seconds": round(sum(t[1] for t in tests), 1),
        "unit_tests": len(unit),
        "unit_seconds": round(sum(t[1] for t in unit), 1),
        "slowest": [[n, round(s, 1)] for n, s, _ in
                    sorted(tests, key=lambda t: -t[1])[:SLOWEST]],
    }
    return fig


def block(fig):
    """README's block."""
    parts = fig["parts"]
    total = sum(parts.values())
    said = ", ".join("%s %.0f s" % (PART_TEXT[p], parts[p])
                     for p in PARTS if p in parts)
    lines = [BEGIN,
             "<!-- Written by tools/test_figures.py --write from "
             "docs/test-figures.json (recorded from a make test run; checked "
             "by ctest lctx_test_figures): do not edit by hand. -->", ""]
    lines.append(
        "The last recorded run of `make test`'s parts (docs/test-figures.json, %d cores, "
        "load average %s at its end): %.0f s in all (%s); `%s`: %d tests, "
        "%d failed, %d skipped, their times summing to %.0f s. The %d tests "
        "labelled `unit` sum to %.1f s. The slowest tests: %s."
        % (fig["cores"], "/".join("%.1f" % x for x in fig["load"] or []),
           total, said, fig["ctest_command"], fig["tests"], fig["failed"],
           fig["skipped"], fig["serial_seconds"], fig["unit_tests"],
           fig["unit_seconds"],
           ", ".join("`%s` %.0f s" % (n, s) for n, s in fig["slowest"])))
    lines.append(END)
    return "\n".join(lines)


def reports(build):
    """Prints where the reports of build's make test are; the status."""
    junit = os.path.join(build, "junit")
    cmocka = os.path.join(junit, "cmocka")
    xml = sorted(f for f in os.listdir(cmocka)
                 if f.endswith(".xml")) if os.path.isdir(cmocka) else []
    screenshot = os.path.join(os.path.dirname(os.path.normpath(build)),
                              "report-screenshot.png")
    places = [
        (os.path.join(junit, "ctest.xml"), "ctest's JUnit file (every test)"),
        (cmocka + os.sep, "the CMocka tests' JUnit files (%d)" % len(xml)),
        (os.path.join(junit, "make-test-parts.jsonl"),
         "the seconds of make test's parts"),
        (os.path.join(build, "Testing", "Temporary", "LastTest.log"),
         "every test's output"),
        (screenshot, "the HTML report's screenshot (lctx_report_html)"),
    ]
    print("==> lctx: the reports of this make test:")
    for path, what in places:
        if os.path.exists(path) and (not path.endswith(os.sep) or xml):
            print("  %-45s %s" % (path, what))
    if not os.path.isfile(places[0][0]):
        print("test_figures: %s: no ctest JUnit file (did ctest run?)"
              % places[0][0], file=sys.stderr)
        return 1
    return 0


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        sys.stdout.write(__doc__)
        return 0
    if len(argv) >= 5 and argv[0] == "--time" and argv[3] == "--":
        return timed(argv[1], argv[2], argv[4:])
    if len(argv) == 2 and argv[0] == "--reports":
        return reports(argv[1])
    try:
        if len(argv) == 3 and argv[0] in ("--write", "--check"):
            return write_or_check("test_figures", argv[0], argv[1], argv[2],
                                  block, BEGIN, END)
        if len(argv) in (1, 3) and not argv[0].startswith("-") and (
                len(argv) == 1 or argv[1] == "--record"):
            fig = collect(argv[0])
            if len(argv) == 3:
                write_record(fig, argv[2])
            print("==> lctx: the figures of this make test (tools/"
                  "test_figures.py %s --record docs/test-figures.json keeps "
                  "them for README.md)" % argv[0])
            print(block(fig).split("\n")[3])
            return 0
    except BadInput as e:
        print("test_figures: %s" % e, file=sys.stderr)
        return 2
    print("usage: test_figures.py --time PART FILE -- COMMAND... | BUILD "
          "[--record FILE] | --write README FILE | --check README FILE | "
          "--reports BUILD",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
