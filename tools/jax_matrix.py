#!/usr/bin/env python3
"""The JAX drift matrix: every spec row against several JAX releases.

    python3 tools/jax_matrix.py [options] [VERSION ...] [CONFORM OPTIONS] [-- MORE]

For each JAX version (default: every conformance/adapters/requirements/
jax-VERSION.txt, oldest first) it

1. installs that JAX, pinned and hashed, with `sh tools/setup-jax.sh VERSION`
   (a no-op when it is there already); a version whose Python is missing
   here (setup-jax.sh exit status 3) is recorded as "not installable here";
2. runs `lctx conform --jax VERSION --cmd "build/jax/venv-VERSION/bin/python
   conformance/adapters/jax_adapter.py" --report-dir build/jax-matrix/VERSION`
   (judged as that release behaves), then the same without --jax into
   build/jax-matrix/VERSION/modelled (judged as the modelled commit
   behaves), with the conform options given here (--no-domain, --random N,
   --shard I/N, ...); exit status 1 (failures) is data, exit status 2 (a
   refusal or bad input) records the version as "could not run";
3. reads the runs' report.json and traces each cell (below);
4. runs `lctx sweep --subset ci` (JAX as the subject: the CI subset of the
   catalogue of conformance/adapters/jax_export.py) into
   build/jax-matrix/VERSION/sweep/, unless --no-sweep, and tables its
   totals and findings per version (new findings against the known
   defects of conformance/sweep/regressions, which are the pinned
   release's).

It then writes build/jax-matrix/matrix.json and build/jax-matrix/matrix.md:
the spec rows (in the spec's order) against the versions, each cell the
release's own verdict (`pass`, `fail (...)` naming the first failing case,
`unsupported`, or `—`: no case reached the row) and whether it differs from
the modelled commit, with its trace; per-version totals and the version the
adapter reported, and the status per release of every upstream defect and
generated-program finding (their reports' status blocks).

Options of its own:
  --lctx PATH    the lctx command (default build/release/harness/lctx)
  --out DIR      where the matrix goes (default build/jax-matrix)
  --domain-shard I/N
                 run the conformance cases and the random cases in one
                 conform run without the domain, and the I-th of N shares of
                 the bounded domain in a second one (reports in
                 build/jax-matrix/VERSION/domain/); the cells and totals add
                 both up. (conform's own --shard shares every case source,
                 the conformance cases included.) `make jax-matrix` uses
                 --random 10000 --domain-shard 1/8 --time-limit 900.
  --no-sweep     leave out step 4
  --findings DIR the findings of an `lctx generate` run (OUT/findings):
                 their status per release joins the upstream reports'
                 (docs/upstream-*.md) in matrix.md, as the status blocks of
                 their report.md say (tools/defect_status.py --write)
  --time-limit SECONDS
                 stop a version's conform runs after SECONDS in all (SIGINT:
                 lctx conform then writes the reports of what ran, marked
                 interrupted); the version's cells then hold what was
                 reached. conform sees the signal between batches (of up to
                 256 cases, --batch), so a run can overshoot the limit,
                 especially when the adapter crashes and is restarted for
                 every crash; after 300 s more it is killed.
  -h, --help     this text
Conform options passed through: --no-domain, --process-per-case, --quiet,
--first-failure (flags), --random, --seed, --spec, --cases, --xfail,
--messages, --ops, --shard, --timeout, --batch (with a value); anything
after `--` is passed through as it is.

With LCTX_JAX=off in the environment (as for tools/setup-jax.sh) every
version is skipped.

Each version runs twice: judged as that release behaves (`lctx conform
--jax VERSION`, reports in build/jax-matrix/VERSION/) and as the modelled
commit behaves (build/jax-matrix/VERSION/modelled/). A cell that differs
from the modelled commit is explained when lctx conform traced every
operation that differs to the spec's `was` lines and facts (each citing
the commit that changed it) and the release's own run passes, or when the
row is absent in that release; matrix.md lists the traces.

Exit status: 0 the matrix was written, at least one version ran and every
cell is explained; 4 some cell is unexplained (a failure as the release
itself behaves, or drift without a trace); 1 no version ran (the matrix is
still written, saying why) or it could not be written; 2 bad usage.

Standard library only.
"""

import datetime
import glob
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REQ_DIR = os.path.join("conformance", "adapters", "requirements")
ADAPTER = os.path.join("conformance", "adapters", "jax_adapter.py")
DEFAULT_LCTX = os.path.join("build", "release", "harness", "lctx")
DEFAULT_OUT = os.path.join("build", "jax-matrix")

CONFORM_FLAGS = {"--no-domain", "--process-per-case", "--quiet",
                 "--first-failure"}
CONFORM_VALUED = {"--random", "--seed", "--spec", "--cases", "--xfail",
                  "--messages", "--ops", "--shard", "--timeout", "--batch"}
# The matrix sets these itself.
CONFORM_OWNED = {"--cmd", "--impl", "--report-dir"}

VERDICTS = ["pass", "fail", "xfail", "xpass", "crash", "timeout",
            "unsupported", "flaky"]
BAD = ["fail", "xpass", "crash", "timeout", "flaky"]
VERSION_RE = re.compile(r"^\d+(\.\d+)+$")
NO_CASE = "\u2014"
# lctx conform sees SIGINT between batches (up to 256 cases); a batch that
# keeps crashing the adapter restarts it for each crash, so it gets time.
GRACE_SECONDS = 300
# The versions during which Ctrl-C came; the matrix stops after that one.
INTERRUPTED = []


def say(message):
    print("jax-matrix: %s" % message, flush=True)


def usage_error(message):
    sys.stderr.write("jax-matrix: %s\n(see python3 tools/jax_matrix.py "
                     "--help)\n" % message)
    sys.exit(2)


def version_key(version):
    return tuple(int(p) for p in version.split("."))


def parse_args(argv):
    opts = {"lctx": None, "out": DEFAULT_OUT, "versions": [], "conform": [],
            "domain_shard": None, "raw": [], "time_limit": None,
            "sweep": True, "findings": []}
    i = 0
    while i < len(argv):
        a = argv[i]
        name, eq, inline = a.partition("=")
        if a in ("-h", "--help"):
            sys.stdout.write(__doc__)
            sys.exit(0)
        elif a == "--":
            opts["raw"] = argv[i + 1:]
            break
        elif a == "--no-sweep":
            opts["sweep"] = False
        elif name == "--findings":
            if eq:
                value = inline
            elif i + 1 < len(argv):
                i += 1
                value = argv[i]
            else:
                usage_error("--findings needs a folder")
            if not os.path.isdir(value):
                usage_error("--findings: %r is not a folder" % value)
            opts["findings"].append(os.path.abspath(value))
        elif name in ("--lctx", "--out", "--domain-shard", "--time-limit"):
            if eq:
                value = inline
            elif i + 1 < len(argv):
                i += 1
                value = argv[i]
            else:
                usage_error("%s needs a value" % name)
            opts[name[2:].replace("-", "_")] = value
        elif name in CONFORM_OWNED:
            usage_error("%s is set by the matrix for each version" % name)
        elif a in CONFORM_FLAGS:
            opts["conform"].append(a)
        elif name in CONFORM_VALUED:
            if eq:
                opts["conform"].append(a)
            elif i + 1 < len(argv):
                opts["conform"].extend([a, argv[i + 1]])
                i += 1
            else:
                usage_error("%s needs a value" % a)
        elif a.startswith("-"):
            usage_error("unknown option %s (pass other lctx conform options "
                        "after --)" % a)
        elif VERSION_RE.match(a):
            opts["versions"].append(a)
        else:
            usage_error("not a JAX version: %r" % a)
        i += 1
    if opts["time_limit"] is not None:
        try:
            opts["time_limit"] = float(opts["time_limit"])
        except ValueError:
            opts["time_limit"] = -1
        if opts["time_limit"] <= 0:
            usage_error("--time-limit needs a positive number of seconds")
    if opts["domain_shard"] is not None:
        m = re.match(r"^(\d+)/(\d+)$", opts["domain_shard"])
        if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
            usage_error("--domain-shard: %r is not I/N with 1 <= I <= N"
                        % opts["domain_shard"])
        if any(a.split("=")[0] == "--shard" for a in opts["conform"]):
            usage_error("--domain-shard and --shard do not go together")
    return opts


def strip_options(args, names):
    """args without the options in names (and their values)."""
    out = []
    i = 0
    while i < len(args):
        name = args[i].split("=", 1)[0]
        if name in names:
            if "=" not in args[i] and name in CONFORM_VALUED:
                i += 1
        else:
            out.append(args[i])
        i += 1
    return out


def conform_runs(opts, out_dir, version):
    """The conform runs of one version: (label, report dir, extra args,
    side), side "release" (judged as that release behaves, `--jax
    VERSION`) then "modelled" (judged as the modelled commit behaves, in
    VERSION/modelled/): the first proves the release's own expectations,
    the second measures the drift from the modelled commit."""
    runs = []
    for side, sub, extra in (("release", "", ["--jax", version]),
                             ("modelled", "modelled", [])):
        for label, report_dir, args in side_runs(
                opts, out_dir, os.path.join(out_dir, version, sub) if sub
                else os.path.join(out_dir, version), extra):
            runs.append(("%s (as %s)" % (label, version if side == "release"
                                         else "the modelled commit"),
                         report_dir, args, side))
    return runs


def side_runs(opts, out_dir, main_dir, extra):
    """The conform runs of one side: the cases and random cases, and the
    domain share when there is one."""
    if opts["domain_shard"] is None:
        shutil.rmtree(os.path.join(main_dir, "domain"), ignore_errors=True)
        return [("conform", main_dir, opts["conform"] + extra + opts["raw"])]
    main_args = strip_options(opts["conform"], {"--no-domain"})
    domain_args = strip_options(opts["conform"], {
        "--no-domain", "--random", "--seed", "--cases"})
    no_cases = os.path.join(out_dir, ".no-cases")
    os.makedirs(no_cases, exist_ok=True)
    return [
        ("cases and random cases", main_dir,
         main_args + ["--no-domain"] + extra + opts["raw"]),
        ("domain share %s" % opts["domain_shard"],
         os.path.join(main_dir, "domain"),
         domain_args + ["--cases", no_cases, "--random", "0", "--shard",
                        opts["domain_shard"]] + extra + opts["raw"]),
    ]


def merge_reports(reports):
    """One report adding up several runs' reports (same spec)."""
    if len(reports) == 1:
        return reports[0]
    merged = json.loads(json.dumps(reports[0]))
    for other in reports[1:]:
        for key in ("seconds", "cases_run", "cases_unsupported",
                    "cases_skipped", "restarts"):
            merged[key] = merged.get(key, 0) + other.get(key, 0)
        merged["interrupted"] = merged.get("interrupted") or other.get(
            "interrupted")
        by_id = {row["id"]: row for row in merged["rows"]}
        for row in other["rows"]:
            mine = by_id.get(row["id"])
            if mine is None:
                merged["rows"].append(json.loads(json.dumps(row)))
                continue
            for v in VERDICTS + ["drift_explained"]:
                mine[v] = mine.get(v, 0) + row.get(v, 0)
            for key in ("first", "drift"):
                if key not in mine and key in row:
                    mine[key] = row[key]
            mine["absent"] = mine.get("absent") or row.get("absent")
        if "first_failure" not in merged and "first_failure" in other:
            merged["first_failure"] = other["first_failure"]
    return merged


def available_versions():
    found = []
    for name in os.listdir(REQ_DIR):
        m = re.match(r"^jax-(\d+(?:\.\d+)+)\.txt$", name)
        if m:
            found.append(m.group(1))
    return sorted(found, key=version_key)


def last_line(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[-1] if lines else ""


def setup(version):
    """Runs setup-jax.sh; returns (ok, status, message, seconds, note)."""
    if os.environ.get("LCTX_JAX") == "off":
        say("%s: LCTX_JAX=off: JAX is NOT installed and this version is "
            "SKIPPED" % version)
        return False, "skipped", "LCTX_JAX=off", 0.0, "skipped"
    say("%s: sh tools/setup-jax.sh %s" % (version, version))
    start = time.monotonic()
    proc = subprocess.run(["sh", os.path.join("tools", "setup-jax.sh"),
                           version], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    seconds = time.monotonic() - start
    for line in proc.stdout.splitlines():
        print("  " + line, flush=True)
    # pip's warnings about this machine's configuration are noise here; the
    # script's own errors start with "lctx:".
    errors = [l for l in proc.stderr.splitlines() if l.startswith("lctx:")]
    for line in errors:
        print("  " + line, flush=True)
    note = "already installed" if "already installed" in proc.stdout else (
        "installed")
    if proc.returncode == 3:
        why = last_line("\n".join(errors)) or last_line(proc.stderr)
        why = re.sub(r"^lctx: error: ", "", why)
        return False, "not installable here", why, seconds, note
    if proc.returncode != 0:
        why = last_line("\n".join(errors)) or last_line(proc.stderr) or (
            "setup-jax.sh exited with status %d" % proc.returncode)
        why = re.sub(r"^lctx: error: ", "", why)
        return False, "could not install", why, seconds, note
    python = os.path.join("build", "jax", "venv-" + version, "bin", "python")
    if not os.path.exists(python):
        # LCTX_JAX=off: setup-jax.sh said so and installed nothing.
        return (False, "not installed",
                last_line(proc.stdout) or "setup-jax.sh installed nothing",
                seconds, "skipped")
    return True, "", "", seconds, note


def venv_python_version(version):
    python = os.path.join("build", "jax", "venv-" + version, "bin", "python")
    try:
        return subprocess.run(
            [python, "-c", "import sys; print(sys.version.split()[0])"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def run_conform(lctx, version, report_dir, conform_args, limit=None):
    """Runs lctx conform, interrupted after limit seconds; returns (exit
    status, report or None, message, seconds, whether it was stopped)."""
    if os.path.isdir(report_dir):
        for name in os.listdir(report_dir):
            path = os.path.join(report_dir, name)
            if os.path.isfile(path):
                os.remove(path)
    os.makedirs(report_dir, exist_ok=True)
    python = os.path.join("build", "jax", "venv-" + version, "bin", "python")
    cmd = [lctx, "conform", "--cmd", "%s %s" % (python, ADAPTER),
           "--report-dir", report_dir] + conform_args
    say("%s: %s" % (version, " ".join(shlex.quote(c) for c in cmd)))
    log_path = os.path.join(report_dir, "conform.log")
    start = time.monotonic()
    stopped = False
    err_path = log_path + ".stderr"
    with open(log_path, "w") as log, open(err_path, "w") as err:
        proc = subprocess.Popen(cmd, stdout=log, stderr=err)
        try:
            proc.wait(timeout=limit)
        except KeyboardInterrupt:
            # Ctrl-C reached lctx conform too: it stops after the batch it
            # runs and writes the reports; the matrix is then written from
            # what ran.
            stopped = True
            INTERRUPTED.append(version)
            say("%s: interrupted: waiting for lctx conform to write its "
                "reports" % version)
            proc.wait()
        except subprocess.TimeoutExpired:
            stopped = True
            say("%s: time limit reached: interrupting lctx conform (it "
                "writes the reports of what ran)" % version)
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    seconds = time.monotonic() - start
    with open(err_path) as err:
        stderr = err.read()
    os.remove(err_path)
    if stderr:
        with open(log_path, "a") as log:
            log.write(stderr)
    proc.stderr = stderr
    with open(log_path) as log:
        out = log.read()
    for line in out.splitlines():
        if re.match(r"^(conform:|operations:|result:|first failure:|"
                    r"[A-Z]+-\d+: )", line):
            print("  " + line, flush=True)
    # conform's own error lines start with "lctx conform:" (a usage text
    # may follow them); the implementation's stderr is in its log instead.
    own = [l.strip() for l in proc.stderr.splitlines()
           if l.startswith("lctx conform:")]
    message = own[-1] if own else last_line(proc.stderr)
    report = None
    report_path = os.path.join(report_dir, "report.json")
    if proc.returncode in (0, 1) and os.path.exists(report_path):
        try:
            with open(report_path) as f:
                report = json.load(f)
        except (OSError, ValueError) as e:
            message = "cannot read %s: %s" % (report_path, e)
    elif proc.returncode < 0:
        message = "lctx conform was killed by signal %d" % -proc.returncode
    elif proc.returncode not in (0, 1, 2):
        message = (message or "") + (" (lctx conform exited with status %d)"
                                     % proc.returncode)
    if proc.returncode in (0, 1) and report is None and not message:
        message = "lctx conform wrote no report.json"
    if proc.returncode == 2 and not message:
        message = last_line(out) or "lctx conform exited with status 2"
    return proc.returncode, report, message, seconds, stopped


def cell(row):
    if row is None:
        return {"status": NO_CASE}
    counts = {v: int(row.get(v, 0)) for v in VERDICTS}
    bad = sum(counts[v] for v in BAD)
    total = sum(counts.values())
    c = {"counts": counts}
    if bad:
        kinds = [v for v in BAD if counts[v]]
        c["status"] = "fail"
        c["verdicts"] = kinds
        c["failing"] = bad
        c["reached"] = total
        c["first"] = row.get("first", "")
    elif counts["pass"]:
        c["status"] = "pass"
    elif counts["xfail"]:
        c["status"] = "xfail"
        c["first"] = row.get("first", "")
    elif counts["unsupported"]:
        c["status"] = "unsupported"
    else:
        c["status"] = NO_CASE
    return c


def first_case(first):
    """'random case 154, operation 5: expected ...' -> 'random case 154,
    operation 5'."""
    return first.split(": ", 1)[0] if first else "?"


def md_escape(text):
    return text.replace("|", "\\|").replace("\n", " ")


def cell_md(c):
    s = c["status"]
    if s == "fail":
        kinds = c.get("verdicts", ["fail"])
        what = "" if kinds == ["fail"] else ", ".join(kinds) + "; "
        return "fail (%s%d of %d; first: %s)" % (
            what, c["failing"], c["reached"], first_case(c.get("first", "")))
    if s == "xfail":
        return "xfail"
    return s


# What the adapter names when it declines a protocol operation on an older
# release (conformance/adapters/jax_adapter.py, Capabilities), and the JAX
# commit that brought it (jax-ml/jax; first release holding it): a cell the
# adapter cannot reach is explained by these, and by nothing else.
API_COMMITS = [
    ("ModuleContext.get_backend(optional=...)", "e86b6ae2924d", "0.7.2",
     "ModuleContext.get_backend takes optional"),
    ("returns the rule", "0fd2074ca052", "0.7.0",
     "register_lowering returns None (it returned the rule)"),
    ("rule-lookup entry point", "618460e82012", "0.7.0",
     "the rule look-up as one call (_uncached_lowering)"),
    ("mlir.lower_per_platform", "2d9da6c8fb0a", "0.4.21",
     "lower_per_platform"),
    ("mlir._platforms_for_eqn", "f2121a72fc97", "0.6.1",
     "_platforms_for_eqn"),
    ("config.compute_on_context_manager", "a144eb234b7b", "0.4.32",
     "compute_on_context_manager"),
]
# A trace cites a jax-ml/jax commit, or, for a change after the history
# readable here, the release whose wheel it was read from ("changed in
# jax-v0.12.1 (read from its wheel, FILE:LINES ...)").
COMMIT_RE = re.compile(r"\b[0-9a-f]{12}\b|changed in jax-v[0-9.]+ \(read "
                       r"from its wheel, ")
REFUSAL_RE = re.compile(r"^jax_adapter: (\w+) unsupported: (.*)$")
SPEC = os.path.join("conformance", "spec", "backend-selection.lspec")


def spec_rows(spec_path=SPEC):
    """{row id: {"ops": set of protocol operations (an IR row judges
    lower_per_platform's modules), "was": [(boundary release, commit,
    outcome text)] (its `was` lines)}} from the spec table."""
    rows, current = {}, None
    try:
        with open(spec_path, encoding="utf-8") as f:
            for line in f:
                text = line.strip()
                m = re.match(r"^\[([A-Z]+-\d+)\]", text)
                if m:
                    current = rows.setdefault(m.group(1),
                                              {"ops": set(), "was": []})
                    continue
                if text.startswith("["):  # a [fact] section
                    current = None
                if current is None:
                    continue
                m = re.match(r"^op = (.*)$", text)
                w = re.match(r"^was = (\d+(?:\.\d+)+) ([0-9a-f]{12}) (.*)$",
                             text)
                if m:
                    current["ops"] |= set(m.group(1).split("|"))
                elif text == "check = ir":
                    current["ops"].add("lower_per_platform")
                elif w:
                    current["was"].append(
                        (version_key(w.group(1)), w.group(2), w.group(3)))
    except OSError:
        pass
    return rows


def history_trace(history, version, absent_only=False):
    """What the row's `was` lines say of `version` (those whose boundary
    lies after it), or None when none applies."""
    later = [(b, c, what) for b, c, what in history
             if b > version_key(version)
             and (not absent_only or what.startswith("absent"))]
    if not later:
        return None
    return "the row's expectation at this release comes from its was " \
        "line%s: %s" % ("s" if len(later) > 1 else "", "; ".join(
            "before %s, %s (%s)" % (".".join(map(str, b)), what, c)
            for b, c, what in later))


def adapter_refusals(report_dir):
    """{operation: reason} the adapter logged declining (its log in the
    report folder)."""
    found = {}
    try:
        with open(os.path.join(report_dir, "implementation.log"),
                  encoding="utf-8", errors="replace") as f:
            for line in f:
                m = REFUSAL_RE.match(line.rstrip("\n"))
                if m:
                    found[m.group(1)] = m.group(2)
    except OSError:
        pass
    return found


def refusal_trace(ops, refusals):
    """The commits behind the adapter declining every operation of a row,
    or None when some operation is not declined or a reason names no API
    of API_COMMITS."""
    if not ops or "*" in ops or not all(op in refusals for op in ops):
        return None
    parts = []
    for op in sorted(ops):
        cited = [(c, r, what) for pattern, c, r, what in API_COMMITS
                 if pattern in refusals[op]]
        if not cited:
            return None
        parts.append("%s needs %s" % (op, ", ".join(
            "%s (%s, first in %s)" % (what, c, r) for c, r, what in cited)))
    return "not reachable through the protocol on this release: " + \
        "; ".join(parts)


def trace(at_release, modelled, row_release, row_modelled, reach=None,
          history=None):
    """Whether a cell differs from the modelled commit, and how that is
    explained. Returns (drift, explained, why):

    - the release's own expectations (`--jax VERSION`) fail: unexplained;
    - judged as the modelled commit, operations fail: drift, explained when
      lctx conform traced every failing operation to the `was` lines and
      facts (with their commits) under which it passes, and the release's
      own run passes;
    - operations the release does not have (absent rows: the adapter
      declines them, lctx conform expects that): drift, explained by the
      row's `was ... absent` line;
    - unsupported without an absent row: unexplained (the adapter could not
      drive what the release has)."""
    if at_release is None:
        return False, True, ""
    if at_release["status"] == NO_CASE and reach:
        # No case of the row was sent: the adapter declines its operations.
        return True, True, reach
    if at_release["status"] == "fail":
        return True, False, "fails as the release itself behaves"
    if modelled is None:
        return False, False, ("not judged as the modelled commit (that run "
                              "did not happen: time limit or refusal)")
    m = modelled["status"]
    if m == "fail":
        failing = modelled.get("failing", 0)
        traced = int((row_modelled or {}).get("drift_explained", 0))
        why = (row_modelled or {}).get("drift", "")
        if traced >= failing and COMMIT_RE.search(why):
            return True, True, why
        return True, False, ("%d of %d failing operations traced%s" % (
            traced, failing, ("; first: " + why) if why else ""))
    if "unsupported" in (at_release["status"], m):
        if (row_release or {}).get("absent") and history:
            return True, True, history
        if reach:
            return True, True, reach
        return True, False, "unsupported, and the row is not absent here"
    if m == NO_CASE and at_release["status"] == "pass" and history:
        # The row's situation arises at this release and not at the
        # modelled commit.
        return True, True, history
    return False, True, ""


def build_matrix(opts, versions, results):
    rows = []
    seen = set()
    for r in results:
        for row in (r.get("report") or {}).get("rows", []):
            if row["id"] not in seen:
                seen.add(row["id"])
                rows.append(row["id"])
    spec = spec_rows()
    refusals = {r["version"]: adapter_refusals(r["report_dir"])
                for r in results if r.get("report_dir")}
    matrix_rows = []
    for rid in rows:
        cells = {}
        for r in results:
            report = r.get("report")
            if report is None:
                cells[r["version"]] = None
                continue
            found = next((x for x in report["rows"] if x["id"] == rid), None)
            c = cell(found)
            mrep = r.get("modelled_report")
            mrow = None if mrep is None else next(
                (x for x in mrep["rows"] if x["id"] == rid), None)
            m = None if mrep is None else cell(mrow)
            c["modelled"] = m
            reach = refusal_trace(spec.get(rid, {}).get("ops", set()),
                                  refusals.get(r["version"], {}))
            hist = history_trace(spec.get(rid, {}).get("was", []),
                                 r["version"])
            c["drift"], c["explained"], c["why"] = trace(c, m, found, mrow,
                                                         reach, hist)
            cells[r["version"]] = c
        matrix_rows.append({"id": rid, "cells": cells})
    return rows, matrix_rows


def version_summary(r, matrix_rows):
    report = r.get("report")
    s = {k: r[k] for k in ("version", "status", "message", "python",
                           "install", "install_seconds", "run_seconds",
                           "conform_exit", "conform_runs", "report_dir")
         if k in r}
    if report is not None:
        ops = {v: sum(int(x.get(v, 0)) for x in report["rows"])
               for v in VERDICTS}
        s["adapter"] = "%s %s" % (report.get("implementation", "?"),
                                  report.get("implementation_version", "?"))
        s["spec_version"] = report.get("spec_version")
        s["cases_run"] = report.get("cases_run")
        s["cases_unsupported"] = report.get("cases_unsupported")
        s["cases_skipped"] = report.get("cases_skipped")
        s["conform_seconds"] = report.get("seconds")
        s["restarts"] = report.get("restarts")
        s["interrupted"] = report.get("interrupted")
        s["operations"] = ops
        rows = {"pass": 0, "fail": 0, "xfail": 0, "unsupported": 0,
                NO_CASE: 0}
        failing = []
        for mr in matrix_rows:
            c = mr["cells"].get(r["version"])
            if c is None:
                continue
            rows[c["status"]] = rows.get(c["status"], 0) + 1
            if c["status"] == "fail":
                failing.append(mr["id"])
        s["rows"] = {("not_reached" if k == NO_CASE else k): v
                     for k, v in rows.items()}
        s["failing_rows"] = failing
        if "first_failure" in report:
            s["first_failure"] = report["first_failure"]
    return s


SWEEP_ADAPTER = "conformance/adapters/jax_export.py"


def run_sweep(lctx, version, out_dir):
    """lctx sweep --subset ci against one version; a summary dict."""
    python = os.path.join("build", "jax", "venv-%s" % version, "bin",
                          "python")
    sweep_dir = os.path.join(out_dir, version, "sweep")
    shutil.rmtree(sweep_dir, ignore_errors=True)
    os.makedirs(sweep_dir, exist_ok=True)
    cmd = [lctx, "sweep", "--cmd", "%s %s" % (python, SWEEP_ADAPTER),
           "--subset", "ci", "--out", sweep_dir, "--quiet"]
    start = time.time()
    with open(os.path.join(sweep_dir, "sweep.log"), "w") as log:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=log,
                              text=True)
    out = proc.stdout
    summary = {"exit": proc.returncode,
               "seconds": round(time.time() - start, 1),
               "report_dir": os.path.relpath(sweep_dir, ROOT)}
    m = re.search(r"^sweep: (\d+) programs of (\d+) in the catalogue, "
                  r"(\d+) cases .*?(\d+) exports", out, re.M)
    if m:
        summary.update(programs=int(m.group(1)), catalogue=int(m.group(2)),
                       cases=int(m.group(3)), exports=int(m.group(4)))
    m = re.search(r"^result: (\d+) new findings, (\d+) known", out, re.M)
    if m:
        summary.update(new_findings=int(m.group(1)), known=int(m.group(2)))
    m = re.search(r"^reach: the judged programs lowered (\d+) of the (\d+)",
                  out, re.M)
    if m:
        summary.update(reached=int(m.group(1)), primitives=int(m.group(2)))
    findings = os.path.join(sweep_dir, "findings")
    summary["finding_keys"] = []
    if os.path.isdir(findings):
        for d in sorted(os.listdir(findings)):
            try:
                with open(os.path.join(findings, d, "report.txt")) as f:
                    summary["finding_keys"].append(
                        f.readline().partition(": ")[2].strip())
            except OSError:
                pass
    summary["status"] = ("could not run" if proc.returncode == 2 or
                         "new_findings" not in summary else
                         "pass" if proc.returncode == 0 else "findings")
    return summary


def sweep_markdown(results):
    """The sweep table of matrix.md."""
    md = ["", "## JAX as the subject: `lctx sweep --subset ci`", "",
          "The CI subset of the catalogue of `%s` exported for seeded "
          "platform lists and judged by `conformance/spec/jax-sweep.lspec`; "
          "known defects are those recorded for the pinned release in "
          "`conformance/sweep/regressions/` (xfail). A new finding on "
          "another version is drift, or a defect that release has and the "
          "pinned one has not." % SWEEP_ADAPTER, "",
          "| JAX | status | programs | exports | new findings | known | "
          "primitives reached | s |", "|---|---|---|---|---|---|---|---|"]
    for r in results:
        s = r.get("sweep")
        if not s:
            continue
        md.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["version"], s["status"], s.get("programs", "—"),
            s.get("exports", "—"), s.get("new_findings", "—"),
            s.get("known", "—"),
            "%s of %s" % (s["reached"], s["primitives"])
            if "reached" in s else "—", s["seconds"]))
    for r in results:
        for key in (r.get("sweep") or {}).get("finding_keys", []):
            md.append("- JAX %s: %s" % (r["version"], md_escape(key)))
    return md


def defect_status_rows(opts):
    """[(name, where, {release: status}, summary)] for every upstream report
    (docs/upstream-*.md) and every finding report (--findings DIR: each
    DIR/*/report.md of `lctx generate`) whose status block
    tools/defect_status.py --write filled."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import defect_status
    paths = sorted(glob.glob(os.path.join(ROOT, "docs", "upstream-*.md")))
    for d in opts["findings"]:
        paths += sorted(glob.glob(os.path.join(d, "*", "report.md")))
    out = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            span = defect_status.block_span(text, path)
            if not span:
                continue
            block = defect_status.parse_block(text[span[0]:span[1]], path)
        except (OSError, ValueError) as e:
            say("matrix: %s: no status block read: %s" % (path, e))
            continue
        title = text.split("\n", 1)[0].lstrip("# ").strip()
        summary = [line for line in text[span[0]:span[1]].splitlines()
                   if line.startswith("In short: ")]
        out.append((title, os.path.relpath(path, ROOT),
                    {r.release: r.status for r in block.rows},
                    summary[0][len("In short: "):] if summary else NO_CASE))
    return out


def defects_markdown(defects, results):
    """The status of each known defect and finding per release."""
    if not defects:
        return []
    releases = [r["version"] for r in results]
    for _, _, statuses, _ in defects:
        releases += [v for v in statuses if v not in releases]
    releases.sort(key=version_key)
    md = ["## Defects and findings across releases", "",
          "Each upstream report (`docs/upstream-*.md`) and each finding of "
          "`lctx generate` given with `--findings DIR`, as its status block "
          "says (`python3 tools/defect_status.py --write REPORT` runs its "
          "reproduction under every installed release): `present`, `fixed`, "
          "`cannot run`.", "",
          "| defect | " + " | ".join(releases) + " | in short |",
          "|---|" + "---|" * (len(releases) + 1)]
    for title, where, statuses, summary in defects:
        md.append("| [%s](%s) | %s | %s |" % (
            md_escape(title), where,
            " | ".join(statuses.get(v, NO_CASE) for v in releases),
            md_escape(summary)))
    md.append("")
    return md


def write_outputs(out_dir, opts, argv, lctx, versions, results, started):
    rows, matrix_rows = build_matrix(opts, versions, results)
    summaries = [version_summary(r, matrix_rows) for r in results]
    data = {
        "generated": started,
        "lctx": lctx,
        "conform_args": opts["conform"] + (["--"] + opts["raw"]
                                           if opts["raw"] else []),
        "domain_shard": opts["domain_shard"],
        "adapter": ADAPTER,
        "versions": summaries,
        "sweeps": {r["version"]: r["sweep"] for r in results
                   if r.get("sweep")},
        "rows": [{"id": mr["id"],
                  "cells": {v: (c if c is not None else {"status": NO_CASE})
                            for v, c in mr["cells"].items()}}
                 for mr in matrix_rows],
    }
    os.makedirs(out_dir, exist_ok=True)
    json_path = os.path.join(out_dir, "matrix.json")
    md_path = os.path.join(out_dir, "matrix.md")

    md = []
    md.append("# JAX drift matrix")
    md.append("")
    md.append("Every spec row against each JAX version, judged by `lctx "
              "conform` through `%s`." % ADAPTER)
    md.append("")
    md.append("Generated %s with `python3 tools/jax_matrix.py%s`." % (
        started, "".join(" " + shlex.quote(a) for a in argv)))
    spec_versions = sorted({s.get("spec_version") for s in summaries
                            if s.get("spec_version")})
    if spec_versions:
        md.append("Spec table version %s." % ", ".join(spec_versions))
    md.append("")
    md.append("A cell: `pass` (every case reaching the row passed), `fail "
              "(N of M; first: CASE)` (N of the M operations that reached "
              "the row did not pass; CASE is the first failing one, "
              "detailed below), `unsupported` (only cases the adapter "
              "declined), `%s` (no case reached the row, or the version did "
              "not run)." % NO_CASE)
    md.append("")
    md.append("## Versions")
    md.append("")
    md.append("| JAX | status | adapter reports | Python | install | "
              "install s | conform s | cases | ops pass | ops fail | ops "
              "unsupported | rows pass / fail / unsupported / %s |" % NO_CASE)
    md.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for s in summaries:
        status = s["status"]
        if s.get("message"):
            status += ": " + s["message"]
        ops = s.get("operations")
        rows_c = s.get("rows")
        md.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | "
                  "%s |" % (
                      s["version"], md_escape(status),
                      md_escape(s.get("adapter", NO_CASE)),
                      s.get("python") or NO_CASE,
                      s.get("install", NO_CASE),
                      "%.1f" % s["install_seconds"]
                      if "install_seconds" in s else NO_CASE,
                      "%.1f" % s["run_seconds"]
                      if "run_seconds" in s else NO_CASE,
                      s.get("cases_run", NO_CASE),
                      ops["pass"] if ops else NO_CASE,
                      sum(ops[v] for v in BAD) if ops else NO_CASE,
                      ops["unsupported"] if ops else NO_CASE,
                      "%d / %d / %d / %d" % (
                          rows_c["pass"], rows_c["fail"],
                          rows_c["unsupported"], rows_c["not_reached"])
                      if rows_c else NO_CASE))
    md.append("")
    md.append("## Rows")
    md.append("")
    md.append("Each release is judged twice: as it behaves itself (`lctx "
              "conform --jax VERSION`: its cell must pass) and as the "
              "modelled commit behaves (the drift). A cell is its own "
              "verdict, then `= modelled` when the release does what the "
              "modelled commit does on every operation that reached the "
              "row, or `differs [Tn]` with the trace below, or `UNEXPLAINED` "
              "(a failure as the release behaves, or drift not traced to a "
              "commit).")
    md.append("")
    traces = []
    md.append("| row | " + " | ".join(r["version"] for r in results) + " |")
    md.append("|---|" + "---|" * len(results))
    for mr in matrix_rows:
        cells = []
        for r in results:
            c = mr["cells"].get(r["version"])
            if c is None:
                cells.append(NO_CASE)
                continue
            text = cell_md(c)
            if not c["explained"]:
                text = "UNEXPLAINED: %s (%s)" % (text, c["why"])
            elif c["drift"]:
                if c["why"] not in traces:
                    traces.append(c["why"])
                text += ", differs [T%d]" % (traces.index(c["why"]) + 1)
            elif c["status"] != NO_CASE:
                text += ", = modelled"
            cells.append(md_escape(text))
        md.append("| %s | %s |" % (mr["id"], " | ".join(cells)))
    unexplained = sum(1 for mr in matrix_rows for c in mr["cells"].values()
                      if c is not None and not c["explained"])
    differing = sum(1 for mr in matrix_rows for c in mr["cells"].values()
                    if c is not None and c["drift"])
    md.append("")
    md.append("%d cells differ from the modelled commit; %d unexplained." % (
        differing, unexplained))
    if traces:
        md.append("")
        md.append("## Traces")
        md.append("")
        md.append("What lctx conform found for each differing cell: the "
                  "releases under whose expectations its operations pass, "
                  "and the spec's `was` lines and facts, with the JAX or "
                  "jaxlib commit of each, that differ.")
        md.append("")
        for i, why in enumerate(traces):
            md.append("- T%d: %s" % (i + 1, md_escape(why)))
    data["unexplained_cells"] = unexplained
    data["differing_cells"] = differing
    data["traces"] = traces
    if not matrix_rows:
        md.append("")
        md.append("No version produced a report, so there are no rows.")
    failures = [(mr["id"], r["version"], mr["cells"][r["version"]])
                for r in results for mr in matrix_rows
                if mr["cells"].get(r["version"]) and
                mr["cells"][r["version"]]["status"] in ("fail", "xfail")]
    if failures:
        md.append("")
        md.append("## First failing case per row")
        md.append("")
        md.append("The reports, with every failing case in `results.jsonl`, "
                  "are in `%s/VERSION/`." % os.path.relpath(out_dir, ROOT))
        md.append("")
        for rid, version, c in failures:
            md.append("- JAX %s, %s: %s" % (version, rid,
                                             md_escape(c.get("first", ""))))
    md.append("")

    md.extend(sweep_markdown(results))
    md.append("")
    defects = defect_status_rows(opts)
    data["defects"] = [{"title": t, "report": w, "status": st,
                        "in_short": sm} for t, w, st, sm in defects]
    md.extend(defects_markdown(defects, results))
    for path, text in ((json_path, json.dumps(data, indent=2,
                                              ensure_ascii=False) + "\n"),
                       (md_path, "\n".join(md))):
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    return json_path, md_path, summaries


def main(argv):
    cwd = os.getcwd()
    opts = parse_args(argv)
    os.chdir(ROOT)
    lctx = os.path.abspath(os.path.join(cwd, opts["lctx"])) if opts["lctx"] \
        else os.path.join(ROOT, DEFAULT_LCTX)
    out_dir = os.path.abspath(os.path.join(cwd, opts["out"])) if opts["out"] \
        != DEFAULT_OUT else os.path.join(ROOT, DEFAULT_OUT)
    # Paths under the repository are given relative to it (the commands run
    # there), so the reports and matrix.json do not depend on where it is.
    if out_dir.startswith(ROOT + os.sep):
        out_dir = os.path.relpath(out_dir, ROOT)
    if lctx.startswith(ROOT + os.sep):
        lctx = os.path.relpath(lctx, ROOT)
    if not os.access(lctx, os.X_OK):
        sys.stderr.write("jax-matrix: %s is not there; build it first (make "
                         "build), or pass --lctx PATH\n" % lctx)
        return 1
    versions = opts["versions"] or available_versions()
    if not versions:
        sys.stderr.write("jax-matrix: no requirements files in %s\n"
                         % REQ_DIR)
        return 1
    for v in versions:
        if not os.path.exists(os.path.join(REQ_DIR, "jax-%s.txt" % v)):
            usage_error("no requirements file for JAX %s (there are: %s)" % (
                v, ", ".join(available_versions())))
    started = datetime.datetime.now(datetime.timezone.utc).strftime(
        "%Y-%m-%d %H:%M UTC")
    say("JAX versions %s; conform options: %s%s" % (
        ", ".join(versions),
        " ".join(opts["conform"] + opts["raw"]) or "(lctx's defaults)",
        "; domain share %s in a second run" % opts["domain_shard"]
        if opts["domain_shard"] else ""))

    results = []
    for version in versions:
        if INTERRUPTED:
            results.append({"version": version, "status": "not run",
                            "message": "the matrix was interrupted"})
            continue
        r = {"version": version,
             "report_dir": os.path.relpath(os.path.join(out_dir, version),
                                           ROOT)}
        ok, status, message, seconds, note = setup(version)
        r["install_seconds"] = round(seconds, 1)
        r["install"] = note
        if not ok:
            r["status"], r["message"] = status, message
            say("%s: %s: %s" % (version, status, message))
            results.append(r)
            continue
        r["python"] = venv_python_version(version)
        reports, runs, total, refused = {"release": [], "modelled": []}, \
            [], 0.0, None
        stopped = False
        for label, report_dir, args, side in conform_runs(opts, out_dir,
                                                          version):
            limit = None
            if opts["time_limit"] is not None:
                limit = opts["time_limit"] - total
                if limit <= 0 or INTERRUPTED:
                    stopped = True
                    why = ("interrupted" if INTERRUPTED
                           else "the time limit is reached")
                    runs.append({"run": label, "args": args, "exit": None,
                                 "skipped": why})
                    say("%s: %s skipped: %s" % (version, label, why))
                    continue
            code, report, message, seconds, stop = run_conform(
                lctx, version, report_dir, args, limit)
            total += seconds
            stopped = stopped or stop
            runs.append({"run": label, "args": args, "exit": code,
                         "seconds": round(seconds, 1), "stopped": stop,
                         "report_dir": os.path.relpath(report_dir, ROOT)})
            if report is None:
                refused = message
                break
            reports[side].append(report)
        r["run_seconds"] = round(total, 1)
        r["conform_runs"] = runs
        r["conform_exit"] = max(x["exit"] for x in runs
                                if x["exit"] is not None)
        if refused is not None:
            r["status"] = "could not run"
            r["message"] = refused
        else:
            report = merge_reports(reports["release"])
            if reports["modelled"]:
                r["modelled_report"] = merge_reports(reports["modelled"])
            bad = any(int(row.get(v, 0)) for row in report["rows"]
                      for v in BAD)
            r["status"] = "fail" if bad else "pass"
            if stopped:
                report["interrupted"] = True
                r["status"] += " (partial)"
                r["message"] = (
                    "interrupted: the cells hold what ran" if INTERRUPTED
                    else "stopped at the time limit (%g s): the cells hold "
                    "what ran" % opts["time_limit"])
            r["report"] = report
        if opts["sweep"] and not INTERRUPTED:
            r["sweep"] = run_sweep(lctx, version, out_dir)
            say("%s: sweep (CI subset): %s, %s new findings (%.1f s)" % (
                version, r["sweep"]["status"],
                r["sweep"].get("new_findings", "?"), r["sweep"]["seconds"]))
        say("%s: %s%s (install %.1f s, conform %.1f s)" % (
            version, r["status"], ": " + r["message"] if r.get("message")
            else "", r["install_seconds"], r["run_seconds"]))
        results.append(r)

    try:
        json_path, md_path, summaries = write_outputs(
            out_dir, opts, argv, lctx, versions, results, started)
    except OSError as e:
        sys.stderr.write("jax-matrix: cannot write the matrix: %s\n" % e)
        return 1
    say("matrix: %s and %s" % (os.path.relpath(md_path, cwd),
                                os.path.relpath(json_path, cwd)))
    for s in summaries:
        line = "  JAX %-8s %s" % (s["version"], s["status"])
        if s.get("message"):
            line += ": " + s["message"]
        if s.get("failing_rows"):
            line += " (failing rows: %s)" % ", ".join(s["failing_rows"])
        print(line)
    ran = [r for r in results if r.get("report") is not None]
    if not ran:
        sys.stderr.write("jax-matrix: no JAX version ran\n")
        return 1
    with open(json_path) as f:
        unexplained = json.load(f).get("unexplained_cells", 0)
    if unexplained:
        sys.stderr.write("jax-matrix: %d cells are unexplained (see %s)\n"
                         % (unexplained, os.path.relpath(md_path, cwd)))
        return 4
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
