#!/usr/bin/env python3
"""Show JAX's direct `.backend` read in `LoweringRuleContext.is_forward_compat`
during a multi-platform lowering (lctx spec row SW-006, sweep keys "SW-006 a
.backend read at jax/_src/interpreters/mlir.py:940" and ":942").

`ModuleContext.get_backend()` refuses to hand out a backend while the module
is lowered for several platforms (and when the backend's platform is not the
lowering platform).  `LoweringRuleContext.is_forward_compat()` does not call
it: it reads `ctx.module_context.backend` and its `runtime_type` directly, to
test the runtime against `xla_bridge.FORCE_FORWARD_COMPAT_LOWERING_RUNTIMES`.
Under an export the backend it finds is the client the lowering carries (the
CPU client here), whose platform is none of the lowering platforms.

What public APIs show, and what they do not:

  * The read itself is invisible through public APIs.  This program observes
    it with ONE piece of instrumentation, clearly marked below: a property
    installed over the `ModuleContext.backend` field for the duration of the
    lowering, which returns the field unchanged and only records who read it
    (function, file:line, caller) and what it returned.
  * Its consequence, as far as public APIs can see, is none in this JAX: the
    forward-compatibility choice embedded in the kernels (the Mosaic GPU
    payload of the cuda branch, which does change with the public flag
    jax_export_ignore_forward_compatibility) is the same for the export for
    ("tpu", "cuda") as for ("cuda",) alone.  The set of forcing runtimes is
    empty in this JAX (read, never changed, below), and an export sets
    for_export, which decides is_forward_compat() before the runtime does.

The program exports `pl.pallas_call(kernel)` (a TPU Mosaic kernel and a
Mosaic GPU kernel, chosen per platform by `lower_per_platform`) with
`jax.export.export(jax.jit(f), platforms=("tpu", "cuda"))` on the CPU, and
contrasts it with the exports for ("tpu",) and ("cuda",) alone.

Verdicts and exit status:
    0  DEFECT REPRODUCED: ...         is_forward_compat read .backend while
                                      the module had several platforms
    0  FIXED IN THIS JAX VERSION: ... the multi-platform export ran with no
                                      such read
    1  anything else (the export failed and nothing was read, ...)
    2  an unknown option (usage on stderr)
    3  jax (or jax.experimental.pallas) cannot be imported

    python3 repro_forward_compat_backend_read.py [--json]

--json prints one JSON object instead of the report: jax_version,
platforms, expected, observed (the reads), verdict, message, the contrast
reads and the public-API consequence checks.  JAX runs on the CPU
(JAX_PLATFORMS defaults to cpu).
See docs/upstream-forward-compat-backend-read.md.
"""

import hashlib
import json
import os
import re
import sys
import traceback

EXIT_OK = 0
EXIT_UNEXPECTED = 1
EXIT_USAGE = 2
EXIT_CANNOT_RUN = 3

PLATFORMS = ("tpu", "cuda")
CONTRASTS = (("tpu",), ("cuda",))
READER = "is_forward_compat"
IGNORE_FLAG = "jax_export_ignore_forward_compatibility"

USAGE = "usage: repro_forward_compat_backend_read.py [--json]"


def import_jax():
    """Returns (jax, np, pl, mlir, export) or exits with 3."""
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    try:
        import numpy as np
        import jax
        from jax import export
        from jax.experimental import pallas as pl
        from jax.interpreters import mlir
    except Exception as e:  # ImportError, or a broken install
        sys.stderr.write(
            "repro_forward_compat_backend_read: cannot import jax (%s: %s).\n"
            "Install it, e.g. `sh tools/setup-jax.sh 0.10.2` (which creates "
            "build/jax/venv-0.10.2), and run this program with that "
            "environment's python.\n" % (type(e).__name__, e))
        sys.exit(EXIT_CANNOT_RUN)
    return jax, np, pl, mlir, export


def jax_relative(filename):
    """jax/... for a file inside the jax package, else the base name."""
    norm = filename.replace(os.sep, "/")
    k = norm.rfind("/jax/")
    return norm[k + 1:] if k >= 0 else os.path.basename(norm)


# ---------------------------------------------------------------------------
# INSTRUMENTATION (the only use of JAX internals that changes anything; it
# changes nothing JAX computes).  A property over the ModuleContext.backend
# field: it returns the field's value unchanged and records each read.
# Installed only around one lowering, then the original field is restored.
# ---------------------------------------------------------------------------
class BackendReadRecorder:
    def __init__(self, module_context_class):
        self.cls = module_context_class
        self.reads = []
        self.original = None

    def __enter__(self):
        cls = self.cls
        original = cls.__dict__.get("backend")
        self.original = original
        if original is not None and hasattr(original, "__set__"):
            def get_field(obj):  # a slot (dataclass with slots=True)
                return original.__get__(obj, cls)

            def set_field(obj, value):
                original.__set__(obj, value)
        else:
            def get_field(obj):  # a plain instance attribute
                return obj.__dict__["backend"]

            def set_field(obj, value):
                obj.__dict__["backend"] = value
        reads = self.reads

        def recording_get(obj):
            value = get_field(obj)
            reader = sys._getframe(1)
            caller = reader.f_back
            reads.append({
                "reader": reader.f_code.co_name,
                "file": jax_relative(reader.f_code.co_filename),
                "line": reader.f_lineno,
                "caller": (None if caller is None else "%s:%d" % (
                    jax_relative(caller.f_code.co_filename),
                    caller.f_lineno)),
                "module_platforms": list(getattr(obj, "platforms", ())),
                "gave": (None if value is None else {
                    "platform": getattr(value, "platform", None),
                    "runtime_type": getattr(value, "runtime_type", None)}),
            })
            return value

        cls.backend = property(recording_get, set_field)
        return self

    def __exit__(self, *exc):
        if self.original is not None:
            self.cls.backend = self.original
        else:
            del self.cls.backend
        return False
# --------------------------- end of instrumentation ------------------------


def outcome_of(thunk):
    try:
        return {"outcome": "ok"}, thunk()
    except Exception as e:  # the export under test failed
        frames = traceback.extract_tb(e.__traceback__)
        inner = frames[-1] if frames else None
        return {
            "outcome": "raise",
            "class": type(e).__name__,
            "message": str(e).splitlines()[0] if str(e) else "",
            "file": jax_relative(inner.filename) if inner else None,
            "line": inner.lineno if inner else None,
        }, None


def custom_call_digest(module_text, target):
    """sha256 (12 hex digits) of the attributes of the first custom call to
    `target` in the module text: its backend_config holds the kernel, with
    the IR version chosen for forward compatibility.  None when absent."""
    m = re.search(r"stablehlo\.custom_call @%s\([^)]*\)\s*\{([^\n]*)"
                  % re.escape(target), module_text)
    if not m:
        return None
    return hashlib.sha256(m.group(1).encode()).hexdigest()[:12]


def summarize(reads, reader=READER):
    """The reads by `reader`, one per (line, caller, platforms, gave)."""
    seen = []
    for r in reads:
        if r["reader"] != reader:
            continue
        if r not in seen:
            seen.append(r)
    return sorted(seen, key=lambda r: (r["line"], r["caller"] or ""))


def run():
    jax, np, pl, mlir, export = import_jax()
    x = np.zeros((8, 128), np.float32)

    def kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...] + 1.0

    f = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape,
                                                              x.dtype))
    try:
        from jax._src import xla_bridge  # read only: the forcing runtimes
        forcing = sorted(xla_bridge.FORCE_FORWARD_COMPAT_LOWERING_RUNTIMES)
    except Exception:  # not in this JAX
        forcing = None
    result = {
        "jax_version": jax.__version__,
        "platforms": list(PLATFORMS),
        "program": "jax.export.export(jax.jit(pl.pallas_call(kernel, ...)), "
                   "platforms=%r)(x) on the CPU" % (PLATFORMS,),
        "instrumentation": "a property over ModuleContext.backend that "
                           "returns the field unchanged and records each "
                           "read (reader, file:line, caller, value)",
        "expected": [],
        "expected_note": "no direct read of ModuleContext.backend by %s "
                         "while the module has several platforms (through "
                         "get_backend(optional=True) it would get None)"
                         % READER,
        "export": None,
        "observed": [],
        "contrast": {},
        "consequence": {"force_forward_compat_runtimes": forcing},
        "verdict": "error",
        "message": "",
    }
    module_context_class = getattr(mlir, "ModuleContext", None)
    if module_context_class is None:
        result["message"] = "jax.interpreters.mlir has no ModuleContext"
        return result, EXIT_UNEXPECTED

    def lowered_text(platforms):
        exp = export.export(jax.jit(f), platforms=platforms)(x)
        return exp.mlir_module()

    texts = {}
    try:
        with BackendReadRecorder(module_context_class) as rec:
            status, texts[PLATFORMS] = outcome_of(
                lambda: lowered_text(PLATFORMS))
        result["export"] = status
        result["observed"] = [r for r in summarize(rec.reads)
                              if len(r["module_platforms"]) > 1]
        for platforms in CONTRASTS:
            with BackendReadRecorder(module_context_class) as rec:
                status, texts[platforms] = outcome_of(
                    lambda: lowered_text(platforms))
            result["contrast"][",".join(platforms)] = {
                "export": status, "reads": summarize(rec.reads)}

        # Public API only: does the forward-compatibility choice embedded in
        # the kernels differ between the multi- and single-platform exports?
        # The Mosaic GPU payload is sensitive to it (checked with the public
        # flag that turns forward compatibility off for exports).
        cons = result["consequence"]
        if texts.get(PLATFORMS) and texts.get(("cuda",)):
            multi = custom_call_digest(texts[PLATFORMS], "mosaic_gpu_v2")
            alone = custom_call_digest(texts[("cuda",)], "mosaic_gpu_v2")
            cons["mosaic_gpu_payload_multi"] = multi
            cons["mosaic_gpu_payload_cuda_alone"] = alone
            try:
                jax.config.update(IGNORE_FLAG, True)
                off = custom_call_digest(lowered_text(("cuda",)),
                                         "mosaic_gpu_v2")
            except Exception:  # no such flag in this JAX
                off = None
            finally:
                try:
                    jax.config.update(IGNORE_FLAG, False)
                except Exception:
                    pass
            cons["mosaic_gpu_payload_cuda_alone_fwd_compat_off"] = off
            cons["payload_encodes_fwd_compat"] = (
                None if off is None or alone is None else off != alone)
            cons["multi_same_as_alone"] = (
                None if multi is None else multi == alone)
        if texts.get(PLATFORMS) and texts.get(("tpu",)):
            cons["tpu_payload_multi_same_as_alone"] = (
                custom_call_digest(texts[PLATFORMS], "tpu_custom_call")
                == custom_call_digest(texts[("tpu",)], "tpu_custom_call"))
    except Exception as e:  # the harness itself failed
        result["message"] = "exception: %s: %s" % (type(e).__name__, e)
        return result, EXIT_UNEXPECTED

    reads = result["observed"]
    if reads:
        lines = sorted(set(r["line"] for r in reads))
        gave = sorted(set("%s client (runtime %s)" % (
            r["gave"]["platform"], r["gave"]["runtime_type"])
            if r["gave"] else "None" for r in reads))
        result["verdict"] = "defect"
        result["message"] = (
            "exporting pallas_call for %s, %s read ModuleContext.backend "
            "directly at %s line(s) %s, from %s, and got %s; no observable "
            "consequence through public APIs in this JAX (forcing runtimes "
            "%s; kernel payloads equal to the single-platform exports: %s)"
            % (list(PLATFORMS), READER, reads[0]["file"],
               ", ".join(map(str, lines)),
               ", ".join(sorted(set(r["caller"] for r in reads))),
               " / ".join(gave), forcing,
               result["consequence"].get("multi_same_as_alone")))
        return result, EXIT_OK
    if result["export"] and result["export"]["outcome"] == "ok":
        result["verdict"] = "fixed"
        result["message"] = (
            "exporting pallas_call for %s, %s did not read "
            "ModuleContext.backend while the module had several platforms"
            % (list(PLATFORMS), READER))
        return result, EXIT_OK
    result["verdict"] = "unexpected"
    result["message"] = (
        "exporting pallas_call for %s failed (%s: %s) and nothing read "
        "ModuleContext.backend in %s: cannot tell"
        % (list(PLATFORMS), result["export"].get("class"),
           result["export"].get("message"), READER))
    return result, EXIT_UNEXPECTED


HEADLINE = {
    "defect": "DEFECT REPRODUCED: ",
    "fixed": "FIXED IN THIS JAX VERSION: ",
    "unexpected": "UNEXPECTED: ",
    "error": "ERROR: ",
}


def describe_read(r):
    gave = ("None" if r["gave"] is None else "%s client, runtime %s"
            % (r["gave"]["platform"], r["gave"]["runtime_type"]))
    return "%s at %s:%d (called from %s), module platforms %s -> %s" % (
        r["reader"], r["file"], r["line"], r["caller"],
        ", ".join(r["module_platforms"]), gave)


def report(result):
    r = result
    lines = [
        "JAX is_forward_compat reads ModuleContext.backend under several "
        "platforms (lctx SW-006)",
        "  jax version      %s" % r["jax_version"],
        "  program          %s" % r["program"],
        "  instrumentation  %s" % r["instrumentation"],
        "  expected         no read of .backend by %s while the module has "
        "several platforms" % READER,
    ]
    if r["export"] is not None:
        lines.append("  export           %s" % (
            "ok" if r["export"]["outcome"] == "ok" else "%s: %s" % (
                r["export"]["class"], r["export"]["message"])))
    for read in r["observed"]:
        lines.append("  observed read    " + describe_read(read))
    for name, c in sorted(r["contrast"].items()):
        for read in c["reads"]:
            lines.append("  contrast (%s)  %s" % (name, describe_read(read)))
    cons = r["consequence"]
    lines.append("  forcing runtimes %s (xla_bridge."
                 "FORCE_FORWARD_COMPAT_LOWERING_RUNTIMES)"
                 % cons.get("force_forward_compat_runtimes"))
    if "multi_same_as_alone" in cons:
        lines.append(
            "  Mosaic GPU payload: (tpu, cuda) %s, (cuda,) %s, (cuda,) with "
            "%s %s" % (cons.get("mosaic_gpu_payload_multi"),
                       cons.get("mosaic_gpu_payload_cuda_alone"),
                       IGNORE_FLAG,
                       cons.get("mosaic_gpu_payload_cuda_alone_fwd_compat_off"
                                )))
    lines.append(HEADLINE[r["verdict"]] + r["message"])
    return "\n".join(lines)


def main(argv):
    as_json = False
    for arg in argv:
        if arg == "--json":
            as_json = True
        elif arg in ("-h", "--help"):
            print(USAGE)
            return EXIT_OK
        else:
            sys.stderr.write("%s\nunknown argument %r\n" % (USAGE, arg))
            return EXIT_USAGE
    result, status = run()
    if as_json:
        print(json.dumps(result, indent=2, sort_keys=True))
    else:
        print(report(result))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
