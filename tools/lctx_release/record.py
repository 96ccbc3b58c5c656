"""The reference/src/release.c side of a release: release.c's records read
back, and the draft record of the new release, each fact copied from a
release (or the modelled commit) whose cited units are the same, with its
citation moved to the new release's lines, a TODO where they changed."""

import os
import re

from .base import RELEASE_C, ROOT, overlaps
from .clients import GPU_NAMES


RECORD_RE = re.compile(r"\{\s*\.name = \"([^\"]+)\",(.*?)\n    \},", re.S)
FIELD_RE = re.compile(r"^\s*\.(\w+) = (.*?),\s*$")
COMMENT_RE = re.compile(r"^\s*/\* (.*?) \*/\s*$")
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


def release_records():
    """[(name, [(comment or None, field, value)])] of release.c, in order."""
    with open(os.path.join(ROOT, RELEASE_C), encoding="utf-8") as f:
        text = f.read()
    records = []
    for m in RECORD_RE.finditer(text):
        items, comment = [], None
        for line in m.group(2).splitlines():
            cm = COMMENT_RE.match(line)
            fm = FIELD_RE.match(line)
            if cm:
                comment = cm.group(1)
            elif fm:
                items.append((comment, fm.group(1), fm.group(2)))
                comment = None
        records.append((m.group(1), items))
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


def fact_tag(comment):
    """("F7", "abc1234") of a fact's comment "F7 abc1234: ..."; "F?" and ""
    where it names none."""
    fnum = re.match(r"(F\d+)", comment or "")
    commit = re.match(r"F\d+ ([0-9a-f]{7,40})", comment or "")
    return (fnum.group(1) if fnum else "F?",
            commit.group(1) if commit else "")


def gpu_field(commit, value, base_name, modelled, jaxlib_src,
              has_unread_field):
    """The draft's .client_gpu (lines) and its TODO count: read from
    jaxlib's C++ when it was, else the modelled commit's list marked
    unread (when release.h has that field), else a TODO."""
    if jaxlib_src:
        gpu = tuple(jaxlib_src["gpu"])
        val = GPU_NAMES.get(gpu, "TODO %r" % (gpu,))
        return ["        /* F2 %s: jaxlib/py_client.h:%d-%d */" % (
            commit or "00b8c5dbf0", jaxlib_src["shim"][0],
            jaxlib_src["shim"][1]), "        .client_gpu = %s," % val], 0
    if has_unread_field:
        mval = next((v for c, f, v in modelled or []
                     if f == "client_gpu"), value)
        return ["        /* F2 not read (F13): the modelled "
                "commit's list (jaxlib's C++ is not in the wheel) "
                "*/", "        .client_gpu = %s," % mval,
                "        .client_gpu_unread = true,"], 0
    return ["        /* TODO F2: jaxlib/py_client.h not read "
            "(not in the wheel); copied from %s */" % base_name,
            "        .client_gpu = %s," % value], 1


def fact_field(field, value, comment, units, states, modelled, trees):
    """A fact's draft (lines) and its TODO count: copied from the base
    release when its cited units are the same there (the citation moved to
    the new lines), else the modelled record's when they are the same as
    at the modelled commit, else a TODO naming what changed."""
    base_name = states["base"]
    base_cmp, mod_cmp = states["base_cmp"], states["modelled_cmp"]
    fnum, commit = fact_tag(comment)
    tag = fnum + (" " + commit if commit else "")
    where = where_text(units, trees["new_lines_of"])
    if base_cmp is not None and all(base_cmp.get(u) == "unchanged"
                                    for u in units):
        moved = shifted_cite(comment or "", trees["base_units"],
                             trees["new_units"], trees["base_lines"],
                             trees["new_lines"])
        text = ("%s (as in %s)" % (moved, base_name) if moved else
                "%s: %s, as in %s" % (tag, where, base_name))
        return ["        /* %s */" % text,
                "        .%s = %s," % (field, value)], 0
    if all(mod_cmp.get(u) == "unchanged" for u in units) and modelled:
        mval, mcomment = next(((v, c) for c, f, v in modelled
                               if f == field), (None, None))
        mcommit = fact_tag(mcomment)[1]
        if mcommit:
            tag = fnum + " " + mcommit
        if mval is None:
            return ["        /* TODO %s: %s; the modelled record has "
                    "no %s */" % (tag, where, field),
                    "        .%s = %s," % (field, value)], 1
        return ["        /* %s: %s, as at the modelled commit "
                "*/" % (tag, where),
                "        .%s = %s," % (field, mval)], 0
    ref = base_cmp if base_cmp is not None else mod_cmp
    changed = sorted(n for f, n in units
                     if ref.get((f, n)) != "unchanged")
    return ["        /* TODO %s: %s changed since %s: re-read "
            "%s; value copied from %s */" % (
                tag, ", ".join(changed),
                base_name if base_cmp is not None
                else "the modelled commit", where, base_name),
            "        .%s = %s," % (field, value)], 1


def draft_record(version, records, spec_units, states, trees,
                 jaxlib_src, has_unread_field):
    """The draft record of release.c (lines) and its TODO count.

    states: {"base": name, "base_cmp": {(file, unit): state} or None,
    "modelled_cmp": {(file, unit): state}}; trees: units and lines of the
    base release and VERSION for moving line citations."""
    names = [n for n, _ in records]
    base_name = states["base"]
    base = dict(records).get(base_name)
    modelled = dict(records).get("modelled")
    lines = []
    if version in names:
        lines.append("/* release.c already has a record for %s; this draft "
                     "is derived afresh, to compare. */" % version)
    lines += ["    {", "        .name = \"%s\"," % version,
              "        .jax_ref = \"jax-v%s%s\"," % (
                  version, "" if jaxlib_src else " (wheel)")]
    todos = 0
    for comment, field, value in base or []:
        if field in ("name", "jax_ref", "client_gpu_unread"):
            continue
        if field == "client_gpu":
            more, todo = gpu_field(fact_tag(comment)[1], value, base_name,
                                   modelled, jaxlib_src, has_unread_field)
        else:
            _, units = field_units(field, spec_units)
            if units:
                more, todo = fact_field(field, value, comment, units, states,
                                        modelled, trees)
            else:
                more, todo = ["        /* %s (copied from %s: no cited unit "
                              "known to tools/jax_release.py for .%s) */" % (
                                  comment or fact_tag(comment)[0], base_name,
                                  field),
                              "        .%s = %s," % (field, value)], 0
        lines += more
        todos += todo
    lines.append("    },")
    return lines, todos
