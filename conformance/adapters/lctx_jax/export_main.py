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

A request's items that name one of JAX's own catalogue programs share one
trace of it, lowered for each item's platforms (traced.py); the census
and every answer are those of a trace per item.  `--trace-each` traces
every item anew (jax.export.export itself), as a mutant does: the tests
compare the two (test_export_reuse.py).

A user's own programs (conformance/sweep/USER.md):

    --programs SPEC  a user catalogue (a file dir/mod.py or a dotted module
                     name defining LCTX_PROGRAMS or lctx_programs()): its
                     programs are user/MODSTEM/NAME (user_catalogue.py);
                     repeatable
    --package PKG    the primitives PKG and its submodules register, one
                     program each, package/PKG/PRIMITIVE (discover.py);
                     repeatable
    --platforms L    with either: the platform lists of the programs that
                     declare none (names joined by commas, lists by
                     semicolons: cpu,cuda;cuda,rocm,cpu), instead of lists
                     lctx draws
    --discover       with --package: print what was discovered, which
                     primitives got a program and why the others did not,
                     and exit

With either, the catalogue holds only those programs; their entries in the
hello carry the platform lists they declare ("platforms"), each result
carries `user` (the innermost user frame of a raise, the primitive being
lowered, its rule and call site: user_facts.py) and the census locates
look-ups made from user code in it.  A catalogue or package that cannot be
used (a missing field, a module that raises on import...) is said on
stderr naming the module, the entry and the field, and in the hello's
answer ({"protocol": 1, "error": "..."}); the exit status is 2.

When JAX or absl cannot be imported it says so on stderr, answers the
handshake with {"protocol": 1, "error": "..."} and exits with status 3.

The parts: census.py (the backend look-ups), corpus.py, catalogue.py,
catalogue_extra.py, user_catalogue.py, discover.py, user_facts.py,
mutants.py, exporter.py (one export item), traced.py (jax.export.export
in two steps, so that a request's items share a trace), and this file
(start-up, the protocol loop and its trace for bench/bench_sweep.py);
conformance/adapters/jax_export.py starts it.

Standard library and JAX only.  Nothing here copies JAX's code; the JAX
internals it instruments are cited as file:line of jax 0.10.2.
"""

import gc
import json
import os
import re
import sys
import time
import warnings

from . import program as lctx_program
from .catalogue import make_catalogue
from .census import Census
from .corpus import Corpus, export_rules
from .export_common import Channel, cut, import_jax, log
from .exporter import Exporter
from .discover import discover, print_report
from .mutants import mutate
from .protocol import SUGGESTED_INSTALL, read_message
from .user_catalogue import (UserCatalogueError, default_lists,
                             load as load_user, platform_lists)
from .user_facts import UserFacts

PROGRAM_NAME = "jax-export"
EXTENSION = "export"
EXIT_CANNOT_RUN = 3
# A user catalogue or package that cannot be used: the user's bad input.
EXIT_BAD_INPUT = 2
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
# The file the exporter traces its work into (Trace), when set.
TRACE_VARIABLE = "LCTX_JAX_EXPORT_TRACE"
USAGE = ("usage: jax_export.py [--mutate NAME]... [--host-devices N] "
         "[--lctx PATH] [--programs SPEC]... [--package PKG]... "
         "[--platforms L1;L2] [--discover] [--list] [--trace-each]")


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


def lowering_primitives(j, user=False):
    """JAX's own primitives with lowering rules: the catalogue's primitives
    (lctx's rule corpus and the custom programs, named lctx_...) are left
    out, so that the reach lctx reports is over JAX's rules alone.  With a
    user's programs (`user`) no corpus is loaded: every primitive with a
    rule is listed, the user's own included."""
    mlir = j.mlir
    names = {getattr(p, "name", str(p)) for p in mlir._lowerings}
    for table in list(mlir._platform_specific_lowerings.values()):
        names.update(getattr(p, "name", str(p)) for p in table)
    return sorted(n for n in names if user or not n.startswith("lctx_"))


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


class Options:
    """The command line: mutants, --list, --host-devices, --lctx, the
    user's --programs and --package, --discover."""

    def __init__(self):
        self.mutants, self.list_only, self.host_devices = [], False, None
        self.lctx, self.programs, self.packages = None, [], []
        self.discover = False
        self.platforms = None
        self.trace_each = False

    @property
    def user(self):
        return bool(self.programs or self.packages)


VALUED = ("--lctx", "--host-devices", "--mutate", "--programs", "--package",
          "--platforms")


def parse_args(argv):
    """Options, or raises SystemExit(2)."""
    o, i = Options(), 0
    while i < len(argv):
        arg = argv[i]
        name = arg.partition("=")[0]
        if arg in ("--list", "--discover", "--trace-each"):
            o.list_only = o.list_only or arg == "--list"
            o.discover = o.discover or arg == "--discover"
            o.trace_each = o.trace_each or arg == "--trace-each"
            i += 1
            continue
        if name not in VALUED:
            log("unknown option %r (%s)" % (arg, USAGE))
            raise SystemExit(2)
        value, i = option_value(argv, i)
        if name == "--mutate" and value is None:
            log("--mutate needs a name (one of %s)" % ", ".join(MUTANTS))
            raise SystemExit(2)
        value = value or ""
        take_value(o, name, value)
        i += 1
    if o.platforms is not None and not o.user:
        log("--platforms needs --programs or --package (%s)" % USAGE)
        raise SystemExit(2)
    if o.discover and not o.packages:
        log("--discover needs --package PKG (%s)" % USAGE)
        raise SystemExit(2)
    return o


def take_value(o, name, value):
    if name in ("--programs", "--package"):
        if not value:
            log("%s needs a %s" % (name, "module (dir/mod.py or a dotted "
                                   "name)" if name == "--programs"
                                   else "package name"))
            raise SystemExit(2)
        (o.programs if name == "--programs" else o.packages).append(value)
    elif name == "--platforms":
        # Checked with the catalogue (set_up): a bad list is said in the
        # hello's answer as a bad catalogue is.
        o.platforms = value
    elif name == "--lctx":
        if not value:
            log("--lctx needs the path of an lctx program")
            raise SystemExit(2)
        o.lctx = value
    elif name == "--host-devices":
        if (not re.match(r"[0-9]+\Z", value)
                or not 1 <= int(value) <= MAX_HOST_DEVICES):
            log("--host-devices needs a number of devices, 1 to %d "
                "(got %r)" % (MAX_HOST_DEVICES, value))
            raise SystemExit(2)
        o.host_devices = int(value)
    elif not valid_mutant(value):
        log("unknown mutant %r (one of %s)" % (value, ", ".join(MUTANTS)))
        raise SystemExit(2)
    else:
        o.mutants.append(value)


def set_host_devices(n):
    """Makes the CPU n devices: XLA_FLAGS gets
    --xla_force_host_platform_device_count=n (replacing any such flag),
    before JAX is imported."""
    flags = [f for f in os.environ.get("XLA_FLAGS", "").split()
             if not f.startswith("--xla_force_host_platform_device_count")]
    flags.append("--xla_force_host_platform_device_count=%d" % n)
    os.environ["XLA_FLAGS"] = " ".join(flags)


def set_up(j, o):
    """Instrumentation, then the catalogue: the user's programs and
    discovered packages (with the user roots and the discovery reports)
    when asked, else the corpus (read by `lctx`, see corpus.py) and JAX's
    programs; then the mutants.  Returns (census, catalogue, reports);
    raises UserCatalogueError for a catalogue or package that cannot be
    used."""
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
    reports = []
    if o.user:
        # After the census: a user module's `from jax import devices`
        # gets the recorded look-up.
        # The packages first: a catalogue that imports one would register
        # its primitives before discovery reads the tables.
        discovered, package_roots = [], []
        for package in o.packages:
            report, programs, root = discover(j, package)
            reports.append(report)
            discovered.extend(programs)
            package_roots.append(root)
        catalogue, roots = load_user(j, o.programs)
        catalogue.extend(discovered)
        roots.extend(package_roots)
        if not catalogue and not o.discover:
            raise UserCatalogueError(
                "--package %s: no primitive got a program (--discover "
                "says why)" % ", ".join(o.packages))
        census.facts = UserFacts(j, roots)
        if o.platforms is not None:
            default_lists(catalogue, platform_lists(o.platforms))
    else:
        corpus = Corpus(j, census)
        corpus.load(export_rules(o.lctx))
        catalogue = make_catalogue(j, corpus)
    mutate(j, o.mutants)
    return census, catalogue, reports


def refuse_hello(channel, why, status):
    """Answers the handshake (when one comes) on `channel` with the error
    `why`; returns `status`."""
    try:
        hello = read_message(sys.stdin)
    except ValueError:
        hello = None
    if hello is not None:
        channel.send({"protocol": PROTOCOL_VERSION, "error": why})
    return status


def undeclarable(catalogue, platforms):
    """Why a program's declared platform lists cannot be offered (a name
    this JAX does not export for), or None."""
    for p in catalogue:
        for names in getattr(p, "platforms", None) or ():
            missing = [n for n in names if n not in platforms]
            if missing:
                return ("%s: platforms %s: %s not among the platforms this "
                        "JAX exports for (%s)" % (
                            p.name, names, ", ".join(missing),
                            ", ".join(platforms)))
    return None


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


class Trace:
    """The exporter's own account of its work, for bench/bench_sweep.py:
    with $LCTX_JAX_EXPORT_TRACE set to a file, one JSON line per event is
    appended to it (one write each, so that several exporters may share
    the file): {"proc", "hello": T, "cpu": C} when the hello is
    answered, and per request {"proc", "t0", "t1", "cpu", "items":
    [[PROGRAM, [PLATFORM...]]...], "generated": bool}: times in seconds
    since the epoch, `cpu` this process's CPU seconds so far (at the end
    of the request); `proc` tells
    the exporters apart (random: their PIDs may be the same, each in a
    PID namespace of its own).  Without the
    variable it does nothing (and costs nothing but a test)."""

    def __init__(self):
        path = os.environ.get(TRACE_VARIABLE)
        self.fd = None
        self.proc = os.urandom(8).hex()
        if path:
            try:
                self.fd = os.open(path, os.O_WRONLY | os.O_APPEND
                                  | os.O_CREAT, 0o600)
            except OSError as err:
                log("%s: %s: not traced" % (TRACE_VARIABLE, err))

    def write(self, event):
        if self.fd is None:
            return
        event["proc"] = self.proc
        try:
            os.write(self.fd, (json.dumps(event, separators=(",", ":"))
                               + "\n").encode("utf-8"))
        except OSError as err:
            log("%s: %s: no longer traced" % (TRACE_VARIABLE, err))
            self.fd = None

    def request(self, t0, items):
        if self.fd is None:
            return
        self.write({"t0": t0, "t1": time.time(),
                    "cpu": time.process_time(), "items": [
            [i.get("program"), i.get("platforms")] if isinstance(i, dict)
            else None for i in items],
            "generated": any(isinstance(i, dict) and "source" in i
                             for i in items)})


def serve(channel, stream, exporter, extended, trace=None):
    trace = trace or Trace()
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
            t0 = time.time()
            try:
                results = [exporter.run_item(item) for item in items]
            finally:
                exporter.end_request()
            fit_line(results)
            trace.request(t0, items)
        channel.send({"id": request["id"], "results": results})


def main(argv):
    o = parse_args(argv)
    mutants = o.mutants
    if o.host_devices is not None:
        set_host_devices(o.host_devices)
    # The protocol's channel first: anything JAX, a user's module or a
    # package prints while imported goes to stderr (--list and --discover
    # print on stdout).
    channel = None if o.list_only or o.discover else Channel()
    j, why = import_jax()
    if j is None:
        if o.list_only or o.discover:
            return EXIT_CANNOT_RUN
        return refuse_hello(channel, "jax is not importable: %s (install: "
                            "%s)" % (why, SUGGESTED_INSTALL), EXIT_CANNOT_RUN)
    try:
        census, catalogue, reports = set_up(j, o)
    except UserCatalogueError as err:
        log(str(err))
        if o.list_only or o.discover:
            return EXIT_BAD_INPUT
        return refuse_hello(channel, str(err), EXIT_BAD_INPUT)
    if o.discover:
        print_report(reports, sys.stdout)
        return 0
    if o.list_only:
        for p in catalogue:
            sys.stdout.write("%s\t%s\t%s\t%d\n"
                             % (p.name, p.group, p.kind, p.size))
        return 0
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
    why = undeclarable(catalogue, platforms)
    if why is not None:
        log(why)
        channel.send({"protocol": PROTOCOL_VERSION, "error": why})
        return EXIT_BAD_INPUT
    channel.send({
        "protocol": PROTOCOL_VERSION, "name": name, "version": j.version,
        "operations": [EXTENSION],
        "jax": {"version": j.version, "jaxlib": j.jaxlib_version,
                "python": "%d.%d.%d" % sys.version_info[:3],
                "mutant": ",".join(mutants) if mutants else None},
        "platforms": platforms,
        "generate": lctx_program.FORMAT_VERSION,
        "lowering_primitives": lowering_primitives(j, o.user),
        "catalogue": [p.describe() for p in catalogue]})
    trace = Trace()
    trace.write({"hello": time.time(), "cpu": time.process_time()})
    # What start-up made (JAX, the catalogue) lives as long as this
    # program: out of the garbage collector's way, each collection (and
    # the exporter's tidy) scans only what the exports make.
    gc.freeze()
    # A mutant patches jax.export.export: every item goes through it.
    exporter = Exporter(j, catalogue, census,
                        reuse_traces=not mutants and not o.trace_each)
    return serve(channel, sys.stdin, exporter, True, trace)
