"""lctx program for JAX's own programs: export each for several platforms.

This program speaks version 1 of the lctx process protocol
(conformance/PROTOCOL.md) like jax_adapter.py, but offers one operation,
`export`, negotiated in the handshake (`"extensions": ["export"]` in the
hello).  It holds a catalogue of real JAX programs and, for each request
item, runs

    jax.export.export(jax.jit(f), platforms=P)(*args)

reporting whether the export succeeded (and what the exported module
computes when called on the CPU) or what it raised and from which line of
JAX, with the census of every backend look-up the lowering made
(ModuleContext.get_backend calls and ModuleContext.backend reads) and the
primitives whose lowering rules ran.

The catalogue (`--list` prints it):

    harness/GROUP/NAME  every harness of
                        jax/_src/internal_test_util/test_harnesses.py
    effect/...          host callbacks: debug callback and print,
                        io_callback (ordered, unordered), pure_callback
    custom/...          custom_jvp, custom_vjp (and their grads),
                        custom_partitioning with a sharding rule, a Pallas
                        kernel, a primitive with uncacheable per-platform
                        lowering rules
    control/C_W         cond, switch, while_loop, scan (C) around an
                        effectful or a platform-specific computation (W)
    corpus/STEM         lctx's rule corpus (corpus/rules/STEM.rule) as real
                        primitives named lctx_STEM:NAME, read by lctx
                        (`lctx export rules`): the lctx of `--lctx PATH`,
                        else `lctx` on PATH; without one, none (corpus.py)
    extra/...           the lowering rules the others do not reach
                        (catalogue_extra.py)

Generated programs (`lctx generate`) come with their text: an item with
`"source"` (the program description of conformance/sweep/PROGRAMS.md, named
gen/...) is built by program.py and exported like a catalogue program;
its result also carries `dispatch`, the per-platform dispatches of its
primitives and which rule ran for which platforms, and, when the item asks
(`"repro": true`), a standalone reproduction script (PROTOCOL.md,
Generated programs).  `--host-devices N` makes the CPU N devices (XLA_FLAGS
--xla_force_host_platform_device_count=N, set before JAX is imported).

    sh tools/setup-jax.sh 0.10.2
    build/jax/venv-0.10.2/bin/python conformance/adapters/jax_export.py --list

Mutants (`--mutate NAME`, repeatable) break JAX on purpose so that each
judgement of the sweep can be seen to fail:

    dispatch-first   lower_per_platform runs the first platform's rule for
                     every platform
    get-backend=PRIM the lowering rules of PRIM first call
                     ctx.module_context.get_backend() (optional=False)
    host-read=PRIM   the lowering rules of PRIM first call jax.devices():
                     a host look-up inside a JAX rule (census "host")
    raise-multi=PRIM the lowering rules of PRIM raise RuntimeError("lctx
                     mutant: PRIM refuses several platforms") when the
                     module has more than one platform
    order-first      jax.export.export raises NotImplementedError when
                     platforms[0] is not the first platform in sorted order
    declared-sorted  the Exported of jax.export.export declares its
                     platforms sorted, not in the order asked

Each applies to generated programs too (dispatch-first patches
lower_per_platform, which dispatches their primitives as well).

When JAX or absl cannot be imported it says so on stderr, answers the
handshake with {"protocol": 1, "error": "..."} and exits with status 3.

The parts: census.py (the backend look-ups), corpus.py, catalogue.py,
catalogue_extra.py, mutants.py, exporter.py (one export item), and this
file (start-up and the protocol loop); conformance/adapters/jax_export.py
starts it.

Standard library and JAX only.  Nothing here copies JAX's code; the JAX
internals it instruments are cited as file:line of jax 0.10.2.
"""

import json
import os
import re
import sys
import warnings

from . import program as lctx_program
from .catalogue import make_catalogue
from .census import Census
from .corpus import Corpus, export_rules
from .export_common import Channel, cut, import_jax, log
from .exporter import Exporter
from .mutants import mutate
from .protocol import SUGGESTED_INSTALL, read_message

PROGRAM_NAME = "jax-export"
EXTENSION = "export"
EXIT_CANNOT_RUN = 3
# The protocol version this program speaks (conformance/PROTOCOL.md).
PROTOCOL_VERSION = 1

# The platforms an export may name; "oneapi" and "gpu" are added when this
# JAX exports a trivial function for (name, "cpu") (probed at start-up).
BASE_PLATFORMS = ["cpu", "cuda", "rocm", "tpu"]
PROBED_PLATFORMS = ["oneapi", "gpu"]

MAX_ITEMS = 64
# The longest answer line this program writes (lctx's limit is 4 MiB).
LINE_BUDGET = 3 << 20

MUTANTS = ("dispatch-first", "get-backend=PRIM", "host-read=PRIM",
           "raise-multi=PRIM", "order-first", "declared-sorted")
# Mutants naming a JAX primitive: "OPTION=PRIM".
RULE_MUTANTS = ("get-backend", "host-read", "raise-multi")
# The highest --host-devices.
MAX_HOST_DEVICES = 1024


# ---------------------------------------------------------------------------
# Start-up and the protocol
# ---------------------------------------------------------------------------

def probe_platforms(j):
    """The platforms this JAX exports for.  jax 0.10.2 exports a trivial
    function for ("oneapi", "cpu") (any name is accepted by export; the
    trivial module reaches no rule), and refuses ("gpu", "cpu") with
    RuntimeError "Unknown backend: 'gpu' requested, but no platforms that
    are instances of gpu are present" (jax/_src/xla_bridge.py)."""
    platforms = list(BASE_PLATFORMS)
    for name in PROBED_PLATFORMS:
        try:
            j.jax.export.export(j.jax.jit(lambda x: x + 1),
                                platforms=(name, "cpu"))(j.np.float32(1))
            platforms.append(name)
        except Exception as err:
            log("platform %s not offered: %s: %s"
                % (name, type(err).__name__, cut(str(err), 200)))
    return platforms


def lowering_primitives(j):
    """JAX's own primitives with lowering rules: the catalogue's primitives
    (lctx's rule corpus and the custom programs, named lctx_...) are left
    out, so that the reach lctx reports is over JAX's rules alone."""
    mlir = j.mlir
    names = {getattr(p, "name", str(p)) for p in mlir._lowerings}
    for table in list(mlir._platform_specific_lowerings.values()):
        names.update(getattr(p, "name", str(p)) for p in table)
    return sorted(n for n in names if not n.startswith("lctx_"))


def valid_mutant(value):
    if value in ("dispatch-first", "order-first", "declared-sorted"):
        return True
    option, eq, prim = value.partition("=")
    return bool(eq) and option in RULE_MUTANTS and bool(prim)


def option_value(argv, i):
    """The value of the option at argv[i] (`--NAME=VALUE` or `--NAME VALUE`)
    and the index of its last word; None for the value when it is missing."""
    _, eq, inline = argv[i].partition("=")
    if eq:
        return inline, i
    return (argv[i + 1], i + 1) if i + 1 < len(argv) else (None, i)


def parse_args(argv):
    """(mutants, list_only, host_devices or None, lctx or None) or raises
    SystemExit(2)."""
    mutants, list_only, host_devices, lctx, i = [], False, None, None, 0
    while i < len(argv):
        arg = argv[i]
        name = arg.partition("=")[0]
        if arg == "--list":
            list_only = True
            i += 1
            continue
        if name not in ("--lctx", "--host-devices", "--mutate"):
            log("unknown option %r (usage: jax_export.py [--mutate NAME]... "
                "[--host-devices N] [--lctx PATH] [--list])" % arg)
            raise SystemExit(2)
        value, i = option_value(argv, i)
        if name == "--mutate" and value is None:
            log("--mutate needs a name (one of %s)" % ", ".join(MUTANTS))
            raise SystemExit(2)
        value = value or ""
        if name == "--lctx":
            if not value:
                log("--lctx needs the path of an lctx program")
                raise SystemExit(2)
            lctx = value
        elif name == "--host-devices":
            if (not re.match(r"[0-9]+\Z", value)
                    or not 1 <= int(value) <= MAX_HOST_DEVICES):
                log("--host-devices needs a number of devices, 1 to %d "
                    "(got %r)" % (MAX_HOST_DEVICES, value))
                raise SystemExit(2)
            host_devices = int(value)
        elif not valid_mutant(value):
            log("unknown mutant %r (one of %s)"
                % (value, ", ".join(MUTANTS)))
            raise SystemExit(2)
        else:
            mutants.append(value)
        i += 1
    return mutants, list_only, host_devices, lctx


def set_host_devices(n):
    """Makes the CPU n devices: XLA_FLAGS gets
    --xla_force_host_platform_device_count=n (replacing any such flag),
    before JAX is imported."""
    flags = [f for f in os.environ.get("XLA_FLAGS", "").split()
             if not f.startswith("--xla_force_host_platform_device_count")]
    flags.append("--xla_force_host_platform_device_count=%d" % n)
    os.environ["XLA_FLAGS"] = " ".join(flags)


def set_up(j, mutants, lctx=None):
    """Instrumentation, the corpus (read by `lctx`, see corpus.py), the
    catalogue, the mutants."""
    warnings.simplefilter("ignore")
    # A raise's location is the innermost frame inside jax: JAX's traceback
    # filtering (jax_traceback_filtering, at jax.jit's boundary) would drop
    # those frames when a program's own code (a generated rule lowering a
    # jitted function) lies between, leaving that code as the innermost.
    try:
        j.config.update("jax_traceback_filtering", "off")
    except Exception as err:
        log("jax_traceback_filtering not turned off: %s" % err)
    census = Census(j)
    corpus = Corpus(j, census)
    corpus.load(export_rules(lctx))
    catalogue = make_catalogue(j, corpus)
    mutate(j, mutants)
    return census, catalogue


def fit_line(results):
    """Keeps an answer line under LINE_BUDGET bytes (lctx refuses lines
    over 4 MiB): drops the `values` of the largest runs (null, as for a run
    with more than MAX_VALUES elements) until it fits."""
    def size(r):
        return len(json.dumps(r, separators=(",", ":")))
    total = sum(size(r) + 1 for r in results)
    if total <= LINE_BUDGET:
        return
    ranked = sorted((r for r in results
                     if isinstance(r.get("run"), dict)
                     and r["run"].get("values") is not None),
                    key=size, reverse=True)
    for r in ranked:
        before = size(r)
        r["run"]["values"] = None
        total -= before - size(r)
        if total <= LINE_BUDGET:
            return
    # Then the reproductions, largest first.
    for r in sorted((r for r in results if r.get("repro")),
                    key=lambda r: len(r["repro"]), reverse=True):
        before = size(r)
        r["repro"] = None
        r["repro_error"] = "left out: the answer line was too long"
        total -= before - size(r)
        if total <= LINE_BUDGET:
            return


def serve(channel, stream, exporter, extended):
    while True:
        try:
            request = read_message(stream)
        except ValueError as err:
            log("request is not JSON: %s" % err)
            return 2
        if request is None:
            return 0
        if isinstance(request, dict) and request.get("lctx") == "bye":
            return 0
        if not isinstance(request, dict) or "id" not in request:
            log("not a request: %r" % (request,))
            return 2
        if isinstance(request.get("cases"), list):
            channel.send({"id": request["id"], "results": [
                {"error": "jax-export serves only the export operation"}
                for _ in request["cases"]]})
            continue
        items = request.get("exports")
        if not extended or not isinstance(items, list):
            log("not a request: %r" % (request,))
            return 2
        if not 1 <= len(items) <= MAX_ITEMS:
            results = [{"error": "1 to %d export items per request"
                        % MAX_ITEMS}] * len(items)
        else:
            try:
                results = [exporter.run_item(item) for item in items]
            finally:
                exporter.end_request()
            fit_line(results)
        channel.send({"id": request["id"], "results": results})


def main(argv):
    mutants, list_only, host_devices, lctx = parse_args(argv)
    if host_devices is not None:
        set_host_devices(host_devices)
    j, why = import_jax()
    if j is None:
        if list_only:
            return EXIT_CANNOT_RUN
        channel = Channel()
        try:
            hello = read_message(sys.stdin)
        except ValueError:
            hello = None
        if hello is not None:
            channel.send({"protocol": PROTOCOL_VERSION,
                          "error": "jax is not importable: %s (install: %s)"
                          % (why, SUGGESTED_INSTALL)})
        return EXIT_CANNOT_RUN
    census, catalogue = set_up(j, mutants, lctx)
    if list_only:
        for p in catalogue:
            sys.stdout.write("%s\t%s\t%s\t%d\n"
                             % (p.name, p.group, p.kind, p.size))
        return 0
    channel = Channel()
    try:
        hello = read_message(sys.stdin)
    except ValueError as err:
        log("handshake is not JSON: %s" % err)
        return 2
    if hello is None:
        return 0
    if not isinstance(hello, dict) or hello.get("lctx") != "hello":
        channel.send({"protocol": PROTOCOL_VERSION,
                      "error": "expected the lctx hello, got %r" % (hello,)})
        return 2
    if hello.get("protocol") != PROTOCOL_VERSION:
        channel.send({"protocol": PROTOCOL_VERSION,
                      "error": "this program speaks protocol %d only, lctx "
                      "offered %r" % (PROTOCOL_VERSION,
                                      hello.get("protocol"))})
        return 2
    extensions = hello.get("extensions")
    extended = isinstance(extensions, list) and EXTENSION in extensions
    name = PROGRAM_NAME + "".join("+" + m for m in mutants)
    if not extended:
        channel.send({"protocol": PROTOCOL_VERSION, "name": name,
                      "version": j.version, "operations": []})
        return serve(channel, sys.stdin, None, False)
    platforms = probe_platforms(j)
    channel.send({
        "protocol": PROTOCOL_VERSION, "name": name, "version": j.version,
        "operations": [EXTENSION],
        "jax": {"version": j.version, "jaxlib": j.jaxlib_version,
                "python": "%d.%d.%d" % sys.version_info[:3],
                "mutant": ",".join(mutants) if mutants else None},
        "platforms": platforms,
        "generate": lctx_program.FORMAT_VERSION,
        "lowering_primitives": lowering_primitives(j),
        "catalogue": [p.describe() for p in catalogue]})
    return serve(channel, sys.stdin, Exporter(j, catalogue, census), True)
