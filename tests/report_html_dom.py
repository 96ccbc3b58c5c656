#!/usr/bin/env python3
"""Checks the DOM of an `lctx report html` page as headless Chromium dumped
it (--dump-dom): usage

  report_html_dom.py DOM.html ROWS RUNS MUTANT_COLUMN HOSTILE_COLUMN HOSTILE
                     [PROBE.html [MERGED_COLUMN]]

ROWS: the spec rows the scoreboard must hold (one tr.spec-row each); RUNS:
its run columns (th.run); MUTANT_COLUMN (1-based) must have failing cells,
each opening a <details> with its expected and actual; HOSTILE_COLUMN's
texts come from an implementation whose name and messages hold HOSTILE:
that text must be in the page's text content, and the page must hold no
<script> element at all (the page has none of its own).

At the top, a verdict per run (tr.run-verdict, RUNS of them before the
sweeps'): its result (PASS for column 1, FAIL for MUTANT_COLUMN), its cases
adding up ("T cases (C conformance, D domain, R random; of them J judged, S
skipped ..., U unsupported)", the sources when recorded) and its
operations. Every count of a cell reads "NAME N of M", M the row's
operations in that run (the sum of the cell's counts). Every failing cell of
the mutant shows its rerun line (pre.rerun): the path of an lctx, then
`conform`, then `--case`.

MERGED_COLUMN: the column of the mutant's shards merged by `lctx report
merge`: its failing cells show their rerun lines too, and its verdict is
FAIL.

Options before the arguments: --sweep-report R.json (each sweep's
report.json, in the page's order; repeat it): that sweep's verdict counts
report.json's "cases" and its "cases_not_reached" as not reached, its
parts adding up, and no verdict says its counts do not add up;
--campaign-state S.json (the campaign's state.json): its "spec rows hit"
plot is titled "spec rows hit: H of R" (its rows_hit, rows_reachable) and
its page names each row of rows_missed.

PROBE.html: the DOM Chromium dumped of tests/report_html_probe.html beside
the page (its pre#out holds the page's computed styles as JSON): no passing
cell (a pass-rate at 100.0%, a scoreboard cell whose worst verdict is pass)
shows a failure colour, and every rerun line is selected whole by a click.

Prints one line per problem and exits 1 when there is one."""
import json
import re
import html
import html.parser
import sys


class Dom(html.parser.HTMLParser):
    """Collects the elements the checks need, with their text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.spec_rows = []      # row ids
        self.run_heads = []      # texts of th.run
        self.cells = []          # per spec row: list of (classes, text, pres)
        self.scripts = 0
        self.text = []
        self.cur_cell = None
        self.cur_pre = None
        self.in_run_head = None
        self.in_spec_row = False
        self.verdicts = []       # per tr.run-verdict: [result, text]
        self.cur_verdict = None
        self.svg_texts = []      # the <text> of every svg
        self.missed = []         # the texts of span.rows-missed
        self.cur_grab = None     # (list, parts) of a text being collected

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        self.stack.append(tag)
        if tag == "script":
            self.scripts += 1
        if tag == "tr" and "spec-row" in classes:
            self.spec_rows.append(a.get("data-row"))
            self.cells.append([])
        if tag == "th" and "run" in classes:
            self.in_run_head = []
        if tag == "tr":
            self.in_spec_row = "spec-row" in classes
        if tag == "tr" and "run-verdict" in classes:
            self.cur_verdict = [a.get("data-result"), []]
        if tag == "td" and "cell" in classes and self.in_spec_row:
            self.cur_cell = {"classes": classes, "text": [], "pres": {},
                             "details": False}
        if tag == "details" and self.cur_cell is not None:
            self.cur_cell["details"] = True
        if tag == "pre" and self.cur_cell is not None:
            self.cur_pre = (classes[0] if classes else "", [])
        if tag == "text" and "svg" in self.stack:
            self.cur_grab = (self.svg_texts, [], tag)
        if tag == "span" and "rows-missed" in classes:
            self.cur_grab = (self.missed, [], tag)

    def handle_endtag(self, tag):
        if self.cur_grab is not None and tag == self.cur_grab[2]:
            self.cur_grab[0].append("".join(self.cur_grab[1]))
            self.cur_grab = None
        if tag == "th" and self.in_run_head is not None:
            self.run_heads.append("".join(self.in_run_head))
            self.in_run_head = None
        if tag == "pre" and self.cur_pre is not None:
            self.cur_cell["pres"][self.cur_pre[0]] = "".join(self.cur_pre[1])
            self.cur_pre = None
        if tag == "tr" and self.cur_verdict is not None:
            self.verdicts.append((self.cur_verdict[0],
                                  "".join(self.cur_verdict[1])))
            self.cur_verdict = None
        if tag == "td" and self.cur_cell is not None:
            self.cur_cell["text"] = "".join(self.cur_cell["text"])
            self.cells[-1].append(self.cur_cell)
            self.cur_cell = None
        if self.stack:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)
        if self.cur_grab is not None:
            self.cur_grab[1].append(data)
        if self.in_run_head is not None:
            self.in_run_head.append(data)
        if self.cur_verdict is not None:
            self.cur_verdict[1].append(data)
        if self.cur_cell is not None:
            self.cur_cell["text"].append(data)
        if self.cur_pre is not None:
            self.cur_pre[1].append(data)


CASES = re.compile(r"(\d+) cases \((?:(\d+) conformance, (\d+) domain, "
                   r"(\d+) random; )?of them (\d+) judged, (\d+) skipped by "
                   r"shard or --ops, (\d+) unsupported(?:, (\d+) not reached "
                   r"as the run stopped)?\)")


def check_verdicts(dom, runs, mutant):
    """The verdict of each run at the top: result, cases adding up,
    operations."""
    problems = []
    if len(dom.verdicts) < runs:
        return ["%d run verdicts at the top, want at least %d"
                % (len(dom.verdicts), runs)]
    for k, (result, text) in enumerate(dom.verdicts):
        m = CASES.search(text)
        if result not in ("PASS", "FAIL", "INTERRUPTED", "INCOMPLETE",
                          "NOTHING JUDGED") or result not in text:
            problems.append("verdict %d: result %r not shown in %r"
                            % (k + 1, result, text))
        if not m:
            problems.append("verdict %d: no case counts in %r" % (k + 1, text))
        else:
            n = [int(x or 0) for x in m.groups()]
            sources = m.group(2) is not None
            if n[0] != sum(n[4:]) or (sources and n[0] != sum(n[1:4])):
                problems.append("verdict %d: the cases do not add up: %r"
                                % (k + 1, m.group(0)))
        if not re.search(r"\d+ operations:", text):
            problems.append("verdict %d: no operation counts" % (k + 1))
    if dom.verdicts[0][0] != "PASS":
        problems.append("run 1 (the example) is not PASS at the top: %r"
                        % (dom.verdicts[0],))
    if dom.verdicts[mutant][0] != "FAIL":
        problems.append("the mutant's run is not FAIL at the top: %r"
                        % (dom.verdicts[mutant],))
    return problems


def check_counts(dom):
    """Every count of a scoreboard cell is "NAME N of M", M the cell's
    total."""
    problems = []
    for row, cells in zip(dom.spec_rows, dom.cells):
        for k, cell in enumerate(cells):
            summary = cell["text"].split("first failing case")[0]
            counts = re.findall(r"(?:^|\s)([a-z]+) (\d+)(?: of (\d+))?",
                                summary)
            counts = [c for c in counts if c[0] in VERDICTS]
            total = sum(int(c[1]) for c in counts)
            for name, n, of in counts:
                if not of or int(of) != total:
                    problems.append("%s, run %d: '%s %s' is not 'N of %d': %r"
                                    % (row, k + 1, name, n, total,
                                       summary[:120]))
                    return problems
    return problems


def check_sweeps(dom, runs, reports):
    """Each sweep's verdict (after the runs') counts its report.json's
    cases and not reached cases; no verdict says its counts do not add
    up."""
    problems = []
    sweeps = dom.verdicts[runs:]
    if len(sweeps) != len(reports):
        return ["%d sweep verdicts, want %d" % (len(sweeps), len(reports))]
    for k, ((_, text), path) in enumerate(zip(sweeps, reports)):
        with open(path, encoding="utf-8") as f:
            r = json.load(f)
        m = CASES.search(text)
        got = (int(m.group(1)), int(m.group(8) or 0)) if m else None
        want = (r["cases"], r["cases_not_reached"])
        if got != want:
            problems.append("sweep %d: %r counts (cases, not reached) %r, "
                            "its report.json %r" % (k + 1, text[:200], got,
                                                    want))
    for _, text in dom.verdicts:
        if "do not add up" in text:
            problems.append("a verdict says its counts do not add up: %r"
                            % text[:200])
    return problems


def check_campaign(dom, path):
    """The campaign's "spec rows hit" plot says H of R; its missed rows
    are named."""
    with open(path, encoding="utf-8") as f:
        state = json.load(f)
    problems = []
    title = "spec rows hit: %d of %d" % (state["rows_hit"],
                                         state["rows_reachable"])
    if title not in dom.svg_texts:
        problems.append("no plot titled %r: %r" % (title, [
            t for t in dom.svg_texts if "rows" in t]))
    named = ", ".join(dom.missed)
    for row in state["rows_missed"]:
        if not re.search(r"\b%s\b" % re.escape(row), named):
            problems.append("the missed row %s is not named: %r"
                            % (row, named[:200]))
    return problems


VERDICTS = ("pass", "fail", "xfail", "xpass", "crash", "timeout",
            "unsupported", "flaky")


def check_probe(path):
    """The computed styles report_html_probe.html wrote into pre#out."""
    with open(path, encoding="utf-8") as f:
        m = re.search(r'<pre id="out">([^<]*)</pre>', f.read())
    try:
        out = json.loads(html.unescape(m.group(1))) if m else None
    except ValueError:
        out = None
    if not out:
        return ["the style probe wrote nothing: %r"
                % (m.group(1)[:200] if m else None)]
    problems = ["a passing cell shows a failure colour: %s" % b
                for b in out["bad"][:5]]
    if out["full"] == 0 or out["pass_cells"] == 0:
        problems.append("the probe found no passing cell (%r)" % out)
    if not out["rerun_select"] or \
            any(s != "all" for s in out["rerun_select"]):
        problems.append("a rerun line is not selected whole by a click "
                        "(user-select %r)" % out["rerun_select"][:3])
    return problems


def options(argv):
    """The options before the arguments: (sweep reports, campaign state,
    the rest)."""
    sweeps, state = [], None
    while len(argv) > 1 and argv[0] in ("--sweep-report", "--campaign-state"):
        if argv[0] == "--sweep-report":
            sweeps.append(argv[1])
        else:
            state = argv[1]
        argv = argv[2:]
    return sweeps, state, argv


def main():
    sweeps, state, argv = options(sys.argv[1:])
    path, rows, runs, mutant, hostile_col, hostile = argv[0:6]
    probe = argv[6] if len(argv) > 6 else None
    merged = int(argv[7]) - 1 if len(argv) > 7 else None
    rows, runs = int(rows), int(runs)
    mutant, hostile_col = int(mutant) - 1, int(hostile_col) - 1
    with open(path, encoding="utf-8") as f:
        dom_text = f.read()
    dom = Dom()
    dom.feed(dom_text)
    problems = []
    if len(dom.spec_rows) != rows:
        problems.append("%d spec rows in the scoreboard, want %d"
                        % (len(dom.spec_rows), rows))
    if len(set(dom.spec_rows)) != len(dom.spec_rows):
        problems.append("a spec row appears twice")
    if len(dom.run_heads) != runs:
        problems.append("%d run columns, want %d" % (len(dom.run_heads), runs))
    bad_width = [r for r, c in zip(dom.spec_rows, dom.cells) if len(c) != runs]
    if bad_width:
        problems.append("rows without one cell per run: %s" % bad_width[:5])
    failing = [(r, c[mutant]) for r, c in zip(dom.spec_rows, dom.cells)
               if len(c) > mutant and "failing" in c[mutant]["classes"]]
    if not failing:
        problems.append("the mutant's column has no failing cell")
    opened = 0
    for row, cell in failing:
        if not cell["details"]:
            problems.append("%s: the failing cell opens no <details>" % row)
        elif "fail" in cell["text"] and ("expected" not in cell["pres"] or
                                         "actual" not in cell["pres"]):
            problems.append("%s: the failing case has no expected/actual"
                            % row)
        elif "case-text" in cell["pres"] and \
                "lctx-case" in cell["pres"]["case-text"]:
            opened += 1
    if failing and opened == 0:
        problems.append("no failing cell of the mutant shows its case text")
    problems += check_verdicts(dom, runs, mutant)
    problems += check_counts(dom)
    if sweeps:
        problems += check_sweeps(dom, runs, sweeps)
    if state:
        problems += check_campaign(dom, state)
    if merged is not None:
        merged_failing = [(r, c[merged]) for r, c in
                          zip(dom.spec_rows, dom.cells) if len(c) > merged
                          and "failing" in c[merged]["classes"]]
        if not merged_failing:
            problems.append("the merged column has no failing cell")
        failing_all = failing + merged_failing
        if len(dom.verdicts) <= merged or dom.verdicts[merged][0] != "FAIL":
            problems.append("the merged run is not FAIL at the top")
    else:
        failing_all = failing
    for row, cell in failing_all:
        rerun = cell["pres"].get("rerun", "")
        if not re.match(r"^(cd .* && )?'?/\S*lctx'? conform .*--case ", rerun):
            problems.append("%s: the failing cell shows no rerun line "
                            "starting with an lctx path: %r" % (row, rerun))
    if probe:
        problems += check_probe(probe)
    if dom.scripts:
        problems.append("%d <script> element(s) in the DOM: a hostile text "
                        "became markup" % dom.scripts)
    text = "".join(dom.text)
    if hostile not in text:
        problems.append("the hostile text %r is not in the page's text"
                        % hostile)
    heads = dom.run_heads
    if len(heads) <= hostile_col or hostile not in heads[hostile_col]:
        problems.append("the hostile implementation's name is not its "
                        "column's text")
    hostile_cells = [c[hostile_col] for c in dom.cells if len(c) > hostile_col]
    if not any("\\x01" in "".join(c["pres"].values())
               for c in hostile_cells):
        problems.append("a control byte of a hostile message is not shown "
                        "as the text \\x01")
    for p in problems:
        print("FAIL: DOM: " + p)
    print("DOM: %d spec rows, %d run columns, %d failing cell(s) of the "
          "mutant (%d with their case), %d script element(s)"
          % (len(dom.spec_rows), len(dom.run_heads), len(failing), opened,
             dom.scripts))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
