#!/usr/bin/env python3
"""lctx adapter for JAX itself: judge JAX's own backend selection and
multi-platform lowering.

This program speaks version 1 of the lctx process protocol
(conformance/PROTOCOL.md), like conformance/examples/python/lctx_example.py,
but instead of a model it drives JAX's own functions:

    jax._src.xla_bridge.backends()
    jax._src.xla_bridge.canonicalize_platform(name)
    jax._src.xla_bridge.get_backend(platform)
    jax._src.interpreters.mlir.ModuleContext.get_backend(optional)
    jax._src.interpreters.mlir.register_lowering(prim, rule, platform)
    jax._src.interpreters.mlir._get_lowering_rules, lower_per_platform,
        lower_fun (on real ModuleContext and LoweringRuleContext objects)

For each case it puts a registry in place -- the case's backend factories
registered through JAX's `register_backend_factory`, returning fake clients;
the `jax_platforms`, `jax_platform_name` and `jax_xla_backend` config values;
NVIDIA GPU visibility -- and turns the case's rules into Python lowering
rules, then runs the case's operations and reports what JAX returned or
raised, with the MLIR module of every lowering.  See
conformance/adapters/README.md for what it patches and its limitations.

    sh tools/setup-jax.sh 0.10.2
    lctx conform --cmd "build/jax/venv-0.10.2/bin/python \
                        conformance/adapters/jax_adapter.py"

When JAX cannot be imported it says so on stderr, answers the handshake with
{"protocol": 1, "error": "jax is not importable: ..."} and exits with status 3;
likewise ("no client entry for this jaxlib: ...") when the installed jaxlib
has no entry in jaxlib_clients.py, whose entry the fake clients follow.

It drives whatever API the installed release has, detected by feature
(Capabilities): an operation the release cannot drive through its own entry
points is left out of the handshake's `operations` (lctx then reports its
cases `unsupported`), with the reason on stderr. With --per-case-refusals,
module_get_backend is also offered on a release whose ModuleContext has no
`optional` parameter, and a case asking for optional=True is answered
{"error": "unsupported: ..."} (lctx counts it as a crash: PROTOCOL.md has no
per-case `unsupported` answer). --clients ENTRY makes the fake clients follow
another entry of jaxlib_clients.CLIENTS (e.g. `modelled`, the commit lctx
models) instead of the installed jaxlib's; the version says which.
"""

import sys

from . import jaxlib_clients
from .capabilities import OPERATIONS
from .driver import Driver
from .protocol import (PROTOCOL_VERSION, SUGGESTED_INSTALL, import_jax_with,
                       log, read_hello, read_message, refuse, send, serve)

ADAPTER_NAME = "jax"
EXIT_CANNOT_RUN = 3

# The JAX commit lctx's semantics sheet models, and the set-up that installs
# the pinned release (0.10.2: the code lctx models differs from the commit in
# plumbing only, see README.md).
MODELLED_COMMIT = "cec06d116c05"

PER_CASE_REFUSALS = "--per-case-refusals"
CLIENTS_OPTION = "--clients"
# The installed JAX's own backend factories instead of the case's fakes
# (see Driver.setup and conformance/cases/installed/README.md).
INSTALLED_REGISTRY = "--installed-registry"


# ---------------------------------------------------------------------------
# Importing JAX
# ---------------------------------------------------------------------------

class Jax:
    """The JAX modules the adapter drives."""

    def __init__(self):
        import jax
        from jax._src import xla_bridge
        from jax._src.interpreters import mlir
        from jax._src import (config, core, dtypes, sharding_impls,
                              source_info_util)
        from jax._src.lib.mlir import ir
        from jax._src.lib.mlir.dialects import func as func_dialect
        import numpy
        self.jax, self.xb, self.mlir, self.ir = jax, xla_bridge, mlir, ir
        self.func_dialect, self.np = func_dialect, numpy
        self.config, self.core, self.dtypes = config, core, dtypes
        self.sharding_impls = sharding_impls
        self.source_info_util = source_info_util
        # jax._src.hardware_utils (the hardware probes) exists from 0.4.30;
        # 0.4.20 has none (None here, see Driver).
        try:
            from jax._src import hardware_utils
        except ImportError:
            hardware_utils = None
        self.hardware_utils = hardware_utils
        self.version = getattr(jax, "__version__", "unknown")
        self.jaxlib_version = (jaxlib_clients.installed_version()
                               or "unknown")


def import_jax():
    """Returns (Jax, None) or (None, why)."""
    return import_jax_with(
        Jax, "install the pinned JAX (the modelled commit is %s): %s "
        "(jax and jaxlib, pinned and hashed), then run this adapter with "
        "build/jax/venv-0.10.2/bin/python." % (MODELLED_COMMIT,
                                                SUGGESTED_INSTALL))


# ---------------------------------------------------------------------------
# The protocol loop
# ---------------------------------------------------------------------------

def refuse_before_hello(stdin, error):
    """Reads lctx's hello and answers it with `error`; returns the exit
    status for a JAX the adapter cannot run."""
    try:
        hello = read_message(stdin)
    except ValueError:
        hello = None
    if hello is not None:
        refuse(error, EXIT_CANNOT_RUN)
    return EXIT_CANNOT_RUN


USAGE = ("usage: jax_adapter.py [%s] [%s] [%s ENTRY]   (ENTRY: a key of "
         "jaxlib_clients.CLIENTS, e.g. modelled)" % (PER_CASE_REFUSALS,
                                                     INSTALLED_REGISTRY,
                                                     CLIENTS_OPTION))


def parse_args(argv):
    """(per_case_refusals, clients entry name or None, installed), or None
    (logged)."""
    per_case, clients, installed = False, None, False
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == PER_CASE_REFUSALS:
            per_case = True
        elif arg == INSTALLED_REGISTRY:
            installed = True
        elif arg == CLIENTS_OPTION and args:
            clients = args.pop(0)
        else:
            log("bad argument %r; %s" % (arg, USAGE))
            return None
    return per_case, clients, installed


def main(argv):
    parsed = parse_args(argv)
    if parsed is None:
        return 2
    per_case, clients, installed = parsed
    stdin = sys.stdin.buffer
    j, why = import_jax()
    if j is None:
        return refuse_before_hello(stdin, "jax is not importable: %s" % why)
    # The fake clients follow the installed jaxlib's entry of the client
    # table; a release without one is refused, not guessed. --clients names
    # another entry explicitly (the version string then says so).
    try:
        if clients is not None:
            if clients not in jaxlib_clients.CLIENTS:
                raise jaxlib_clients.UnknownRelease(
                    "%s %r is not an entry of jaxlib_clients.CLIENTS (%s)"
                    % (CLIENTS_OPTION, clients,
                       ", ".join(jaxlib_clients.CLIENTS)))
            entry = jaxlib_clients.CLIENTS[clients]
            log("%s %s: the fake clients follow that entry, not the "
                "installed jaxlib %s's" % (CLIENTS_OPTION, clients,
                                           j.jaxlib_version))
        else:
            entry = jaxlib_clients.lookup(j.jaxlib_version)
    except jaxlib_clients.UnknownRelease as err:
        log(str(err))
        return refuse_before_hello(stdin,
                                   "no client entry for this jaxlib: %s" % err)
    log(jaxlib_clients.describe(entry))

    status = read_hello(stdin)
    if status is not None:
        return status
    if sys.flags.optimize:
        # JAX's own `assert`s (the registry without a default) are part of
        # the behaviour under test; -O removes them.
        return refuse("python3 runs with -O (or PYTHONOPTIMIZE), which "
                      "strips JAX's asserts; run the adapter without it",
                      EXIT_CANNOT_RUN)
    try:
        driver = Driver(j, entry, per_case, installed)
    except Exception as err:
        return refuse("cannot patch this JAX (%s): %s: %s"
                      % (j.version, type(err).__name__, err), EXIT_CANNOT_RUN)
    for note in driver.hardware_notes:
        log(note)
    caps = driver.caps
    for op in OPERATIONS:
        if op in caps.refused:
            log("%s unsupported: %s" % (op, caps.refused[op]))
    if caps.partial_module_get_backend:
        log("module_get_backend: optional=False through %s; a case asking "
            "for optional=True is answered unsupported: %s"
            % (caps.get_backend_form, caps.no_optional))
    # The version names the client entry in use (PROTOCOL.md's hello has no
    # field for it; it is logged above too).
    if installed:
        log("%s: the installed JAX's own factories: %s"
            % (INSTALLED_REGISTRY, ", ".join(
                "%s (priority %d%s)" % (n, r.priority,
                                        ", quiet" if r.fail_quietly else "")
                for n, r in driver.stock)))
    send({"protocol": PROTOCOL_VERSION, "name": ADAPTER_NAME,
          "version": "%s (jaxlib %s, clients %s%s)" % (
              j.version, j.jaxlib_version, entry.release,
              ", installed registry" if installed else ""),
          "operations": caps.operations})
    status = serve(stdin, driver.run_case)
    if driver.lowerings:
        log(driver.lowering_summary())
    return status


