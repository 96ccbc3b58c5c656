"""Generated programs: standalone reproductions (a program's source plus
the check below, JAX only) and the command line of jax_program.py."""

import sys

from .program_source import to_source
from .program_text import ProgramError, parse


REPRO_FOOTER = r'''

# ---------------------------------------------------------------------------
# The check.  Exports `main` for PLATFORMS, then (for the comparison) for
# ("cpu",) and, when the multi-platform export raises, for each platform
# alone; calls what exported on the CPU.  JAX misbehaves (DEFECT
# REPRODUCED) when the multi-platform export raises something other than
# JAX's documented refusals of multi-platform lowering while no platform
# alone raises the same, or when it computes on the CPU something else than
# the export for ("cpu",) alone (floats: relative 1e-6).
#
#     JAX_PLATFORMS=cpu python THIS_FILE.py
#
# prints DEFECT REPRODUCED or NO DEFECT and why (with --json: one JSON
# object whose verdict is "defect" or "fixed") and exits 0.

import contextlib
import json
import math
import re
import sys

PLATFORMS = %(platforms)r

# Messages of JAX's documented NotImplementedError refusals of
# multi-platform lowering: not defects.
# (conformance/spec/jax-sweep.lspec, SW-002, SW-003 and SW-008: the
# plural "for platforms" only; one platform named alone is not a refusal
# of several platforms.)
DOCUMENTED_REFUSALS = (r"^multi-platform lowering for ",
                       r"^accessing \.backend in multi-lowering setting",
                       r"^MLIR translation rule for primitive '.+' not found "
                       r"for platforms ")


def raise_of(err):
    return {"class": type(err).__name__, "message": str(err)[:2000]}


def flat_values(outputs):
    values = []
    for leaf in jax.tree_util.tree_leaves(outputs):
        for v in np.asarray(leaf).ravel().tolist():
            if isinstance(v, float) and not math.isfinite(v):
                v = str(v)  # "nan", "inf", "-inf"
            values.append(v)
    return values


def export_and_run(platforms):
    """Exports main for `platforms`; calls it on the CPU if it can."""
    global EXPORT_PLATFORMS
    EXPORT_PLATFORMS = platforms  # what `export` statements export for
    jax.clear_caches()  # traces made for other platforms are not reused
    out = {"platforms": list(platforms)}
    try:
        exported = jax.export.export(jax.jit(main),
                                     platforms=platforms)(ARG_SPEC)
    except Exception as err:
        out["outcome"] = "raise"
        out.update(raise_of(err))
        return out
    out["outcome"] = "ok"
    out["module_platforms"] = list(exported.platforms)
    if "cpu" in platforms:
        try:
            out["values"] = flat_values(exported.call(ARG))
        except Exception as err:
            out["run_error"] = raise_of(err)
    return out


def documented(r):
    message = r.get("message", "")
    return (r.get("class") == "NotImplementedError"
            and any(re.search(m, message) for m in DOCUMENTED_REFUSALS))


def same_raise(a, b):
    return (a.get("outcome") == "raise" and b.get("outcome") == "raise"
            and a["class"] == b["class"] and a["message"] == b["message"])


def close(u, v):
    if u == v:
        return True
    if not (isinstance(u, float) and isinstance(v, float)):
        return False
    return abs(u - v) <= 1e-6 * max(abs(u), abs(v))


def same_values(a, b):
    return len(a) == len(b) and all(close(u, v) for u, v in zip(a, b))


def check_order(platforms, cpu, report):
    """(defect, why) for the export for `platforms` against ("cpu",)."""
    multi = export_and_run(platforms)
    report["orders"].append(multi)
    if multi["outcome"] == "raise":
        if documented(multi):
            return False, (
                "JAX refuses the export for %%s with a documented "
                "NotImplementedError: %%s" %% (list(platforms),
                                              multi["message"][:200]))
        for p in platforms:
            if p not in report["alone"]:
                report["alone"][p] = (cpu if p == "cpu" and cpu is not None
                                      else export_and_run((p,)))
        same = [p for p in platforms
                if same_raise(multi, report["alone"][p])]
        if same:
            return False, (
                "the export for %%s raises %%s, as the export for %%s alone "
                "does" %% (list(platforms), multi["class"], same[0]))
        return True, (
            "the export for %%s raises %%s: %%s; no platform alone raises it"
            %% (list(platforms), multi["class"], multi["message"][:300]))
    if cpu is None:
        return False, ("the export for %%s succeeds (no cpu among them: "
                       "nothing to compare)" %% list(platforms))
    if cpu["outcome"] == "raise":
        return False, ("the export for %%s succeeds, but the export for "
                       "('cpu',) raises %%s: nothing to compare"
                       %% (list(platforms), cpu["class"]))
    if "run_error" in multi or "run_error" in cpu:
        if "run_error" in multi and "run_error" not in cpu:
            return True, (
                "the export for %%s raises when called on the CPU (%%s: %%s); "
                "the export for ('cpu',) runs" %% (
                    list(platforms), multi["run_error"]["class"],
                    multi["run_error"]["message"][:300]))
        return False, "the call on the CPU raises (%%s)" %% (
            (cpu.get("run_error") or multi["run_error"])["class"])
    if not same_values(multi["values"], cpu["values"]):
        return True, (
            "exported for %%s and called on the CPU, main gives %%s; exported "
            "for ('cpu',) alone it gives %%s" %% (
                list(platforms), multi["values"][:8], cpu["values"][:8]))
    return False, ("exported for %%s and for ('cpu',), main gives the same "
                   "on the CPU" %% list(platforms))


def check():
    """The export for PLATFORMS, and for them reversed (the order can
    matter), each against the export for ("cpu",)."""
    report = {"jax": jax.__version__, "platforms": list(PLATFORMS),
              "orders": [], "cpu_only": None, "alone": {}}
    orders = [tuple(PLATFORMS)]
    if len(PLATFORMS) > 1:
        orders.append(tuple(reversed(PLATFORMS)))
    with contextlib.redirect_stdout(sys.stderr):  # what the program prints
        if "cpu" in PLATFORMS:
            report["cpu_only"] = export_and_run(("cpu",))
        said = [check_order(p, report["cpu_only"], report) for p in orders]
    report["multi"] = report["orders"][0]
    for defect, why in said:
        if defect:
            return report, True, why
    # The order of the platforms must not decide whether the export works:
    # one order raising where the other exports means one of them lowered
    # the wrong code for some platform.
    outcomes = [r["outcome"] for r in report["orders"]]
    if len(set(outcomes)) > 1:
        raising = report["orders"][outcomes.index("raise")]
        return report, True, (
            "the export for %%s raises %%s (%%s) but the export for %%s "
            "succeeds: the order of the platforms decides" %% (
                raising["platforms"], raising["class"],
                raising["message"][:200],
                report["orders"][outcomes.index("ok")]["platforms"]))
    return report, False, "; ".join(why for _, why in said)


if __name__ == "__main__":
    # --json: one JSON object, the convention of tools/defect_status.py
    # (verdict "defect" or "fixed", jax_version, message); otherwise one
    # line, DEFECT REPRODUCED or NO DEFECT and why.
    report, defect, why = check()
    report["verdict"] = "defect" if defect else "fixed"
    report["jax_version"] = jax.__version__
    report["message"] = why
    if sys.argv[1:] == ["--json"]:
        print(json.dumps(report))
    else:
        print("%%s (JAX %%s): %%s" %% ("DEFECT REPRODUCED" if defect
                                      else "NO DEFECT", jax.__version__, why))
    sys.exit(0)
'''


def repro_source(text, platforms):
    """A standalone script (JAX only) reproducing what the program does
    when exported for `platforms`: to_source plus the check above."""
    platforms = tuple(platforms)
    source = to_source(parse(text), platforms)
    return (source.rstrip("\n") + "\n"
            + REPRO_FOOTER % {"platforms": platforms})


# ---------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------

USAGE = ("usage: jax_program.py --check FILE | --source FILE [--platforms "
         "P,...] | --repro FILE --platforms P,...")


def _read(path):
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as f:
        return f.read()


def main(argv):
    mode = path = None
    platforms = None
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("--check", "--source", "--repro", "--platforms"):
            if i + 1 >= len(argv):
                sys.stderr.write("%s needs a value\n%s\n" % (arg, USAGE))
                return 2
            value = argv[i + 1]
            if arg == "--platforms":
                platforms = tuple(p for p in value.split(",") if p)
            else:
                if mode is not None:
                    sys.stderr.write("one of --check, --source, --repro\n")
                    return 2
                mode, path = arg[2:], value
            i += 2
        elif arg in ("-h", "--help"):
            print(USAGE)
            return 0
        else:
            sys.stderr.write("unknown argument %r\n%s\n" % (arg, USAGE))
            return 2
    if mode is None:
        sys.stderr.write(USAGE + "\n")
        return 2
    if mode == "repro" and not platforms:
        sys.stderr.write("--repro needs --platforms\n")
        return 2
    try:
        text = _read(path)
    except OSError as err:
        sys.stderr.write("%s: %s\n" % (path, err.strerror or err))
        return 2
    try:
        program = parse(text)
    except ProgramError as err:
        sys.stderr.write("%s:%d: %s\n" % (path, err.line, err.why))
        return 2
    if mode == "check":
        print("%s: ok (%d nodes)" % (path, program.size))
    elif mode == "source":
        sys.stdout.write(to_source(program, platforms or ("cpu",)))
    else:
        sys.stdout.write(repro_source(text, platforms))
    return 0
