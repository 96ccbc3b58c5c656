"""The reference/src/release.c side of a release: release.c's table read
back, and the draft of the new release, each fact copied from a release
(or the modelled commit) whose cited units are the same, with its citation
moved to the new release's lines, a TODO where they changed.

release.c holds one row a release, `RELEASE(name, jax_ref, gpu_alias,
known_builtin, client_gpu, flags)` (the flags named bits `A | B`, or
macros of them), and the citations in tables of a comment above RELEASES:
a header line `release  F1  F3 ...` and one line a release, columns two or
more spaces apart, each cell the lines of the column's file (COLUMNS) or a
cell naming its own file or a note `(a)`. The releases after the
modelled commit, read from their wheels (AFTER_MODELLED, cited in a table
of their own), are not read back."""

import os
import re

from .base import RELEASE_C, ROOT, StepFailed, overlaps
from .clients import GPU_NAMES


# The citation tables' columns: the field each cites and the file of its
# bare line numbers (jax/_src/... as SHORT, jaxlib/py_client.h), in the
# order the fields are read back and drafted.
COLUMNS = [
    ("F1", "gpu_alias", "xla_bridge.py"),
    ("F3", "known_builtin", "xla_bridge.py"),
    ("F5", "cuda_skip", "xla_bridge.py"),
    ("F6", "unknown_backend_lists_available", "xla_bridge.py"),
    ("F2", "client_gpu", "jaxlib/py_client.h"),
    ("F8", "module_optional", "mlir.py"),
    ("F7 pinned", "module_pinned_check", "mlir.py"),
    ("F7 lookup", "module_lookup_first_platform", "mlir.py"),
    ("F4", "lowering_checks_platform", "mlir.py"),
    ("F9", "has_lower_per_platform", "mlir.py"),
    ("F10", "compute_type_platforms", "mlir.py"),
    ("F11", "compute_nesting_check", "core.py"),
]
# The citation tables, as release.c prints them (a draft's lines too).
TABLES = [["F1", "F3", "F5", "F6", "F8", "F7 pinned"],
          ["F7 lookup", "F4", "F9", "F10", "F11"],
          ["F2"]]
LIST_FIELDS = ("gpu_alias", "known_builtin", "client_gpu")
ROW_RE = re.compile(r"\bRELEASE\(\s*\"([^\"]+)\",\s*\"([^\"]*)\",\s*(\w+),"
                    r"\s*(\w+),\s*(\w+),\s*([\w\s|]+?)\s*\),")
BIT_RE = re.compile(r"^\s*(\w+) = 1 << \d+,", re.M)
HAS_RE = re.compile(r"\.(\w+) = HAS\(facts, (\w+)\)")
DEFINE_RE = re.compile(r"^#define (\w+)((?:[^\n]*\\\n)*[^\n]*)$", re.M)
HEADER_RE = re.compile(r"^ \*   release {2,}(.*\S)\s*$")
CITE_ROW_RE = re.compile(r"^ \*   (\S+) {2,}(.*\S)\s*$")
CELL_FILE_RE = re.compile(r"^[\w/@.]+\.(?:py|h)\b")
# The facts of release.c by the spec section whose cited units hold them;
# a field not named here is looked up as `fact NAME` (underscores as
# hyphens) and otherwise copied unchecked.
FIELD_SPEC = {
    "gpu_alias": "fact gpu-alias",
    "known_builtin": "fact known-platforms",
    "cuda_skip": "fact cuda-skip",
    "unknown_backend_lists_available": "XG-008",
    "client_gpu": "fact client-gpu",
    "module_optional": "fact module-optional",
    "module_pinned_check": "fact module-get-backend",
    "module_lookup_first_platform": "fact module-get-backend",
    "lowering_checks_platform": "fact register-checks",
    "has_lower_per_platform": "fact lower-per-platform",
    "compute_type_platforms": "fact compute-type",
    "compute_nesting_check": "fact compute-nesting",
    "dispatch_module_platforms": "fact lower-per-platform",
}
SHORT = {"xla_bridge.py": "jax/_src/xla_bridge.py",
         "mlir.py": "jax/_src/interpreters/mlir.py",
         "core.py": "jax/_src/core.py"}


def _line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def flag_names(text):
    """The flag bits of release.c: ({bit: field}, {macro: {bits}}, [bits in
    order]) from its enum, RELEASE's HAS(facts, BIT) and the #defines that
    are `(A | B | ...)` of bits and such macros."""
    order = BIT_RE.findall(text)
    field_of = {bit: field for field, bit in HAS_RE.findall(text)}
    macros = {}
    for m in DEFINE_RE.finditer(text):
        body = m.group(2).replace("\\\n", " ").strip()
        inner = re.fullmatch(r"\(([\w\s|]+)\)", body)
        if not inner:
            continue
        names = [n.strip() for n in inner.group(1).split("|")]
        if all(n in order or n in macros for n in names):
            bits = set()
            for n in names:
                bits |= macros.get(n, {n})
            macros[m.group(1)] = bits
    return field_of, macros, order


def eval_flags(expr, field_of, macros, where):
    """The set of bits of a row's flags expression."""
    bits = set()
    for name in (n.strip() for n in expr.split("|")):
        if name == "0":
            continue
        if name in macros:
            bits |= macros[name]
        elif name in field_of:
            bits.add(name)
        else:
            raise StepFailed("%s: '%s' is no flag bit of release.c's enum "
                             "nor a macro of them" % (where, name))
    return bits


def citation_tables(text):
    """{release: {column: cell}} of the citation tables in release.c."""
    cells, header = {}, None
    for n, line in enumerate(text.splitlines(), 1):
        h = HEADER_RE.match(line)
        if h:
            header = re.split(r" {2,}", h.group(1))
            continue
        r = CITE_ROW_RE.match(line) if header else None
        if not r:
            header = None
            continue
        row = re.split(r" {2,}", r.group(2))
        if len(row) != len(header):
            raise StepFailed("%s:%d: %d cells for the %d columns %s" % (
                RELEASE_C, n, len(row), len(header), ", ".join(header)))
        cells.setdefault(r.group(1), {}).update(zip(header, row))
    return cells


def cell_comment(column, default_file, cell):
    """The citation of a cell as "F7: mlir.py:898-906": the cell with its
    column's file unless it names one or is a note alone."""
    fnum = column.split()[0]
    if cell.startswith("(") or CELL_FILE_RE.match(cell) or \
            cell.startswith("openxla/"):
        return "%s: %s" % (fnum, cell)
    return "%s: %s:%s" % (fnum, default_file, cell)


def release_records(path=None):
    """[(name, [(comment, field, value)])] of release.c's RELEASE rows, in
    order: jax_ref (no comment), then the fields of COLUMNS with their
    citations ("F1: xla_bridge.py:531-534") and values (a list macro, or
    true/false), then client_gpu_unread and dispatch_module_platforms."""
    path = path or os.path.join(ROOT, RELEASE_C)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    field_of, macros, _ = flag_names(text)
    cites = citation_tables(text)
    records = []
    for m in ROW_RE.finditer(text):
        name, ref, gpu, known, client, expr = m.groups()
        where = "%s:%d" % (RELEASE_C, _line_of(text, m.start()))
        bits = eval_flags(expr, field_of, macros, where)
        flags = {field: "true" if bit in bits else "false"
                 for bit, field in field_of.items()}
        lists = dict(zip(LIST_FIELDS, (gpu, known, client)))
        if name not in cites:
            raise StepFailed("%s: %s has no line in the citation tables "
                             "above RELEASES" % (where, name))
        items = [(None, "jax_ref", '"%s"' % ref)]
        for column, field, default_file in COLUMNS:
            cell = cites[name].get(column)
            if cell is None:
                raise StepFailed("%s: %s has no %s cell in the citation "
                                 "tables" % (where, name, column))
            items.append((cell_comment(column, default_file, cell), field,
                          lists.get(field) or flags.get(field, "false")))
        for field in ("client_gpu_unread", "dispatch_module_platforms"):
            items.append((None, field, flags.get(field, "false")))
        records.append((name, items))
    if not records:
        raise StepFailed("%s: no RELEASE(...) row" % RELEASE_C)
    return records


def field_units(field, spec_units):
    ident = FIELD_SPEC.get(field) or "fact " + field.replace("_", "-")
    return ident, spec_units.get(ident)


def shifted_cite(comment, base_units, new_units, base_lines, new_lines):
    """The comment's file:lines citations moved from the base release to
    VERSION, where every unit a range touches has the same text in both and
    moved by the same number of lines; None when some cannot be moved."""
    def move(short, ranges):
        path = SHORT.get(short)
        if not path or path not in base_units or path not in new_units:
            return None
        moved = []
        for a, b in ranges:
            touched = [x for x in base_units[path] if x["kind"] != "class"
                       and overlaps(a, b, x["start"], x["end"])]
            shifts = set()
            for u in touched:
                v = next((x for x in new_units[path]
                          if x["name"] == u["name"]), None)
                if v is None or base_lines[path][u["start"] - 1:u["end"]] \
                        != new_lines[path][v["start"] - 1:v["end"]]:
                    return None
                shifts.add(v["start"] - u["start"])
            if len(shifts) != 1:
                return None
            d = shifts.pop()
            moved.append((a + d, b + d))
        return "%s:%s" % (short, ", ".join(
            "%d" % a if a == b else "%d-%d" % (a, b) for a, b in moved))

    ok = [True]

    def sub(m):
        ranges = []
        for r in re.split(r",\s*", m.group(2)):
            a, _, b = r.partition("-")
            ranges.append((int(a), int(b or a)))
        got = move(m.group(1), ranges)
        if got is None:
            ok[0] = False
            return m.group(0)
        return got

    text = re.sub(r"\b(\w+\.py):(\d+(?:-\d+)?(?:,\s*\d+(?:-\d+)?)*)", sub,
                  comment)
    return text if ok[0] else None


def where_text(units, lines_of):
    """"xla_bridge.py:727-731, 733 (a, b)" for a set of (file, unit)."""
    by_file = {}
    for f, n in units:
        by_file.setdefault(f, []).append((tuple(lines_of.get((f, n))
                                                or (0, 0)), n))
    parts = []
    for f in sorted(by_file):
        items = sorted(by_file[f])
        parts.append("%s:%s (%s)" % (os.path.basename(f), ", ".join(
            "%d" % a if a == b else "%d-%d" % (a, b) for (a, b), _ in items),
            ", ".join(n for _, n in items)))
    return "; ".join(parts)


def cell_of(comment, column):
    """The table cell of a citation "F1: xla_bridge.py:715-719": without
    "F1: " and without its column's file."""
    text = re.sub(r"^F\d+: ", "", comment)
    default = dict((c, f) for c, _, f in COLUMNS)[column]
    if text.startswith(default + ":"):
        text = text[len(default) + 1:]
    return text


def compact_where(where, column):
    """A cell of where_text's "xla_bridge.py:715-719 (names); core.py:3
    (names)": the lines alone, the file only where it is not the
    column's."""
    default = dict((c, f) for c, _, f in COLUMNS)[column]
    parts = []
    for part in where.split("; "):
        part = re.sub(r" \(.*\)$", "", part)
        if part.startswith(default + ":"):
            part = part[len(default) + 1:]
        parts.append(part)
    return "; ".join(parts)


def gpu_field(value, base_name, modelled, jaxlib_src, has_unread_field):
    """F2 of the draft: (cell, note, value, unread, TODO count): read from
    jaxlib's C++ when it was, else the modelled commit's list marked unread
    (when release.h has that field), else a TODO."""
    if jaxlib_src:
        gpu = tuple(jaxlib_src["gpu"])
        return ("%d-%d" % tuple(jaxlib_src["shim"]),
                "F2: read from jaxlib/py_client.h",
                GPU_NAMES.get(gpu, "TODO %r" % (gpu,)), False, 0)
    if has_unread_field:
        mval = next((v for c, f, v in modelled or []
                     if f == "client_gpu"), value)
        return ("not read (F13)", "F2 not read (F13): the modelled commit's "
                "list (jaxlib's C++ is not in the wheel)", mval, True, 0)
    return ("TODO", "TODO F2: jaxlib/py_client.h not read (not in the "
            "wheel); copied from %s" % base_name, value, False, 1)


def fact_field(column, value, comment, units, states, modelled, trees):
    """A fact of the draft: (cell, note, value, TODO count): copied from the
    base release when its cited units are the same there (the citation
    moved to the new lines), else the modelled record's when they are the
    same as at the modelled commit, else a TODO naming what changed."""
    field = dict((c, f) for c, f, _ in COLUMNS)[column]
    base_name = states["base"]
    base_cmp, mod_cmp = states["base_cmp"], states["modelled_cmp"]
    where = where_text(units, trees["new_lines_of"])
    cell = compact_where(where, column)
    if base_cmp is not None and all(base_cmp.get(u) == "unchanged"
                                    for u in units):
        moved = shifted_cite(comment or "", trees["base_units"],
                             trees["new_units"], trees["base_lines"],
                             trees["new_lines"])
        if moved:
            return (cell_of(moved, column), "%s: %s (as in %s)" % (
                column, re.sub(r"^F\d+: ", "", moved), base_name), value, 0)
        return (cell, "%s: %s, as in %s" % (column, where, base_name),
                value, 0)
    if all(mod_cmp.get(u) == "unchanged" for u in units) and modelled:
        mval = next((v for c, f, v in modelled if f == field), None)
        if mval is None:
            return ("TODO", "TODO %s: %s; the modelled record has no %s" % (
                column, where, field), value, 1)
        return (cell, "%s: %s, as at the modelled commit" % (column, where),
                mval, 0)
    ref = base_cmp if base_cmp is not None else mod_cmp
    changed = sorted(n for f, n in units
                     if ref.get((f, n)) != "unchanged")
    return ("TODO", "TODO %s: %s changed since %s: re-read %s; value "
            "copied from %s" % (
                column, ", ".join(changed),
                base_name if base_cmp is not None
                else "the modelled commit", where, base_name), value, 1)


def table_lines(version, cells):
    """The draft's lines of the citation tables, as release.c prints
    them."""
    lines = []
    for columns in TABLES:
        rows = [["release"] + columns, [version] + [cells[c] for c in columns]]
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        if lines:
            lines.append("     *")
        for r in rows:
            lines.append("     *   " + "  ".join(
                c.ljust(w) for c, w in zip(r, widths)).rstrip())
    return lines


def flags_expr(bits, macros, order):
    """The shortest `MACRO | BIT ...` of a set of bits: the largest macro
    that holds only bits of the set, then the others in enum order."""
    best = max((m for m, b in macros.items() if b <= bits),
               key=lambda m: (len(macros[m]), m), default=None)
    rest = [b for b in order if b in bits and
            (best is None or b not in macros[best])]
    parts = ([best] if best else []) + rest
    return " | ".join(parts) if parts else "0"


def draft_record(version, records, spec_units, states, trees,
                 jaxlib_src, has_unread_field):
    """The draft of release.c (lines: its citation table lines and notes in
    a comment, then its RELEASE row) and its TODO count.

    states: {"base": name, "base_cmp": {(file, unit): state} or None,
    "modelled_cmp": {(file, unit): state}}; trees: units and lines of the
    base release and VERSION for moving line citations."""
    with open(os.path.join(ROOT, RELEASE_C), encoding="utf-8") as f:
        field_of, macros, order = flag_names(f.read())
    names = [n for n, _ in records]
    base_name = states["base"]
    base = dict(records).get(base_name) or []
    modelled = dict(records).get("modelled")
    by_field = {f: (c, v) for c, f, v in base}
    cells, notes, values, todos, unread = {}, [], {}, 0, False
    for column, field, _ in COLUMNS:
        comment, value = by_field.get(field, ("%s: (none)" % column, "false"))
        if field == "client_gpu":
            cell, note, value, unread, todo = gpu_field(
                value, base_name, modelled, jaxlib_src, has_unread_field)
        else:
            _, units = field_units(field, spec_units)
            if units:
                cell, note, value, todo = fact_field(
                    column, value, comment, units, states, modelled, trees)
            else:
                cell, note, todo = (cell_of(comment, column),
                                    "%s (copied from %s: no cited unit known "
                                    "to tools/jax_release.py for .%s)" % (
                                        comment, base_name, field), 0)
        cells[column], values[field] = cell, value
        notes.append(note)
        todos += todo
    bits = {bit for bit, field in field_of.items()
            if values.get(field) == "true"}
    if unread:
        bits |= {bit for bit, field in field_of.items()
                 if field == "client_gpu_unread"}
    lines = []
    if version in names:
        lines.append("/* release.c already has a row for %s; this draft is "
                     "derived afresh, to compare. */" % version)
    lines.append("    /* %s: its lines of the citation tables above "
                 "RELEASES" % version)
    lines.append("     *")
    lines += table_lines(version, cells)
    lines.append("     *")
    lines += ["     * " + n for n in notes]
    lines.append("     */")
    lines.append('    RELEASE("%s", "jax-v%s%s",' % (
        version, version, "" if jaxlib_src else " (wheel)"))
    lines.append("            %s, %s, %s," % (
        values["gpu_alias"], values["known_builtin"], values["client_gpu"]))
    lines.append("            %s)," % flags_expr(bits, macros, order))
    return lines, todos
