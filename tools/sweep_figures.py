#!/usr/bin/env python3
"""The full catalogue's time: how long `lctx sweep` takes over every
program of the catalogue, measured and kept as a record, and the sentence
README.md and `lctx sweep --help` say of it.

    sweep_figures.py --run RECORD OUT -- COMMAND...
        run COMMAND (a fresh `lctx sweep ... --out OUT`), time it and keep
        its figures in RECORD (docs/sweep-figures.json)
    sweep_figures.py --write README CMD_SWEEP_C RECORD
        put RECORD's sentence into README's block and the help's block of
        CMD_SWEEP_C (harness/cli/cmd_sweep.c)
    sweep_figures.py --check README CMD_SWEEP_C RECORD
        both blocks are RECORD's

`make sweep-record` runs --run (a fresh sweep of the whole catalogue on
the pinned JAX at --jobs 2 into build/sweep-record/, as long as the
figure says) and then --write; the help's figure reaches the
binary with the next build. ctest lctx_sweep_figures runs --check (it
never runs the sweep): it fails when a block is edited by hand or the
record is measured again without --write.

The figures: the wall seconds, the load average at its start and end
(a run on a loaded machine takes longer: the sentence says the load),
the cores, --jobs, and from OUT/report.json the cases judged, the plan's
cases and the JAX release (the implementation version). CPU seconds are
not kept: lctx stops its exporters by killing their process group, so
they are never reaped and their time does not reach this process's count
of its children (bench/cpu_meter.py counts it in a control group).

Exit status: 0 done (or --check agrees), 1 --check disagrees or the sweep
did not judge the whole plan, 2 bad usage or unreadable input. Standard
library only.
"""

import json
import os
import subprocess
import sys
import time

from doc_block import BadInput, read, write_or_check, write_record

README_BEGIN = "<!-- lctx-sweep-figures:begin -->"
README_END = "<!-- lctx-sweep-figures:end -->"
C_BEGIN = "/* lctx-sweep-figures:begin */"
C_END = "/* lctx-sweep-figures:end */"


def option(command, name, default):
    """The value of `--name V` or `--name=V` in command, else default."""
    for k, word in enumerate(command):
        if word == name and k + 1 < len(command):
            return command[k + 1]
        if word.startswith(name + "="):
            return word[len(name) + 1:]
    return default


def report_of(out):
    """What OUT/report.json says of the sweep: cases and release."""
    path = os.path.join(out, "report.json")
    try:
        r = json.loads(read(path))
        judged, plan = int(r["cases_run"]), int(r["cases"])
        release = str(r["implementation_version"])
    except (ValueError, KeyError, TypeError) as e:
        raise BadInput("%s: not a sweep's report.json: %s" % (path, e))
    return judged, plan, release


def run(record, out, command):
    """Runs the sweep, keeps its figures; returns the exit status."""
    load_start = [round(x, 2) for x in os.getloadavg()]
    start = time.monotonic()
    try:
        rc = subprocess.call(command)
    except OSError as e:
        raise BadInput("cannot run %s: %s" % (command[0], e))
    wall = time.monotonic() - start
    judged, plan, release = report_of(out)
    if rc not in (0, 1) or judged != plan:
        print("sweep_figures: the sweep exited %d having judged %d of its "
              "%d cases: no record kept" % (rc, judged, plan),
              file=sys.stderr)
        return 1
    fig = {
        "wall_seconds": round(wall),
        "load_start": load_start,
        "load_end": [round(x, 2) for x in os.getloadavg()],
        "cores": os.cpu_count(), "jobs": int(option(command, "--jobs", 0)),
        "cases": judged, "jax": release, "exit": rc,
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
    }
    write_record(fig, record)
    print("sweep_figures: %s kept: %s" % (record, sentence(fig)))
    return 0


def minutes(seconds):
    return "%.0f" % (seconds / 60.0)


def sentence(fig):
    """What README and the help say of the full catalogue's time."""
    return ("the full catalogue (%d cases, JAX %s) took %s minutes at "
            "--jobs %d on %d cores under a load average of %.1f at its "
            "start and %.1f at its end (measured %s by make sweep-record, "
            "docs/sweep-figures.json)"
            % (fig["cases"], fig["jax"], minutes(fig["wall_seconds"]),
               fig["jobs"], fig["cores"], fig["load_start"][0],
               fig["load_end"][0], fig["date"]))


def readme_block(fig):
    """README's block."""
    return "\n".join([
        README_BEGIN,
        "<!-- Written by tools/sweep_figures.py --write from "
        "docs/sweep-figures.json (checked by ctest lctx_sweep_figures): do "
        "not edit by hand. -->",
        "Time: %s." % sentence(fig),
        README_END])


def c_block(fig):
    """The help's lines in cmd_sweep.c: C string literals, 72 columns."""
    words, lines, line = sentence(fig).split(" "), [], "time: "
    for w in words:
        if len(line) + len(w) + 1 > 66:
            lines.append(line)
            line = ""
        line += (" " if line and not line.endswith(": ") else "") + w
    lines.append(line + ".")
    body = "\n".join('    "%s\\n"' % s.replace('"', '\\"') for s in lines)
    return "%s\n%s\n    %s" % (C_BEGIN, body, C_END)


def write_or_check_both(mode, readme, source, record):
    """--write or --check of README's block and the help's; the status."""
    a = write_or_check("sweep_figures", mode, readme, record, readme_block,
                       README_BEGIN, README_END)
    b = write_or_check("sweep_figures", mode, source, record, c_block,
                       C_BEGIN, C_END)
    return max(a, b)


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        sys.stdout.write(__doc__)
        return 0
    try:
        if len(argv) >= 5 and argv[0] == "--run" and argv[3] == "--":
            return run(argv[1], argv[2], argv[4:])
        if len(argv) == 4 and argv[0] in ("--write", "--check"):
            return write_or_check_both(argv[0], argv[1], argv[2], argv[3])
    except BadInput as e:
        print("sweep_figures: %s" % e, file=sys.stderr)
        return 2
    print("usage: sweep_figures.py --run RECORD OUT -- COMMAND... | "
          "--write|--check README CMD_SWEEP_C RECORD", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
