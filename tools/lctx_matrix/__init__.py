"""The JAX drift matrix (tools/jax_matrix.py), by job:

    lctx    what the matrix asks lctx: the spec table (`lctx export spec`)
            and the verdict of a version's runs (`lctx report merge
            --runs`); the matrix never parses a .lspec file nor sums
            report.json counts itself
    runs    installing a release and running lctx conform and lctx sweep
    cells   a row's cell at a version, its drift and its trace; a
            version's summary
    render  matrix.json and matrix.md
    cli     the command line and the order of the steps

The command line and the exit status are described in cli.py.
"""
