"""Step 5 of the release command: the drafts a person completes (the
spec's releases line, a jaxlib_clients.py entry, a release.c row) and
the rows to re-read; printed and written to draft.md."""

import os

from .base import (CLIENTS_PY, RELEASE_H, ROOT, VERSION_RE, StepFailed,
                   rel, version_key)
from .clients import (client_entries, draft_clients, probe_client,
                      read_jaxlib_source)
from .index import load_index, spec_units_of
from .record import draft_record, release_records
from .source import rows_changed
from .spec import row_order
from .trees import git_dir, git_has, release_tree, tree_units


def releases_line(releases, version):
    if version in releases:
        return "releases = %s   (already names %s)" % (" ".join(releases),
                                                      version)
    # Oldest first; `modelled` (when the table names it) keeps its place.
    new = list(releases)
    later = [i for i, r in enumerate(new) if VERSION_RE.match(r)
             and version_key(r) > version_key(version)]
    new.insert(later[0] if later else len(new), version)
    return "releases = %s" % " ".join(new)


def clients_part(both, version, installed, jax_git):
    """Draft 2, the jaxlib_clients.py entry; returns what the wheel said
    (the probe) and what jaxlib's C++ said (None when not read)."""
    probe = probe_client(version) if installed else {
        "error": "not installed"}
    jaxlib_src = None
    gd = git_dir(jax_git) if jax_git else None
    if gd and probe.get("git_hash") and git_has(gd, probe["git_hash"]):
        jaxlib_src = read_jaxlib_source(gd, probe["git_hash"])
    mod, entries, allows_unread = client_entries()
    base_entry = None
    if mod is not None:
        lower = [e for e in entries if e != "modelled" and VERSION_RE.match(e)
                 and version_key(e) < version_key(version)]
        if lower:
            base_entry = mod.CLIENTS[max(lower, key=version_key)]
    both("2. %s, an entry of CLIENTS:" % CLIENTS_PY)
    both("")
    for line in draft_clients(version, probe, jaxlib_src, entries,
                              allows_unread, base_entry):
        both("    " + line)
    both("")
    return jaxlib_src


def base_trees(index, cmp, base_name, version, installed):
    """The units and lines of the base release and VERSION (for moving
    citations), each unit's state against the modelled commit, and against
    the base release (None when it is not installed)."""
    trees = {"base_units": {}, "new_units": {}, "base_lines": {},
             "new_lines": {}, "new_lines_of": {}}
    mod_cmp = {}
    for u in cmp["units"]:
        mod_cmp[(u["file"], u["name"])] = u["vs_modelled"]
        if u["lines"]:
            trees["new_lines_of"][(u["file"], u["name"])] = u["lines"]
    base_tree = release_tree(base_name) if base_name else None
    new_tree = release_tree(version) if installed else None
    if not (base_tree and new_tree):
        return trees, mod_cmp, None
    files = list(index["files"])
    bu, bl = tree_units(base_tree, files)
    nu, nl = tree_units(new_tree, files)
    trees.update(base_units={f: v["units"] for f, v in bu.items() if v},
                 new_units={f: v["units"] for f, v in nu.items() if v},
                 base_lines=bl, new_lines=nl)
    base_cmp = {}
    for f in files:
        b = {u["name"]: u["sha256"] for u in trees["base_units"].get(f, [])}
        n = {u["name"]: u["sha256"] for u in trees["new_units"].get(f, [])}
        for name in set(b) | set(n):
            base_cmp[(f, name)] = ("unchanged" if b.get(name) ==
                                   n.get(name) and name in b
                                   else "changed")
    return trees, mod_cmp, base_cmp


def record_part(both, version, cites, cmp, installed, jaxlib_src):
    """Draft 3, the release.c row and its citation table lines; returns
    its TODO count."""
    records = release_records()
    lower = [n for n, _ in records if VERSION_RE.match(n)
             and version_key(n) < version_key(version)]
    base_name = max(lower, key=version_key) if lower else None
    with open(os.path.join(ROOT, RELEASE_H), encoding="utf-8") as f:
        has_unread = "client_gpu_unread" in f.read()
    index = load_index()
    trees, mod_cmp, base_cmp = base_trees(index, cmp, base_name, version,
                                          installed)
    basis = ("each fact is copied from %s's row where the units it cites "
             "are the same as in jax %s (installed), else from the modelled "
             "row where they are the same as at the modelled commit; "
             "TODO where they changed" % (base_name, base_name)
             if base_cmp is not None else
             "jax %s is not installed here, so each fact whose cited units "
             "are the same as at the modelled commit is the modelled "
             "row's; TODO where they changed (values copied from %s)"
             % (base_name, base_name))
    both("3. reference/src/release.c, a row of RELEASES and its lines of "
         "the citation tables (after %s): %s."
         % (base_name, basis))
    both("")
    rec, todos = draft_record(
        version, records, spec_units_of(index, cites),
        {"base": base_name, "base_cmp": base_cmp, "modelled_cmp": mod_cmp},
        trees, jaxlib_src, has_unread)
    for line in rec:
        both(line)
    both("")
    return todos


def rows_to_reread(cmp, prev, matrix):
    """{row: [why]} of the rows whose cited units changed since prev or
    differ from the modelled commit, or whose matrix cell differs."""
    reread = {}
    since = rows_changed(cmp["units"], "vs_prev") if prev else {}
    against = rows_changed(cmp["units"], "vs_modelled")
    for row in row_order(set(since) | set(against)):
        names = []
        for n in since.get(row, []) + against.get(row, []):
            if n not in names:
                names.append(n)
        reread[row] = ["%s (%s)" % (n, "; ".join(
            w for w, d in (("changed since %s" % prev, since),
                           ("differs from the modelled commit", against))
            if n in d.get(row, []))) for n in names]
    if matrix:
        for rid in matrix.get("drift", []) + matrix.get("failing_rows", []):
            reread.setdefault(rid, []).append(
                "its matrix cell differs from the modelled commit")
    return reread


def reread_part(both, cmp, prev, matrix):
    """Draft 4, the rows to re-read, first those that changed since prev;
    returns {row: [why]}."""
    both("4. Rows to re-read:")
    reread = rows_to_reread(cmp, prev, matrix)
    if not reread:
        both("   none: every cited unit is as at the modelled commit%s"
             % (" and in %s" % prev if prev else ""))
    first = [r for r in row_order(reread)
             if any("changed since" in x or "matrix" in x
                    for x in reread[r])]
    rest = [r for r in row_order(reread) if r not in first]
    if first:
        both("   first those whose cited units changed since %s (or whose "
             "matrix cell differs):" % (prev or "the last release"))
        for row in first:
            both("   - %s: %s" % (row, "; ".join(reread[row])))
    if rest:
        both("   then those whose cited units differ from the modelled "
             "commit only (the spec's text is that commit's):")
        for row in rest:
            both("   - %s: %s" % (row, "; ".join(reread[row])))
    both("")
    return reread


def drafts(out, version, releases, cites, cmp, prev, installed, opts,
           out_dir, matrix):
    """Step 5: prints the drafts and writes them to out_dir/draft.md;
    returns a summary dict."""
    md = ["# Adding JAX %s: drafts" % version, "",
          "Written by `python3 tools/jax_release.py %s`. Complete and copy "
          "each part by hand; a TODO marks what changed and must be read "
          "again." % version, ""]

    def both(text=""):
        out(text)
        md.append(text)

    both("1. conformance/spec/backend-selection.lspec (and every fact or "
         "row's `was` line the re-read finds):")
    both("")
    both("    " + releases_line(releases, version))
    both("")
    jaxlib_src = clients_part(both, version, installed, opts.jax_git)
    path = os.path.join(out_dir, "draft.md")
    if cmp is None:
        both("3. reference/src/release.c and 4. the rows to re-read: not "
             "drafted, step 3 (source) failed.")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(md) + "\n")
        raise StepFailed("the release.c row and the rows to re-read "
                         "need step 3 (the other drafts are in %s)"
                         % rel(path))
    todos = record_part(both, version, cites, cmp, installed, jaxlib_src)
    reread = reread_part(both, cmp, prev, matrix)
    both("Then: `lctx check-spec`, the `jax_release` and `jaxlib_clients` "
         "tests, and `make jax-matrix` (README, \"Adding a JAX release\").")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(md) + "\n")
    out("")
    out("  the drafts are in %s (%d TODO in the release.c row)"
        % (rel(path), todos))
    return {"draft": rel(path), "todos": todos, "reread": reread,
            "jaxlib_source_read": bool(jaxlib_src)}
