#!/usr/bin/env python3
"""Checks the DOM of an `lctx report html` page as headless Chromium dumped
it (--dump-dom): usage

  report_html_dom.py DOM.html ROWS RUNS MUTANT_COLUMN HOSTILE_COLUMN HOSTILE

ROWS: the spec rows the scoreboard must hold (one tr.spec-row each); RUNS:
its run columns (th.run); MUTANT_COLUMN (1-based) must have failing cells,
each opening a <details> with its expected and actual; HOSTILE_COLUMN's
texts come from an implementation whose name and messages hold HOSTILE:
that text must be in the page's text content, and the page must hold no
<script> element at all (the page has none of its own). Prints one line per
problem and exits 1 when there is one."""
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
        if tag == "td" and "cell" in classes and self.in_spec_row:
            self.cur_cell = {"classes": classes, "text": [], "pres": {},
                             "details": False}
        if tag == "details" and self.cur_cell is not None:
            self.cur_cell["details"] = True
        if tag == "pre" and self.cur_cell is not None:
            self.cur_pre = (classes[0] if classes else "", [])

    def handle_endtag(self, tag):
        if tag == "th" and self.in_run_head is not None:
            self.run_heads.append("".join(self.in_run_head))
            self.in_run_head = None
        if tag == "pre" and self.cur_pre is not None:
            self.cur_cell["pres"][self.cur_pre[0]] = "".join(self.cur_pre[1])
            self.cur_pre = None
        if tag == "td" and self.cur_cell is not None:
            self.cur_cell["text"] = "".join(self.cur_cell["text"])
            self.cells[-1].append(self.cur_cell)
            self.cur_cell = None
        if self.stack:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)
        if self.in_run_head is not None:
            self.in_run_head.append(data)
        if self.cur_cell is not None:
            self.cur_cell["text"].append(data)
        if self.cur_pre is not None:
            self.cur_pre[1].append(data)


def main():
    path, rows, runs, mutant, hostile_col, hostile = sys.argv[1:7]
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
