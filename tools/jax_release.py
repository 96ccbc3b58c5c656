#!/usr/bin/env python3
"""Adding a JAX release to lctx: one command.

    python3 tools/jax_release.py VERSION [--offline] [--random N | --full]
                                 [--no-matrix] [--out DIR] [--lctx PATH]
                                 [--jax-git DIR]
    python3 tools/jax_release.py --diff TREE [--against TREE2]
    python3 tools/jax_release.py --index-modelled DIR

For JAX VERSION it

1. writes conformance/adapters/requirements/jax-VERSION.txt with
   tools/jax_requirements.py when there is none (that needs PyPI and a
   CPython of the version the release needs; --offline, or an existing
   file, skips it);
2. installs it with `sh tools/setup-jax.sh VERSION` (pinned and hashed; a
   no-op when it is installed);
3. reads from the installed wheel the units of JAX's source that the spec
   rows cite (`source = FILE:LINES` of conformance/spec/backend-selection.lspec
   and jax-sweep.lspec, lines of the modelled commit): each top-level
   function, class, method or module-level statement holding a cited line,
   as conformance/adapters/cited_functions.json lists them. Each is
   reported unchanged, changed or missing against the modelled commit (by
   the sha256 of its normalized source: docstrings, comments, blank lines
   and formatting do not count), and against the nearest lower release
   installed in build/jax/ (a unified diff of every unit that changed,
   with that release's and VERSION's file:line); then the spec rows whose
   cited units changed, and the module-level register_backend_factory
   calls of xla_bridge.py that the modelled commit (or that release) does
   not have;
4. runs the release's drift-matrix cell, `python3 tools/jax_matrix.py
   VERSION --no-sweep --random N --no-domain` (N: --random, default 2000;
   --full: the arguments of `make jax-matrix`) into DIR/matrix, and
   summarizes it. A release the spec table, the reference model or the
   client table does not name yet cannot be judged as itself: it is then
   judged as the modelled commit behaves (its drift), the fake clients
   following its jaxlib_clients.py entry, else the modelled commit's;
5. prints the drafts a person completes: the spec's `releases =` line with
   VERSION, an entry of conformance/adapters/lctx_jax/jaxlib_clients.py, a row of
   reference/src/release.c with its citation lines (each fact copied from a release whose cited
   units are the same, a TODO where a cited unit changed), and the rows to
   re-read; the same goes to DIR/draft.md, the whole report to
   DIR/report.txt and DIR/report.json (DIR: --out, default
   build/jax-release/VERSION).

--diff TREE [--against TREE2]: step 3 alone, on a JAX source tree (a folder
holding jax/_src/...), against the modelled commit and TREE2.

--index-modelled DIR: writes conformance/adapters/cited_functions.json from
the modelled commit's source: DIR is a folder holding jax/_src/... at that
commit, or a git repository of jax-ml/jax holding it (read with git show).
JAX's code is not stored, only names, line ranges, the citing rows and
hashes. Parsing the modelled commit's core.py needs Python 3.12 or later
(PEP 695 syntax); a CPython that can is looked for on PATH and in pyenv's
versions. The normalization is the same under 3.11 to 3.13 (f-strings are
rendered as calls before ast.unparse: 3.12 quotes them differently).

--jax-git DIR: a git repository of jax-ml/jax; when it holds the commit the
wheel was built from (jaxlib/version.py's _git_hash), the client entry's
`.platform` shim and member lines are read from its jaxlib/py_client.h and
py_client.cc. Without it (or without that commit) the entry says the shim
was not read and what was read instead.

Exit status: 0 done (differences are data, not failures); 1 a step failed
(named on stderr); 2 bad usage. Standard library only.
"""

import sys

# tools/lctx_release/ holds the command's parts, by job (its __init__.py
# lists them); this script's folder is on sys.path, so it imports them.
from lctx_release.command import main

if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.stderr.write("jax-release: interrupted\n")
        sys.exit(130)
