"""The command line of tools/jax_release.py and the order of the release
command's steps: each step run, timed and reported; a failed step named,
the steps that need it left out; the report written to the report folder
(report.txt, report.json, source.diff, draft.md, matrix/)."""

import argparse
import datetime
import json
import os
import sys
import time

from .base import (DEFAULT_LCTX, FULL_MATRIX, INDEX, ROOT, VERSION_RE,
                   Reporter, StepFailed, rel, version_key)
from .drafts import drafts
from .index import index_modelled, load_index
from .source import compare_source, source_report
from .spec import read_spec
from .steps import step_install, step_matrix, step_requirements
from .trees import DirTree, installed_versions, release_tree
from .units import units_stdin

REPORT_FILES = ("report.txt", "report.json", "source.diff", "draft.md")


class Run(object):
    """One release command's steps: their report lines (out), the steps
    that failed and the time each took."""

    def __init__(self, version):
        self.version = version
        self.out = Reporter()
        self.failed = []
        self.seconds = []

    def step(self, n, title, fn, *args):
        """fn(*args), reported as step n; None when it failed."""
        out = self.out
        out("")
        out("jax-release %s: step %d (%s)" % (self.version, n, title))
        start = time.monotonic()
        try:
            return fn(*args)
        except StepFailed as e:
            out("  FAILED: %s" % e)
            self.failed.append("step %d (%s): %s" % (n, title, e))
            return None
        finally:
            took = time.monotonic() - start
            self.seconds.append((n, title, took))
            out("  (step %d took %.1f s)" % (n, took))

    def left_out(self, n, title, why):
        self.out("")
        self.out("jax-release %s: step %d (%s): left out (%s)"
                 % (self.version, n, title, why))


def source_step(out, version, prev):
    """Step 3 on the installed release against the modelled commit and
    prev (the nearest lower release installed, or None)."""
    index = load_index()
    tree = release_tree(version)
    against = release_tree(prev) if prev else None
    out("  jax %s (%s) against the modelled commit %s (%s) and %s" % (
        version, rel(tree.root), index["jax_commit"], INDEX,
        "jax %s, the nearest lower release installed" % prev
        if prev else "no earlier release (none installed here)"))
    c = compare_source(index, tree, against)
    out("")
    source_report(out, c, "jax " + version, ("jax " + prev)
                  if prev else None)
    return c


def source_data(cmp, prev, out_dir):
    """report.json's "source"; source.diff written when step 3 ran."""
    if cmp:
        with open(os.path.join(out_dir, "source.diff"), "w",
                  encoding="utf-8") as f:
            for u in cmp["units"]:
                if u.get("diff"):
                    f.write("\n".join(u["diff"]) + "\n")
    return {"prev": prev, "units": [
        {k: v for k, v in u.items() if k != "diff"} for u in cmp["units"]]
        if cmp else None, "factories": cmp["factories"] if cmp else None,
        "stale": cmp["stale"] if cmp else None}


def matrix_step(run, opts, installed, out_dir, lctx):
    """Step 4, unless left out; its summary or None."""
    if opts.no_matrix:
        run.left_out(4, "matrix", "--no-matrix")
        return None
    if not installed:
        run.left_out(4, "matrix", "JAX %s is not installed" % run.version)
        return None
    if not os.access(lctx, os.X_OK):
        run.failed.append("step 4 (matrix): %s is not there (build it, or "
                          "pass --lctx PATH)" % rel(lctx))
        run.out("")
        run.out("jax-release %s: step 4 (matrix): FAILED: %s is not there"
                % (run.version, rel(lctx)))
        return None
    return run.step(4, "matrix", step_matrix, run.out, run.version, out_dir,
                    lctx, opts.full, opts.random)


def write_report(run, data, out_dir, started):
    """report.txt and report.json, the time per step and the last line."""
    out, version = run.out, run.version
    data["failed"] = run.failed
    data["seconds"] = {"step %d (%s)" % (n, t): round(x, 1)
                       for n, t, x in run.seconds}
    with open(os.path.join(out_dir, "report.txt"), "w",
              encoding="utf-8") as f:
        f.write("\n".join(out.lines) + "\n")
    with open(os.path.join(out_dir, "report.json"), "w",
              encoding="utf-8") as f:
        f.write(json.dumps(data, indent=1, ensure_ascii=False, default=str)
                + "\n")
    out("")
    out("jax-release %s: time per step: %s; %.1f s in all" % (
        version, ", ".join("%d (%s) %.1f s" % x for x in run.seconds),
        time.monotonic() - started))
    written = [n for n in REPORT_FILES + ("matrix",)
               if os.path.exists(os.path.join(out_dir, n))]
    out("")
    out("jax-release %s: %s in %s" % (
        version, "FAILED: " + "; ".join(f.split(":")[0] for f in run.failed)
        if run.failed else "done", rel(out_dir) + " (" + ", ".join(written)
        + ")"))
    with open(os.path.join(out_dir, "report.txt"), "w",
              encoding="utf-8") as f:
        f.write("\n".join(out.lines) + "\n")


def release(opts):
    """The release command on opts.version; returns the exit status."""
    version = opts.version
    out_dir = os.path.abspath(opts.out or os.path.join(
        ROOT, "build", "jax-release", version))
    os.makedirs(out_dir, exist_ok=True)
    for name in REPORT_FILES:
        if os.path.exists(os.path.join(out_dir, name)):
            os.remove(os.path.join(out_dir, name))
    run = Run(version)
    out = run.out
    started = time.monotonic()
    data = {"version": version, "generated": datetime.datetime.now(
        datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
    lctx = os.path.abspath(opts.lctx) if opts.lctx else os.path.join(
        ROOT, DEFAULT_LCTX)
    # The spec first: a malformed source line stops everything.
    try:
        commit, releases, cites = read_spec()
    except (OSError, ValueError) as e:
        sys.stderr.write("jax-release: %s\n" % e)
        return 1
    out("jax-release %s: the modelled commit is jax-ml/jax@%s; the spec "
        "names %s" % (version, commit, ", ".join(releases)))
    run.step(1, "requirements", step_requirements, out, version,
             opts.offline)
    if run.failed:
        run.left_out(2, "install", "step 1 failed")
    else:
        run.step(2, "install", step_install, out, version)
    installed = not run.failed
    not_installed = "JAX %s is not installed" % version
    lower = [v for v in installed_versions()
             if version_key(v) < version_key(version)]
    prev = lower[-1] if lower else None
    cmp = None
    if installed:
        cmp = run.step(3, "source", source_step, out, version, prev)
    else:
        run.left_out(3, "source", not_installed)
    data["source"] = source_data(cmp, prev, out_dir)
    matrix = matrix_step(run, opts, installed, out_dir, lctx)
    data["matrix"] = matrix
    if installed:
        data["drafts"] = run.step(5, "drafts", drafts, out, version,
                                  releases, cites, cmp, prev, installed,
                                  opts, out_dir, matrix)
    else:
        run.left_out(5, "drafts", not_installed)
    write_report(run, data, out_dir, started)
    for f in run.failed:
        sys.stderr.write("jax-release: %s failed: %s\n" % (
            f.split(":")[0], f.split(":", 1)[1].strip()))
    return 1 if run.failed else 0


def has_src(tree):
    if os.path.isdir(os.path.join(tree, "jax", "_src")):
        return True
    sys.stderr.write("jax-release: %s holds no jax/_src/\n" % tree)
    return False


def diff_mode(opts):
    """--diff TREE [--against TREE2]: step 3 alone."""
    if not has_src(opts.diff) or (opts.against and not has_src(
            opts.against)):
        return 2
    tree = DirTree(opts.diff, opts.diff)
    against = DirTree(opts.against, opts.against) if opts.against else None
    try:
        read_spec()
        c = compare_source(load_index(), tree, against)
    except (StepFailed, OSError, ValueError) as e:
        sys.stderr.write("jax-release: %s\n" % e)
        return 1
    source_report(Reporter(), c, opts.diff, opts.against)
    return 0


# The options besides VERSION: (flag, argparse's keywords).
OPTIONS = (
    ("--offline", {"action": "store_true",
                   "help": "never use the network (step 1 needs the "
                           "requirements file to exist)"}),
    ("--random", {"type": int, "default": 2000, "metavar": "N",
                  "help": "random cases of the matrix cell (default 2000)"}),
    ("--full", {"action": "store_true",
                "help": "the matrix cell with make jax-matrix's arguments "
                        "(%s)" % " ".join(FULL_MATRIX)}),
    ("--no-matrix", {"action": "store_true", "help": "leave out step 4"}),
    ("--out", {"metavar": "DIR", "help": "the report folder (default "
                                         "build/jax-release/VERSION)"}),
    ("--lctx", {"metavar": "PATH",
                "help": "the lctx command (default %s)" % DEFAULT_LCTX}),
    ("--jax-git", {"metavar": "DIR",
                   "help": "a git repository of jax-ml/jax, to read "
                           "jaxlib's C++ at the wheel's commit when it "
                           "holds it"}),
    ("--index-modelled", {"metavar": "DIR",
                          "help": "write %s from the modelled commit's "
                                  "source" % INDEX}),
    ("--index-out", {"metavar": "FILE", "help": argparse.SUPPRESS}),
    ("--diff", {"metavar": "TREE",
                "help": "step 3 alone on a folder holding jax/_src/"}),
    ("--against", {"metavar": "TREE2",
                   "help": "with --diff: the tree to diff against"}),
)


def parser():
    p = argparse.ArgumentParser(
        prog="tools/jax_release.py", add_help=True,
        description="Adding a JAX release: requirements, install, the "
                    "cited source against the modelled commit, the "
                    "matrix cell, the drafts.",
        epilog="See the module docstring (head tools/jax_release.py) and "
               "README.md, \"Adding a JAX release\".")
    p.add_argument("version", nargs="?", help="the JAX release, e.g. 0.12.1")
    for flag, how in OPTIONS:
        p.add_argument(flag, **how)
    return p


def main(argv):
    if argv[:1] == ["--units-json"]:
        return units_stdin()
    p = parser()
    opts = p.parse_args(argv)
    modes = [bool(opts.version), bool(opts.index_modelled), bool(opts.diff)]
    if sum(modes) != 1:
        p.error("give one of VERSION, --index-modelled DIR, --diff TREE")
    if opts.against and not opts.diff:
        p.error("--against goes with --diff")
    if opts.random < 0:
        p.error("--random needs a count of 0 or more")
    if opts.index_modelled:
        try:
            return index_modelled(opts.index_modelled, os.path.abspath(
                opts.index_out or os.path.join(ROOT, INDEX)))
        except (StepFailed, OSError, ValueError) as e:
            sys.stderr.write("jax-release: --index-modelled: %s\n" % e)
            return 1
    if opts.diff:
        return diff_mode(opts)
    if not VERSION_RE.match(opts.version):
        p.error("not a JAX version: %r (e.g. 0.12.1)" % opts.version)
    return release(opts)
