"""Running things for the matrix: installing a JAX release, the conform
runs of a version (as the release behaves and as the modelled commit
behaves, each with its domain share) and the sweep.

What a run found is not read here: lctx.merge_runs asks lctx for it.
"""

import os
import re
import shlex
import shutil
import signal
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
REQ_DIR = os.path.join("conformance", "adapters", "requirements")
ADAPTER = os.path.join("conformance", "adapters", "jax_adapter.py")
SWEEP_ADAPTER = "conformance/adapters/jax_export.py"

CONFORM_FLAGS = {"--no-domain", "--process-per-case", "--quiet",
                 "--first-failure"}
CONFORM_VALUED = {"--random", "--seed", "--spec", "--cases", "--xfail",
                  "--messages", "--ops", "--shard", "--timeout", "--batch"}
# The matrix sets these itself.
CONFORM_OWNED = {"--cmd", "--impl", "--report-dir"}

# lctx conform sees SIGINT between batches (up to 256 cases); a batch that
# keeps crashing the adapter restarts it for each crash, so it gets time.
GRACE_SECONDS = 300
# The versions during which Ctrl-C came; the matrix stops after that one.
INTERRUPTED = []


def say(message):
    print("jax-matrix: %s" % message, flush=True)


def version_key(version):
    return tuple(int(p) for p in version.split("."))


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
    domain share when there is one. Their report folders are whole runs
    of their own, merged by `lctx report merge --runs`."""
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
    status, whether it ran and wrote its report.json, message, seconds,
    whether it was stopped). Its verdict is lctx's (lctx.merge_runs)."""
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
    wrote = os.path.isfile(os.path.join(report_dir, "report.json"))
    if proc.returncode < 0:
        message = "lctx conform was killed by signal %d" % -proc.returncode
    elif proc.returncode not in (0, 1, 2):
        message = (message or "") + (" (lctx conform exited with status %d)"
                                     % proc.returncode)
    if proc.returncode in (0, 1) and not wrote:
        message = message or "lctx conform wrote no report.json"
    if proc.returncode == 2 and not message:
        message = last_line(out) or "lctx conform exited with status 2"
    ran = proc.returncode in (0, 1) and wrote
    return proc.returncode, ran, message, seconds, stopped


def run_sweep(lctx, version, out_dir):
    """lctx sweep --subset ci against one version; a summary dict."""
    python = os.path.join("build", "jax", "venv-%s" % version, "bin",
                          "python")
    sweep_dir = os.path.join(out_dir, version, "sweep")
    shutil.rmtree(sweep_dir, ignore_errors=True)
    os.makedirs(sweep_dir, exist_ok=True)
    cmd = [lctx, "sweep", "--cmd", "%s %s --lctx %s" % (
        shlex.quote(python), SWEEP_ADAPTER, shlex.quote(lctx)),
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
