#!/usr/bin/env python3
"""Writes and checks the table of JAX releases in each upstream defect report.

Each docs/upstream-*.md that names its reproduction with a line

    <!-- lctx-defect: repro=conformance/adapters/repro_NAME.py -->

gets, between the markers

    <!-- lctx-defect-status:begin -->
    <!-- lctx-defect-status:end -->

a table of the JAX releases the reproduction was run on and what it said:
"present" (it printed DEFECT REPRODUCED), "fixed" (FIXED IN THIS JAX
VERSION) or "cannot run" (no verdict; the reason is taken from its output
or exit status), followed by the first release that fixed the defect: the
oldest release run, after the newest one where it is present, that is
fixed (a bisection over the installed wheels).

The releases are the virtual environments build/jax/venv-VERSION that
tools/setup-jax.sh VERSION creates: every build/jax/venv-*/bin/python
present, in numerical order (0.12.0 < 0.12.0.1 < 0.12.1). Each run is
    build/jax/venv-VERSION/bin/python -I REPRO --json
from the repository root with JAX_PLATFORMS=cpu, one run at a time, each
with a time limit; a release counts when the verdict of its JSON object is
"defect" or "fixed", the exit status is 0 (the reproductions' convention)
and the object's jax_version is VERSION.

Usage:
  defect_status.py --write [--releases V1,V2] [--docs DIR | DOC...]
  defect_status.py --check [--releases V1,V2] [--docs DIR | DOC...]

--write   runs the reproductions and rewrites the tables. Rows of releases
          not run now (not installed, or left out by --releases) are kept
          from the earlier run, with the date of that run.
--check   runs them again over the releases installed now and compares each
          release's status with the table; releases in the table that are
          not installed are not judged, and are listed as such. It also
          fails when the text of the block is not what --write makes of its
          own rows (an edit by hand).
--releases V1,V2   only these installed releases.
--docs DIR         the folder of the upstream-*.md reports (default docs/);
                   or name the reports themselves (DOC...). The
                   reproduction a report names is relative to the
                   repository root, wherever the report is.
--jax-dir DIR      where the venv-VERSION folders are (default build/jax).
--timeout SECONDS  the time limit of one run (default 300).

Exit status: 0 written, or every judged release agrees; 1 (--check) a table
disagrees with a fresh run, or is missing or edited by hand: each
difference names the report and the release; 2 bad usage or bad input (an
unknown report, a missing reproduction, no JAX installed, a venv whose
python does not run, a table --write cannot read).
"""

import argparse
import dataclasses
import datetime
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jax_venvs
from jax_venvs import (REQ_DIR, release_key, requirement_releases,
                       sort_releases)
from jax_venvs import repo_rel as shown_path

ROOT = Path(jax_venvs.ROOT)
DOC_GLOB = "upstream-*.md"
DEFECT_LINE = re.compile(r"^<!-- lctx-defect: repro=(\S+) -->[ \t]*$", re.M)
BEGIN = "<!-- lctx-defect-status:begin -->"
END = "<!-- lctx-defect-status:end -->"
PRESENT, FIXED, CANNOT = "present", "fixed", "cannot run"
STATUSES = (PRESENT, FIXED, CANNOT)
# The verdicts of a reproduction's --json object that count (DEFECT REPRODUCED,
# FIXED IN THIS JAX VERSION).
VERDICTS = ("defect", "fixed")
TABLE_HEAD = ["| JAX | jaxlib | Python | status | run on | what the run said |",
              "|---|---|---|---|---|---|"]
NOTE_MAX = 240
DEFAULT_TIMEOUT = 300
# What the probe of a venv prints: its Python and the jax and jaxlib
# distributions installed in it (read from their metadata, not imported).
PROBE = r"""
import json, sys, platform
from importlib import metadata
def version(name):
    try:
        return metadata.version(name)
    except Exception:
        return None
print(json.dumps({"python": platform.python_version(),
                  "jax": version("jax"), "jaxlib": version("jaxlib")}))
"""


class BadInput(Exception):
    """Bad usage or input: the message is printed, the exit status is 2."""


@dataclasses.dataclass
class Row:
    release: str
    jaxlib: str
    python: str
    status: str
    date: str
    note: str  # as written in the table cell (already escaped)

    def cells(self):
        return [self.release, self.jaxlib, self.python, self.status,
                self.date, self.note]


@dataclasses.dataclass
class Block:
    rows: list
    command: str
    date: str
    ran: list  # the releases the last --write ran


# ---------------------------------------------------------------- releases

def installed_venvs(jax_dir):
    """{release: python} for every jax_dir/venv-RELEASE/bin/python; the
    folders whose name is no release are said and left out."""
    ignored = []
    found = jax_venvs.installed_venvs(jax_dir, ignored)
    for venv in ignored:
        print("defect_status: ignoring %s: %r is not a release number"
              % (shown_path(venv), os.path.basename(venv)[len("venv-"):]),
              file=sys.stderr)
    return found


def probe(release, python):
    """{"python", "jax", "jaxlib"} of a venv; BadInput when it does not run."""
    where = shown_path(python)
    try:
        p = subprocess.run([str(python), "-I", "-c", PROBE], cwd=ROOT,
                           capture_output=True, text=True, timeout=120,
                           stdin=subprocess.DEVNULL, env=run_env())
    except OSError as e:
        raise BadInput("the Python of JAX %s, %s, does not run: %s"
                       % (release, where, e.strerror or e))
    except subprocess.TimeoutExpired:
        raise BadInput("the Python of JAX %s, %s, did not answer in 120 s"
                       % (release, where))
    if p.returncode != 0:
        raise BadInput("the Python of JAX %s, %s, does not run: exit %d%s"
                       % (release, where, p.returncode,
                          last_line(p.stderr, ": ")))
    try:
        info = json.loads(p.stdout)
    except ValueError:
        raise BadInput("the Python of JAX %s, %s, printed no versions"
                       % (release, where))
    return info


# ---------------------------------------------------------------- runs

def run_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["JAX_PLATFORMS"] = "cpu"
    return env


def last_line(text, prefix=""):
    lines = [l.strip() for l in (text or "").splitlines() if l.strip()]
    return prefix + lines[-1] if lines else ""


def first_line(text):
    lines = [l.strip() for l in (text or "").splitlines() if l.strip()]
    return lines[0] if lines else ""


def without_paths(text):
    """text without the machine's paths: the root, and site-packages and
    interpreter folders, removed; any other absolute path cut to its last
    part."""
    text = re.sub(r"[^\s'\"(),:]*/site-packages/", "", text)
    text = re.sub(r"[^\s'\"(),:]*/lib/python3\.\d+/", "", text)
    text = text.replace(str(ROOT) + os.sep, "").replace(str(ROOT), ".")
    text = re.sub(r"(?<![\w.:/])(?:/[^\s/'\"(),:]+)+/([^\s/'\"(),:]+)",
                  r"\1", text)
    return text


def cell(text, sentence=False):
    """One table cell: one line, no machine paths, at most NOTE_MAX
    characters, with | and < > escaped for Markdown; with sentence, only up
    to the end of the first sentence of what was quoted."""
    text = " ".join(without_paths(text).split())
    end = text.find(". ", 40) if sentence else -1
    if end > 0:
        text = text[:end + 1] + " [...]"
    if len(text) > NOTE_MAX:
        cut = text.rfind(" ", 0, NOTE_MAX - 3)
        text = text[:cut if cut > NOTE_MAX // 2 else NOTE_MAX - 3] + "..."
    return (text.replace("\\", "\\\\").replace("|", "\\|")
            .replace("<", "&lt;").replace(">", "&gt;"))


def json_object(out):
    """The JSON object a reproduction printed with --json, or None."""
    try:
        obj = json.loads(out)
    except ValueError:
        k = out.find("\n{")
        if k < 0:
            return None
        try:
            obj, _ = json.JSONDecoder().raw_decode(out[k + 1:])
        except ValueError:
            return None
    return obj if isinstance(obj, dict) else None


def classify(release, rc, out, err, timeout):
    """(status, what the run said) from one run's exit status and output."""
    if rc is None:
        return CANNOT, "timed out after %d s" % timeout
    if rc < 0:
        return CANNOT, "killed by signal %d" % -rc
    obj = json_object(out)
    verdict = obj.get("verdict") if obj else None
    message = str(obj.get("message") or "") if obj else ""
    if rc == 0 and verdict in VERDICTS:
        version = obj.get("jax_version")
        if version != release:
            return CANNOT, "it ran jax %s, not %s" % (version, release)
        return (PRESENT if verdict == "defect" else FIXED), message
    if obj is not None and verdict not in VERDICTS and message:
        return CANNOT, "exit %d, %s: %s" % (rc, str(verdict).upper(), message)
    if rc == 0:
        return CANNOT, "exit 0 without a verdict (%s)" % (
            "verdict %r" % verdict if obj else "no JSON object on stdout")
    said = first_line(err) if rc == 3 else last_line(err)
    said = re.sub(r"^repro_[\w]+: ", "", said)
    return CANNOT, "exit %d%s" % (rc, ": " + said if said else "")


class Runner:
    """Runs reproductions, each (script, release) once, one at a time."""

    def __init__(self, venvs, timeout):
        self.venvs = venvs  # {release: python}
        self.timeout = timeout
        self.info = {}
        self.done = {}

    def versions(self, release):
        if release not in self.info:
            self.info[release] = probe(release, self.venvs[release])
        return self.info[release]

    def run(self, script, release, date):
        key = (script, release)
        if key in self.done:
            return self.done[key]
        info = self.versions(release)
        cmd = [str(self.venvs[release]), "-I", str(ROOT / script), "--json"]
        try:
            p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                               errors="replace", timeout=self.timeout,
                               stdin=subprocess.DEVNULL, env=run_env())
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired:
            rc, out, err = None, "", ""
        except OSError as e:
            raise BadInput("the Python of JAX %s, %s, does not run: %s"
                           % (release, shown_path(self.venvs[release]),
                              e.strerror or e))
        status, said = classify(release, rc, out, err, self.timeout)
        row = Row(release, info.get("jaxlib") or "none",
                  info.get("python") or "?", status, date,
                  cell(said, sentence=status == CANNOT))
        print("defect_status: %s on JAX %s: %s (%s)"
              % (script, release, status, row.note), file=sys.stderr)
        self.done[key] = row
        return row


# ---------------------------------------------------------------- documents

def read_doc(path):
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput("cannot read %s: %s" % (shown_path(path), e))
    found = DEFECT_LINE.findall(text)
    if not found:
        return text, None
    if len(found) > 1:
        raise BadInput("%s names %d reproductions (lctx-defect lines); one "
                       "is allowed" % (shown_path(path), len(found)))
    script = found[0]
    rel = Path(os.path.normpath(script))
    if rel.is_absolute() or rel.parts[:1] == ("..",):
        raise BadInput("%s names the reproduction %s, which is not a file of "
                       "the repository" % (shown_path(path), script))
    if (ROOT / rel).is_file():
        return text, script
    # A finding's draft report (lctx generate) names the reproduction
    # beside it.
    beside = path.resolve().parent / rel
    if len(rel.parts) == 1 and beside.is_file():
        return text, str(beside)
    raise BadInput("%s names the reproduction %s, which is not a file of "
                   "the repository, nor beside the report"
                   % (shown_path(path), script))


def find_docs(docs_dir, files):
    """[(path, text, script)] of the reports to handle."""
    out = []
    if files:
        for f in files:
            path = Path(f)
            if not path.is_file():
                raise BadInput("no such report: %s" % f)
            text, script = read_doc(path)
            if script is None:
                raise BadInput("%s names no reproduction: add a line "
                               "<!-- lctx-defect: repro=PATH -->" % f)
            out.append((path, text, script))
        return out
    if not docs_dir.is_dir():
        raise BadInput("no such folder: %s" % docs_dir)
    for path in sorted(docs_dir.glob(DOC_GLOB)):
        text, script = read_doc(path)
        if script is not None:
            out.append((path, text, script))
    if not out:
        raise BadInput("no %s in %s names its reproduction (a line "
                       "<!-- lctx-defect: repro=PATH -->)"
                       % (DOC_GLOB, shown_path(docs_dir)))
    return out


def split_cells(line):
    """The cells of a Markdown table line, escaped pipes kept."""
    inner = line.strip()
    if not (inner.startswith("|") and inner.endswith("|")) or \
            inner.endswith("\\|"):
        return None
    return [c.strip() for c in re.split(r"(?<!\\)\|", inner[1:-1])]


WRITTEN = re.compile(r"^Written by `([^`]+)` on (\d{4}-\d\d-\d\d), which ran "
                     r"(.+)\.$")


def block_span(text, where):
    """(start, end) of the block between the markers, or None."""
    b, e = text.find(BEGIN), text.find(END)
    if b < 0 and e < 0:
        return None
    if b < 0 or e < b or text.count(BEGIN) > 1 or text.count(END) > 1:
        raise ValueError("%s: the markers %s ... %s are not one pair in "
                         "order" % (where, BEGIN, END))
    return b, e + len(END)


def parse_block(block, where):
    """Block from the text between the markers; ValueError says why not."""
    rows, command, date, ran = [], None, None, None
    for line in block.splitlines():
        m = WRITTEN.match(line)
        if m:
            command, date = m.group(1), m.group(2)
            ran = [r.strip() for r in m.group(3).split(",")]
            continue
        if not line.startswith("|") or line.startswith("|---") or \
                line == TABLE_HEAD[0]:
            continue
        cells = split_cells(line)
        if cells is None or len(cells) != 6:
            raise ValueError("%s: a table line does not have 6 cells: %s"
                             % (where, line))
        if release_key(cells[0]) is None:
            raise ValueError("%s: %r is not a release" % (where, cells[0]))
        if cells[3] not in STATUSES:
            raise ValueError("%s: JAX %s: the status %r is none of %s"
                             % (where, cells[0], cells[3],
                                ", ".join(STATUSES)))
        rows.append(Row(*cells))
    if command is None:
        raise ValueError("%s: no line 'Written by `COMMAND` on DATE, which "
                         "ran RELEASES.'" % where)
    releases = [r.release for r in rows]
    if len(set(releases)) != len(releases):
        raise ValueError("%s: a release has two rows" % where)
    return Block(sorted(rows, key=lambda r: release_key(r.release)),
                 command, date, ran)


# ---------------------------------------------------------------- rendering

def listed(releases):
    return ", ".join(releases) if releases else "none"


def bisection(rows, known):
    """The sentences that say where the defect is fixed."""
    judged = [r for r in rows if r.status in (PRESENT, FIXED)]
    if not judged:
        return ["No release gave a verdict: the status is not known."]
    present = [r for r in judged if r.status == PRESENT]
    if not present:
        return ["**Not present in any release run** with a verdict (%s)."
                % listed([r.release for r in judged])]
    newest = present[-1]
    after = [r for r in judged if release_key(r.release)
             > release_key(newest.release)]
    # The releases with a verdict, newest first, that show it up to newest.
    streak = []
    for r in reversed([r for r in judged if r not in after]):
        if r.status != PRESENT:
            break
        streak.append(r)
    since = streak[-1]
    before = [r for r in judged if release_key(r.release)
              < release_key(since.release)]
    shows = ("It shows in every release with a verdict from %s to %s"
             % (since.release, newest.release)
             if since is not newest else "It shows in %s" % newest.release)
    shows += ("; %s, the release before with a verdict, runs without it."
              % before[-1].release if before else ".")
    if not after:
        return ["**Still present in %s**, the newest release with a verdict: "
                "no release run fixes it." % newest.release, shows,
                "In short: present in %s..%s, not fixed."
                % (since.release, newest.release)]
    first = after[0]
    lines = ["**First fixed release: %s.** The defect shows in %s, the newest "
             "release where it does, and in no release run from %s on."
             % (first.release, newest.release, first.release), shows,
             "In short: present in %s..%s, fixed in %s."
             % (since.release, newest.release, first.release)]
    lo, hi = release_key(newest.release), release_key(first.release)
    between_rows = [r for r in rows if lo < release_key(r.release) < hi]
    missing = [v for v in known if lo < release_key(v) < hi
               and v not in [r.release for r in rows]]
    gaps = ["%s (could not run)" % r.release for r in between_rows
            if r.status == CANNOT] + ["%s (not run)" % v for v in missing]
    if gaps:
        lines.append("Between %s and %s these releases were not run, so the "
                     "fix may be in one of them: %s."
                     % (newest.release, first.release,
                        ", ".join(sort_releases_text(gaps))))
    else:
        lines.append("No other release between %s and %s has a requirements "
                     "file in `%s/`." % (newest.release, first.release,
                                         REQ_DIR))
    return lines


def sort_releases_text(items):
    return sorted(items, key=lambda s: release_key(s.split(" ")[0]))


def render_block(script, block, known):
    lines = [BEGIN,
             "<!-- Generated by tools/defect_status.py --write and checked by "
             "tools/defect_status.py --check (ctest jax_defect_status): do "
             "not edit by hand. -->",
             "",
             "`%s --json`, run under each JAX release's virtual environment "
             "(`tools/setup-jax.sh VERSION`) with JAX_PLATFORMS=cpu. "
             "*present*: its verdict is DEFECT REPRODUCED; *fixed*: FIXED IN "
             "THIS JAX VERSION (in a release older than the defect: not there "
             "yet); *cannot run*: no verdict. The last column quotes the "
             "run: its verdict's message, or why it gave none." % script,
             ""] + TABLE_HEAD
    for r in block.rows:
        lines.append("| " + " | ".join(r.cells()) + " |")
    lines += [""] + bisection(block.rows, known) + [""]
    lines.append("Written by `%s` on %s, which ran %s."
                 % (block.command, block.date, listed(block.ran)))
    lines.append(END)
    return "\n".join(lines)


# ---------------------------------------------------------------- modes

def write_doc(path, text, script, runner, releases, date, command, known):
    old = []
    try:
        span = block_span(text, shown_path(path))
        if span:
            old = parse_block(text[span[0]:span[1]], shown_path(path)).rows
    except ValueError as e:
        raise BadInput("%s; --write keeps the rows of releases it does not "
                       "run, so fix the table or delete the block" % e)
    new = {r: runner.run(script, r, date) for r in releases}
    rows = [r for r in old if r.release not in new] + list(new.values())
    rows.sort(key=lambda r: release_key(r.release))
    block = render_block(script, Block(rows, command, date, releases), known)
    if span:
        text = text[:span[0]] + block + text[span[1]:]
    else:
        m = DEFECT_LINE.search(text)
        text = text[:m.end()] + "\n" + block + text[m.end():]
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as e:
        raise BadInput("cannot write %s: %s" % (shown_path(path), e))
    present = [r.release for r in rows if r.status == PRESENT]
    print("%s: wrote %d releases (%s present)"
          % (shown_path(path), len(rows), listed(present)))


def check_doc(path, text, script, runner, releases, known, why_not):
    """The differences between the doc's table and fresh runs."""
    where = shown_path(path)
    try:
        span = block_span(text, where)
        if span is None:
            return ["%s: no status table (markers %s ... %s): run "
                    "python3 tools/defect_status.py --write"
                    % (where, BEGIN, END)]
        written = text[span[0]:span[1]]
        block = parse_block(written, where)
    except ValueError as e:
        return [str(e)]
    table = {r.release: r for r in block.rows}
    diffs = []
    for release in releases:
        fresh = runner.run(script, release, "")
        row = table.get(release)
        if row is None:
            diffs.append("%s: JAX %s: installed but not in the table (a "
                         "fresh run says %s); run --write"
                         % (where, release, fresh.status))
        elif row.status != fresh.status:
            diffs.append("%s: JAX %s: the table says %s, a fresh run says %s "
                         "(%s)" % (where, release, row.status, fresh.status,
                                   fresh.note))
    if render_block(script, block, known) != written:
        diffs.append("%s: the block between the markers is not what --write "
                     "makes of its own rows (edited by hand?); run --write"
                     % where)
    not_judged = [r.release for r in block.rows if r.release not in releases]
    judged = [r for r in releases]
    print("%s: %s; judged %s; not judged (%s): %s"
          % (where, "DIFFERS" if diffs else "agrees", listed(judged),
             why_not, listed(not_judged)))
    return diffs


# The known defects of the sweep (conformance/sweep/README.md): a case file
# whose note cites docs/upstream-NAME.md carries "fixed_in": the release
# that report's table says fixes it, which lctx sweep's diagnoses name
# ("upgrade JAX to R"); a defect no release fixes has none.
REGRESSIONS = ROOT / "conformance" / "sweep" / "regressions"
CITED_DOC = re.compile(r"docs/(upstream-[A-Za-z0-9_.-]+?\.md)")
IN_SHORT = re.compile(r"In short: present in \S+, (?:not fixed|fixed in "
                      r"([0-9][0-9.]*[0-9]))\.")


def doc_fixed_in(text):
    """The release a report's table says fixes its defect ("" none), or
    None when the report has no "In short" line."""
    m = IN_SHORT.search(text)
    return None if m is None else (m.group(1) or "")


def regression_fixes(docs, regressions=REGRESSIONS):
    """[(case file, its JSON, the fixed_in its cited report asks)] for each
    known defect whose note cites one of the reports handled (`docs`, as
    find_docs gives them) with an "In short" line."""
    by_name = {path.name: path for path, _, _ in docs}
    out = []
    for path in sorted(regressions.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as e:
            raise BadInput("cannot read %s: %s" % (shown_path(path), e))
        note = data.get("note") if isinstance(data, dict) else None
        cited = CITED_DOC.search(note) if isinstance(note, str) else None
        if cited is None:
            continue
        doc = by_name.get(cited.group(1))
        if doc is None:
            continue
        want = doc_fixed_in(doc.read_text(encoding="utf-8"))
        if want is not None:
            out.append((path, data, want))
    return out


def sync_fixed_in(docs, write, regressions=REGRESSIONS):
    """Writes (or, not `write`, checks) the "fixed_in" of the known defects;
    returns the differences found."""
    diffs = []
    for path, data, want in regression_fixes(docs, regressions):
        have = data.get("fixed_in", "")
        if have == want:
            continue
        if not write:
            diffs.append("%s: fixed_in is %r, its report says %r"
                         % (shown_path(path), have or None, want or None))
            continue
        if want:
            data["fixed_in"] = want
        else:
            data.pop("fixed_in", None)
        path.write_text(json.dumps(data, indent=1, sort_keys=True),
                        encoding="utf-8")
    return diffs


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="defect_status.py",
        description="Write (--write) or check (--check) the table of JAX "
                    "releases in each docs/upstream-*.md that names its "
                    "reproduction.",
        epilog="Exit status: 0 done or agrees, 1 a table disagrees with a "
               "fresh run (--check), 2 bad usage or input.")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true",
                      help="run the reproductions and rewrite the tables")
    mode.add_argument("--check", action="store_true",
                      help="run them again and compare with the tables")
    ap.add_argument("--releases", metavar="V1,V2",
                    help="only these installed releases")
    ap.add_argument("--docs", metavar="DIR",
                    help="the folder of the upstream-*.md reports "
                         "(default docs/)")
    ap.add_argument("--jax-dir", metavar="DIR",
                    help="the folder of the venv-VERSION environments "
                         "(default build/jax)")
    ap.add_argument("--regressions", metavar="DIR",
                    help="the known defects whose \"fixed_in\" follows the "
                         "reports (default conformance/sweep/regressions)")
    ap.add_argument("--timeout", metavar="SECONDS", type=int,
                    default=DEFAULT_TIMEOUT,
                    help="time limit of one run (default %d)"
                         % DEFAULT_TIMEOUT)
    ap.add_argument("doc", nargs="*", metavar="DOC",
                    help="the reports (instead of --docs)")
    args = ap.parse_args(argv)
    if args.docs and args.doc:
        ap.error("give --docs DIR or reports, not both")
    if args.timeout <= 0:
        ap.error("--timeout must be positive")
    return args


def selected_releases(args, venvs, jax_dir):
    if not venvs:
        raise BadInput("no JAX is installed: no %s/venv-VERSION/bin/python "
                       "(install one with sh tools/setup-jax.sh VERSION)"
                       % shown_path(jax_dir))
    installed = sort_releases(venvs)
    if not args.releases:
        return installed, "not installed here"
    wanted = [v.strip() for v in args.releases.split(",") if v.strip()]
    for v in wanted:
        if release_key(v) is None:
            raise BadInput("--releases: %r is not a release number" % v)
        if v not in venvs:
            raise BadInput("--releases: JAX %s is not installed (no %s/venv-"
                           "%s/bin/python; installed: %s)"
                           % (v, shown_path(jax_dir), v, listed(installed)))
    return sort_releases(set(wanted)), "not installed here or not in --releases"


def main(argv):
    args = parse_args(argv)
    try:
        jax_dir = Path(args.jax_dir) if args.jax_dir else ROOT / "build" / "jax"
        docs = find_docs(Path(args.docs) if args.docs else ROOT / "docs",
                         args.doc)
        regressions = (Path(args.regressions) if args.regressions
                       else REGRESSIONS)
        if not regressions.is_dir():
            raise BadInput("no such folder: %s" % args.regressions)
        venvs = installed_venvs(jax_dir)
        releases, why_not = selected_releases(args, venvs, jax_dir)
        runner = Runner(venvs, args.timeout)
        for r in releases:
            runner.versions(r)  # every venv runs, before anything is written
        known = requirement_releases()
        if args.write:
            date = datetime.date.today().isoformat()
            command = "python3 tools/defect_status.py --write" + (
                " --releases " + ",".join(releases) if args.releases else "")
            for path, text, script in docs:
                write_doc(path, text, script, runner, releases, date, command,
                          known)
            sync_fixed_in(docs, True, regressions)
            return 0
        diffs = []
        for path, text, script in docs:
            diffs += check_doc(path, text, script, runner, releases, known,
                               why_not)
        diffs += sync_fixed_in(docs, False, regressions)
        for d in diffs:
            print("DIFFERS: " + d)
        return 1 if diffs else 0
    except BadInput as e:
        print("defect_status: error: %s" % e, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("defect_status: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
