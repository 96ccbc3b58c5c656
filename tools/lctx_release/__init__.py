"""Adding a JAX release to lctx (tools/jax_release.py), by job:

    base      the repository's files the command reads and writes, its
              failure (StepFailed) and its report lines (Reporter)
    spec      the spec's `source =` citations
    units     the units of a Python file and their normalized hashes
    trees     source trees: a folder, a git commit, an installed release
    index     the index of the modelled commit (cited_functions.json)
    source    step 3: the cited units against the modelled commit and the
              release before
    steps     steps 1, 2 and 4: requirements, install, the matrix cell
    clients   the jaxlib_clients.py entry drafted from the installed wheel
    record    reference/src/release.c's table read, a new row drafted
    drafts    step 5: the drafts and the rows to re-read
    command   the command line and the order of the steps

The command line, the steps and the exit status are described in
tools/jax_release.py.
"""
