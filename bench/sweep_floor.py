"""bench/sweep_floor.py - the floor of `lctx sweep`: the same exports and
CPU runs a sweep made, in a bare Python loop with JAX alone (no lctx, no
protocol, no census, no digest of the results, no clearing of JAX's
caches). Run by bench/bench_sweep.py with the pinned JAX's Python:

    PYTHONPATH=conformance/adapters PYTHON bench/sweep_floor.py \\
        TRACE LCTX HOST_DEVICES

TRACE is what the exporters of a sweep traced ($LCTX_JAX_EXPORT_TRACE,
conformance/adapters/lctx_jax/export_main.py, Trace): its requests, each
a list of [PROGRAM, PLATFORMS] items, in the order one exporter ran them
(the --jobs 1 run). Every item is, exactly as the exporter does it:

    fn, args, x64 = program.build()
    with jax_enable_x64 as x64 (jax._src.config.enable_x64):
        exported = jax.export.export(jax.jit(fresh), platforms=P)(*args)
        if "cpu" in P: the outputs of exported.call(*args), ready

with `fresh` a new function each time (as the exporter: JAX caches traces
and lowerings by function, and the sweep needs every lowering run), a
raise of either counted as the item's outcome.

The programs: the catalogue is read from lctx's adapter package
(lctx_jax.catalogue, with the rule corpus of lctx_jax.corpus, which LCTX
prints), so that the floor exports the very programs the sweep exported;
its build() functions make a program's function and arguments, JAX alone.
Nothing else of the adapter is imported: not the exporter, the census,
the protocol or the mutants. Like the exporter, JAX's traceback filtering
is off (a raise is located by its innermost JAX frame) and the CPU has
HOST_DEVICES devices.

Prints one JSON object: exports, raises, seconds (the loop) and its CPU
seconds (this process's, every thread), export and call seconds, start-up
seconds (JAX imported, catalogue made) and the items that named a program
the catalogue does not have (none expected)."""

import json
import os
import sys
import time
import warnings


def read_requests(path):
    """The traced requests of the first exporter that answered, in order:
    lists of (program, platforms)."""
    requests, first = [], None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            try:
                event = json.loads(line)
            except ValueError:
                raise SystemExit("sweep_floor.py: %s:%d: not JSON"
                                 % (path, number))
            if first is None and "hello" in event:
                first = event["proc"]
            if event.get("proc") != first or "items" not in event:
                continue
            requests.append([(i[0], tuple(i[1])) for i in event["items"]])
    return requests


def start(lctx, host_devices):
    """JAX imported as the exporter imports it, and the catalogue: name ->
    Program."""
    flags = [f for f in os.environ.get("XLA_FLAGS", "").split()
             if not f.startswith("--xla_force_host_platform_device_count")]
    flags.append("--xla_force_host_platform_device_count=%d" % host_devices)
    os.environ["XLA_FLAGS"] = " ".join(flags)
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    from lctx_jax.catalogue import make_catalogue
    from lctx_jax.corpus import Corpus, export_rules
    from lctx_jax.export_common import import_jax
    j, why = import_jax()
    if j is None:
        raise SystemExit("sweep_floor.py: jax: %s" % why)
    warnings.simplefilter("ignore")
    j.config.update("jax_traceback_filtering", "off")
    corpus = Corpus(j, None)
    corpus.load(export_rules(lctx))
    return j, {p.name: p for p in make_catalogue(j, corpus)}


def one(j, program, platforms, counts):
    """One item: exported for `platforms`, called on the CPU when cpu is
    among them (j: the JAX modules, export_common.Jax)."""
    jax = j.jax
    fn, args, x64 = program.build()

    def fresh(*a):
        return fn(*a)
    with j.config.enable_x64(x64):
        t = time.monotonic()
        try:
            exported = jax.export.export(jax.jit(fresh),
                                         platforms=platforms)(*args)
        except Exception:
            counts["raises"] += 1
            exported = None
        counts["export_seconds"] += time.monotonic() - t
        if exported is None or "cpu" not in platforms:
            return
        t = time.monotonic()
        try:
            jax.block_until_ready(exported.call(*args))
        except Exception:
            counts["call_raises"] += 1
        counts["call_seconds"] += time.monotonic() - t


def main(argv):
    if len(argv) != 3 or not argv[2].isdigit():
        sys.stderr.write("usage: sweep_floor.py TRACE LCTX HOST_DEVICES\n")
        return 2
    # What the programs print (jax.debug.print) goes to stderr; stdout
    # carries the one answer.
    sys.stdout.flush()
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    t0 = time.monotonic()
    requests = read_requests(argv[0])
    j, programs = start(argv[1], int(argv[2]))
    counts = {"exports": 0, "raises": 0, "call_raises": 0,
              "export_seconds": 0.0, "call_seconds": 0.0, "unknown": 0}
    t1 = time.monotonic()
    c1 = time.process_time()
    for request in requests:
        for name, platforms in request:
            if name not in programs:
                counts["unknown"] += 1
                continue
            one(j, programs[name], platforms, counts)
            counts["exports"] += 1
    counts["seconds"] = time.monotonic() - t1
    counts["cpu_seconds"] = time.process_time() - c1
    counts["startup_seconds"] = t1 - t0
    counts["requests"] = len(requests)
    out.write(json.dumps(counts) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
