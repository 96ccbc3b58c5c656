"""lctx's programs for JAX: the adapter that judges JAX's backend
selection by the spec table, the exporter of JAX's own programs for the
sweep, and the generated programs built in JAX.  Started through the entry
scripts beside this folder (jax_adapter.py, jax_export.py, jax_program.py),
which keep the command lines lctx, the Makefile and the docs use.

The modules, by job:

    protocol.py         the process protocol (conformance/PROTOCOL.md) as
                        the Python example speaks it; importing JAX
  the adapter (jax_adapter.py):
    adapter.py          its command line, the handshake, the request loop
    driver.py           a case's registry put in place, its operations run
    capabilities.py     what the installed release can drive
    case_fields.py      the checks on a case's fields
    lowering.py         a case's rules as real lowering rules
    jax_module.py       the module of lower_per_platform, JAX end to end
    fake_clients.py     fake clients shaped as the installed jaxlib's
    jaxlib_clients.py   the table of jaxlib client classes per release
  the exporter (jax_export.py):
    export_main.py      its command line, start-up, the protocol loop
    export_common.py    its limits, log, channel, the description of raises
    census.py           the backend look-ups a lowering makes
    corpus.py           lctx's rule corpus (`lctx export rules`) as
                        primitives
    catalogue.py        the catalogue of real JAX programs
    catalogue_extra.py  the programs for the rules the others do not reach
    mutants.py          JAX broken on purpose (--mutate)
    exporter.py         one export item: exported, called, described
    user_catalogue.py   a user's catalogue (--programs, sweep/USER.md)
    discover.py         the primitives a package registers (--package)
    user_facts.py       where the user's code is: raise, rule, call site
  generated programs (jax_program.py):
    program.py          what the others use, from:
    program_text.py     the text format and its parser
    program_ops.py      the JAX operations of `jax OP`
    program_source.py   the program as Python source in JAX; build
    program_repro.py    standalone reproductions; the command line
  a user's code, judged by lctx sweep (docs/user-code.md):
    check.py            python -m lctx_jax.check: a catalogue's diagnoses
    pytest_plugin.py    the pytest plugin (fixture lctx_export)
  testkit.py            what the tests beside the entry scripts share
"""
