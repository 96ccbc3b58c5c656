#!/usr/bin/env python3
"""Prints why each test of a ctest run did not run.

ctest shows a skipped test (SKIP_RETURN_CODE) as "Skipped" and nothing more,
even with --output-on-failure. Its JUnit file keeps the test's output, whose
"SKIPPED: REASON" line (every skipping test of lctx prints one) says why.

Usage: ctest_skipped.py JUNIT_XML
Prints "skipped: NAME: REASON" per test that did not run (its last output
line when no line starts with "SKIPPED:"), control characters escaped; exit
0, or 2 when the file cannot be read.
"""
import sys
import xml.etree.ElementTree as ET


def shown(text):
    """The text with control characters as \\xHH, on one line."""
    return "".join(c if c.isprintable() else "\\x%02x" % ord(c) if ord(c) < 256
                   else "\\u%04x" % ord(c) for c in text)


def reason(case):
    out = case.findtext("system-out") or ""
    lines = [l.strip() for l in out.splitlines() if l.strip()]
    for line in lines:
        if line.startswith("SKIPPED:"):
            return line[len("SKIPPED:"):].strip()
    if lines:
        return lines[-1]
    skipped = case.find("skipped")
    why = skipped.get("message", "") if skipped is not None else ""
    return "no reason printed" + (" (%s)" % why if why else "")


def main(argv):
    if len(argv) != 2:
        print("usage: ctest_skipped.py JUNIT_XML", file=sys.stderr)
        return 2
    try:
        root = ET.parse(argv[1]).getroot()
    except (OSError, ET.ParseError) as e:
        print("ctest_skipped.py: %s: %s" % (shown(argv[1]), shown(str(e))),
              file=sys.stderr)
        return 2
    for case in root.iter("testcase"):
        if case.get("status") in ("notrun", "disabled") or \
                case.find("skipped") is not None:
            print("skipped: %s: %s" % (shown(case.get("name", "?")),
                                       shown(reason(case))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
