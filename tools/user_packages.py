#!/usr/bin/env python3
"""lctx on real third-party packages that register JAX primitives: sweeps
each package's catalogue and writes docs/user-packages.md (`make
user-packages`).

For each package PKG of tools/package_venvs.py (its venv
build/packages/PKG/venv, made from the pinned and hashed
conformance/packages/PKG/requirements.txt), this runs

    lctx sweep --programs conformance/packages/PKG/programs.py \\
        --package MODULE --python build/packages/PKG/venv/bin/python \\
        --out build/packages/PKG/sweep --lists 2 --seed 1 --restart

(the user catalogue, and a program per primitive the package registers,
with the package's folder as a user root: the exporter discovers the
package before it imports the catalogue, which imports the package).  It
reads the sweep's results.jsonl (the outcome of every case) and
report.json (its "diagnoses"), asks the exporter what
the package registers (`jax_export.py --package MODULE --discover`), runs
each standalone reproduction conformance/packages/PKG/repro_*.py named by
conformance/packages/PKG/findings.json (--json: its verdict), and writes
the table.

    python3 tools/user_packages.py [--lctx PATH] [--jobs N] [--no-setup]
                                   [--out FILE] [PKG ...]
    python3 tools/user_packages.py --check PKG [--lctx PATH] [--out FILE]
                                   [--no-sweep]

--check sweeps PKG again and compares its outcomes with the lines of the
table between `<!-- outcomes PKG -->` and `<!-- /outcomes PKG -->` in
docs/user-packages.md, or --out FILE (exit 1 naming each difference);
with --no-sweep it compares the outcomes of the sweep an earlier run left
in build/packages/PKG/sweep instead of sweeping again.  lctx is --lctx,
else $LCTX, else build/release/harness/lctx.  Exit status: 0 done (or
the outcomes still hold), 1 a sweep, install or check failed, 2 bad
usage.  Standard library only.
"""

import json
import os
import subprocess
import sys
import textwrap

import package_venvs as pv

ROOT = pv.ROOT
DOC = os.path.join(ROOT, "docs", "user-packages.md")
EXPORTER = os.path.join("conformance", "adapters", "jax_export.py")
SEED, LISTS = 1, 2
REGENERATE = "make user-packages   # = python3 tools/user_packages.py"
USAGE = ("usage: python3 tools/user_packages.py [--lctx PATH] [--jobs N] "
         "[--no-setup] [--out FILE] [PKG ...]\n"
         "       python3 tools/user_packages.py --check PKG [--lctx PATH] "
         "[--out FILE] [--no-sweep]")


class Failure(Exception):
    """A step failed; the message says which."""


def rel(path):
    """path relative to the repository, a package's file relative to its
    site-packages (no machine paths in the table)."""
    path = str(path)
    marker = "site-packages" + os.sep
    if marker in path:
        return path.split(marker, 1)[1]
    if path.startswith(ROOT + os.sep):
        return path[len(ROOT) + 1:]
    return path


def run_sweep(lctx, name, args, out, jobs):
    """One lctx sweep; returns (exit status, its stderr's last line)."""
    cmd = [lctx, "sweep"] + args + [
        "--python", pv.venv_python(name), "--out", out, "--lists",
        str(LISTS), "--seed", str(SEED), "--jobs", str(jobs), "--quiet",
        "--restart"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, JAX_PLATFORMS="cpu"))
    last = (proc.stderr.strip().splitlines() or [""])[-1]
    return proc.returncode, last


def read_json_lines(path):
    """The JSON objects of a file, one a line; Failure naming the file
    and line when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as err:
        raise Failure("cannot read %s: %s" % (rel(path), err.strerror))
    items = []
    for number, line in enumerate(lines, 1):
        try:
            items.append(json.loads(line))
        except ValueError as err:
            raise Failure("%s:%d: not JSON: %s" % (rel(path), number, err))
    return items


def read_cases(out):
    """[(program, platforms, outcome, rows not passed)] of results.jsonl."""
    cases = []
    for item in read_json_lines(os.path.join(out, "results.jsonl")):
        if not isinstance(item, dict) or "case" not in item:
            continue
        bad = sorted({"%s %s" % (v.get("row"), v.get("verdict"))
                      for v in item.get("verdicts", [])
                      if v.get("verdict") not in ("pass", "skip")})
        cases.append((str(item.get("program")),
                      tuple(item.get("platforms", ())),
                      str(item.get("outcome", "?")), bad))
    return cases


def read_diagnoses(out):
    path = os.path.join(out, "report.json")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f).get("diagnoses", [])
    except (OSError, ValueError, AttributeError) as err:
        raise Failure("cannot read the diagnoses of %s: %s" % (rel(path),
                                                                err))


# The classes of a census entry in the user's code: a case that exported
# can carry one (its SW-006 row fails).
CENSUS_CLASSES = ("get-backend", "host-backend")


def classify(program, outcome, diagnoses, bad=()):
    """The class of a case: for one that exported, "ok", or the census
    class of the program's diagnosis when a row failed; else the class of
    the diagnosis of the same program whose message the outcome holds,
    else "raise"."""
    mine = [d for d in diagnoses
            if isinstance(d, dict) and d.get("program") == program]
    if outcome == "ok":
        census = [d for d in mine if d.get("class") in CENSUS_CLASSES]
        return str(census[0]["class"]) if bad and census else "ok"
    for d in mine:
        head = str(d.get("message", "")).split(":", 1)
        if head[0] in outcome and head[-1].strip()[:60] in outcome:
            return str(d.get("class"))
    return str(mine[0].get("class")) if len(mine) == 1 else "raise"


def short(outcome):
    """'raise ValueError at jax/...:1316: text' -> 'ValueError at ...'."""
    if outcome == "ok":
        return "ok"
    text = outcome[len("raise "):] if outcome.startswith("raise ") else \
        outcome
    head, _, msg = text.partition(": ")
    msg = msg.replace("\\x0a", " ").replace("|", "/")
    return "%s: %s" % (rel(head), msg[:110] + ("..." if len(msg) > 110
                                               else ""))


def sweep_package(lctx, name, jobs, sweep=True):
    """The sweep of a package: {"cases", "diagnoses", "notes"}; with
    sweep False, the one an earlier run left in its folder."""
    module = pv.PACKAGES[name]["modules"][0]
    programs = os.path.join("conformance", "packages", name, "programs.py")
    out = os.path.join("build", "packages", name, "sweep")
    status, last = run_sweep(lctx, name, ["--programs", programs,
                                          "--package", module], out,
                             jobs) if sweep else (0, "")
    if status not in (0, 1):
        raise Failure("%s: lctx sweep exited %d: %s" % (name, status, last))
    cases = read_cases(os.path.join(ROOT, out))
    notes = []
    if not any(c[0].startswith("package/") for c in cases):
        notes.append("discovery built no program: the package registers "
                     "no primitive, or none accepted the candidate "
                     "arguments without parameters (the list above says "
                     "which)")
    return {"cases": cases, "diagnoses": read_diagnoses(os.path.join(ROOT,
                                                                     out)),
            "notes": notes}


def discover(name):
    """What the package registers, from the exporter's --discover report:
    its primitives grouped by the platforms of their rules."""
    module = pv.PACKAGES[name]["modules"][0]
    proc = subprocess.run(
        [pv.venv_python(name), EXPORTER, "--package", module, "--discover"],
        cwd=ROOT, capture_output=True, text=True,
        env=dict(os.environ, JAX_PLATFORMS="cpu"))
    head, groups = [], {}
    for ln in proc.stdout.splitlines():
        if ln.startswith("package "):
            head.append(ln.rstrip())
        elif ln.startswith("  left out"):
            names = ln.split("): ", 1)[-1].split(", ")
            head.append("  left out, JAX's own (imported with it): %d "
                        "(%s%s)" % (len(names), ", ".join(names[:6]),
                                    ", ..." if len(names) > 6 else ""))
        elif ln.startswith("  ") and ln[2:3] not in (" ", "") and \
                " [" in ln and "]: " in ln:
            prim, rest = ln.strip().split(" [", 1)
            platforms, what = rest.split("]: ", 1)
            kind = "program" if what.startswith("program") else \
                "no program"
            groups.setdefault((platforms, kind), []).append(prim)
    out = head
    for (platforms, kind), prims in sorted(groups.items()):
        out.append("  rules [%s], %s: %d" % (platforms, kind, len(prims)))
        out += textwrap.wrap(", ".join(prims), 74, initial_indent="    ",
                             subsequent_indent="    ")
    return out


def findings_of(name):
    """The package's findings.json: a list of objects with "id",
    "class", "programs" (a list), "repro" (a file or null), "what", and
    for a finding "fix" (optional "match")."""
    path = os.path.join(pv.PKG_DIR, name, "findings.json")
    if not os.path.isfile(path):
        return []
    try:
        with open(path, encoding="utf-8") as f:
            items = json.load(f)
    except ValueError as err:
        raise Failure("%s: not JSON: %s" % (rel(path), err))
    if not isinstance(items, list):
        raise Failure("%s: want a list of findings" % rel(path))
    for i, item in enumerate(items):
        need = ("id", "class", "programs", "repro", "what")
        missing = [k for k in need if not isinstance(item, dict)
                   or k not in item]
        if missing or not isinstance(item["programs"], list):
            raise Failure("%s: finding %d: missing or bad field %s" % (
                rel(path), i, (missing or ["programs"])[0]))
        if item["repro"] and "fix" not in item:
            raise Failure("%s: finding %d: missing field fix" % (
                rel(path), i))
    return items


def run_repro(name, repro):
    """The verdict line of a standalone reproduction, run in the venv."""
    path = os.path.join(pv.PKG_DIR, name, repro)
    proc = subprocess.run([pv.venv_python(name), path, "--json"],
                          cwd=os.path.dirname(path), capture_output=True,
                          text=True, env=dict(os.environ,
                                              JAX_PLATFORMS="cpu"))
    try:
        data = json.loads(proc.stdout[proc.stdout.index("{"):])
    except ValueError:
        return "exit %d, no verdict" % proc.returncode
    return "%s (exit %d)" % (data.get("verdict", "?").upper(),
                             proc.returncode)


def finding_for(program, outcome, findings):
    """The id of the finding (or artifact) naming this program: the first
    whose "match" text (when it has one) the outcome holds."""
    bare = program.split("/", 2)[-1] if program.startswith("user/") \
        else program
    mine = [f for f in findings
            if program in f["programs"] or bare in f["programs"]]
    for f in mine:
        if f.get("match") and f["match"] in outcome:
            return f["id"]
    return mine[0]["id"] if mine else ""


def outcome_lines(name, swept, findings):
    """The package's outcome table: one line per case, sorted."""
    rows = []
    for program, platforms, outcome, bad in swept["cases"]:
        klass = classify(program, outcome, swept["diagnoses"], bad)
        fid = finding_for(program, outcome, findings) if klass != "ok" \
            else ""
        rows.append("| `%s` | %s | %s | %s | %s |" % (
            program, ", ".join(platforms), klass, fid or "",
            short(outcome) + ("; rows: " + ", ".join(bad) if bad else "")))
    return sorted(rows)


def version_of(name):
    spec = pv.PACKAGES[name]["spec"]
    return spec.split("==", 1)[1]


def summary_row(name, swept, findings):
    meta = pv.PACKAGES[name]
    cases = swept["cases"]
    programs = sorted({c[0] for c in cases})
    ok = sum(1 for c in cases if c[2] == "ok")
    real = [f["id"] for f in findings if f["class"] != "artifact"]
    return "| [%s](#%s) | %s | %s | %s | %d | %d | %d ok, %d raise | %s |" % (
        name, name, version_of(name), meta["jax"],
        pv.python_version_for(meta["jax"]), len(programs), len(cases), ok,
        len(cases) - ok, ", ".join(real) or "none")


def package_section(name, swept, findings, registered):
    meta = pv.PACKAGES[name]
    out = ["## %s" % name, "",
           "`%s` on JAX %s, CPython %s: requirements "
           "[conformance/packages/%s/requirements.txt](../conformance/"
           "packages/%s/requirements.txt), catalogue "
           "[programs.py](../conformance/packages/%s/programs.py)." % (
               meta["spec"], meta["jax"], pv.python_version_for(meta["jax"]),
               name, name, name), "",
           "What importing it registers (`jax_export.py --package %s "
           "--discover`):" % meta["modules"][0], "", "```"]
    out += registered or ["(nothing)"]
    out += ["```", ""]
    for note in swept["notes"]:
        out += ["Note: %s." % note, ""]
    out += ["Outcomes (class: the sweep's diagnosis of the case; ok: "
            "exported, and the CPU run judged):", "",
            "<!-- outcomes %s -->" % name,
            "| program | platforms | class | finding | outcome |",
            "| --- | --- | --- | --- | --- |"]
    out += outcome_lines(name, swept, findings)
    out += ["<!-- /outcomes %s -->" % name, ""]
    for f in findings:
        if f.get("repro"):
            link = "[%s](../conformance/packages/%s/%s)" % (
                f["repro"], name, f["repro"])
            out.append("- **%s** (%s): %s Fix: %s Reproduction: %s, "
                       "verdict here: %s." % (
                           f["id"], f["class"], f["what"], f["fix"], link,
                           f["verdict"]))
        else:
            out.append("- **%s** (%s, not a finding of the package): %s" % (
                f["id"], f["class"], f["what"]))
    if findings:
        out.append("")
    return out


HEAD = """# lctx on third-party packages that register JAX primitives

Each package below registers primitives with lowering rules (or, for
warp-lang, FFI targets) and is installed, pinned and hashed, in its own
virtual environment (tools/package_venvs.py). Its catalogue
(conformance/packages/PKG/programs.py, format conformance/sweep/USER.md)
calls the package's public API on small CPU inputs (a program whose
kernels are custom calls of the package names their targets in
`disabled_checks`, as a user exporting them would: jax.export refuses
them otherwise, whatever the platforms); `lctx sweep` exports each
program for the platform lists it declares, else for %d seeded lists
(seed %d), for each list reversed, for the CPU alone and for each
platform alone, runs the CPU export, and diagnoses each raise, and each
look-up of the census in the package's code (class get-backend,
host-backend, missing-rule, host-callback, jax-defect, other). Every
finding was checked by hand and has a standalone
reproduction that runs with only JAX and that package installed and prints
DEFECT REPRODUCED or NO DEFECT (`--json` for a JSON object). Discovered
programs (`package/PKG/PRIMITIVE`) bind a primitive alone with candidate
arguments; where that is no valid call the outcome is marked an artifact.

Regenerate (installs the seven venvs from PyPI, 0.6 to 1 GB each; not
part of `make test`, which sweeps equinox only: ctest
user_packages_equinox):

```
%s
```

Machine of this table: Linux x86_64, CPU only (no GPU plugin: a program
whose rule needs the cuda plugin, CUDA headers or a GPU wheel at lowering
time shows that here).

| package | version | JAX | Python | programs | cases | outcomes | findings |
| --- | --- | --- | --- | --- | --- | --- | --- |
"""


NOT_SWEPT = """Not in the table: oryx 0.2.9 (its tensorflow-probability 0.25 fails to
import on JAX 0.10.2: jax.interpreters.xla.pytype_aval_mappings is gone),
mpi4jax (pip finds no wheel of it for CPython 3.11 on Linux x86_64; a
source build needs MPI and was not attempted),
torch2jax (pulls torch with its CUDA wheels, several GB), jax-triton (needs
triton and a GPU). Within the swept packages, jaxdecomp's cuda-only
primitives (fft, halo_exchange, transpose) are bound only when an array is
sharded over several devices, and s2fft's healpix_fft_cuda is refused at
trace time by the CPU wheel (MissingCUDASupport): neither is reached here.
"""


def class_counts(results):
    """One sentence: the classes diagnosed, and the census's silence."""
    counts = {}
    for name, (swept, findings, _) in results.items():
        for program, _, outcome, bad in swept["cases"]:
            klass = classify(program, outcome, swept["diagnoses"], bad)
            if klass == "ok":
                continue
            fid = finding_for(program, outcome, findings)
            artifact = any(f["id"] == fid and f["class"] == "artifact"
                           for f in findings)
            key = "artifact" if artifact else klass
            counts.setdefault(key, set()).add(name)
    parts = ["%s (%s)" % (k, ", ".join(sorted(v)))
             for k, v in sorted(counts.items())]
    text = "Cases diagnosed, by class: " + ("; ".join(parts) or "none") + "."
    if not counts.get("get-backend"):
        text += (" No case was diagnosed get-backend: no rule of these "
                 "packages read the backend under several platforms.")
    return text + "\n"


def render(results):
    out = [HEAD % (LISTS, SEED, REGENERATE)]
    for name, (swept, findings, _) in results.items():
        out.append(summary_row(name, swept, findings) + "\n")
    out.append("\n" + class_counts(results) + "\n" + NOT_SWEPT + "\n")
    for name, (swept, findings, registered) in results.items():
        out.append("\n".join(package_section(name, swept, findings,
                                             registered)) + "\n")
    return "".join(out)


def find_lctx(arg):
    lctx = arg or os.environ.get("LCTX") or os.path.join(
        ROOT, "build", "release", "harness", "lctx")
    if not os.access(lctx, os.X_OK):
        raise Failure("no lctx at %s (build it, or pass --lctx PATH)" % lctx)
    return os.path.abspath(lctx)


def check(name, lctx, jobs, doc, sweep=True):
    """Sweeps `name` (with sweep False, takes its last sweep) and compares
    its outcome lines with the table's in `doc`."""
    try:
        with open(doc, encoding="utf-8") as f:
            text = f.read()
    except OSError as err:
        raise Failure("cannot read %s: %s" % (rel(doc), err.strerror))
    start, end = "<!-- outcomes %s -->" % name, "<!-- /outcomes %s -->" % name
    if start not in text or end not in text:
        raise Failure("%s has no outcomes of %s" % (rel(doc), name))
    want = [ln for ln in text.split(start, 1)[1].split(end, 1)[0]
            .splitlines() if ln.startswith("| `")]
    got = outcome_lines(name, sweep_package(lctx, name, jobs, sweep),
                        findings_of(name))
    differ = [("table: " + ln) for ln in want if ln not in got] + \
        [("now:   " + ln) for ln in got if ln not in want]
    for ln in differ:
        print(ln)
    print("%s: %d cases, %s" % (name, len(got), "the table's outcomes hold"
                                if not differ else "%d lines differ"
                                % len(differ)))
    return 1 if differ else 0


def parse(argv):
    opts = {"lctx": None, "jobs": 2, "setup": True, "out": DOC,
            "check": None, "names": [], "sweep": True}
    it = iter(argv)
    for arg in it:
        if arg in ("--lctx", "--jobs", "--out", "--check"):
            value = next(it, None)
            if value is None:
                raise ValueError("%s needs a value" % arg)
            if arg == "--jobs":
                if not value.isdigit() or int(value) < 1:
                    raise ValueError("--jobs wants a positive number")
                value = int(value)
            opts[arg[2:]] = value
        elif arg == "--no-setup":
            opts["setup"] = False
        elif arg == "--no-sweep":
            opts["sweep"] = False
        elif arg in pv.PACKAGES:
            opts["names"].append(arg)
        else:
            raise ValueError("unknown argument %r (packages: %s)" % (
                arg, ", ".join(sorted(pv.PACKAGES))))
    if opts["check"] is not None and opts["check"] not in pv.PACKAGES:
        raise ValueError("--check: unknown package %r" % opts["check"])
    if not opts["sweep"] and opts["check"] is None:
        raise ValueError("--no-sweep goes with --check PKG")
    return opts


def main(argv):
    try:
        o = parse(argv)
    except ValueError as err:
        print("lctx: error: %s\n%s" % (err, USAGE), file=sys.stderr)
        return 2
    try:
        lctx = find_lctx(o["lctx"])
        names = [o["check"]] if o["check"] else (o["names"]
                                                 or list(pv.PACKAGES))
        if o["setup"]:
            for name in names:
                pv.setup(name)
        if o["check"]:
            return check(o["check"], lctx, o["jobs"], o["out"], o["sweep"])
        results = {}
        for name in names:
            pv.say("sweeping %s" % name)
            findings = findings_of(name)
            for f in findings:
                if f.get("repro"):
                    f["verdict"] = run_repro(name, f["repro"])
            results[name] = (sweep_package(lctx, name, o["jobs"]), findings,
                             discover(name))
        with open(o["out"], "w", encoding="utf-8") as f:
            f.write(render(results))
        pv.say("wrote %s" % rel(o["out"]))
    except (Failure, pv.Failure) as err:
        message = err.args[0][1] if isinstance(err, pv.Failure) else \
            str(err)
        print("lctx: error: %s" % message, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
