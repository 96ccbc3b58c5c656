"""jax.export.export in its two steps, so that the exporter traces a
program once per request and lowers that one trace for each platform list
asked (P, P reversed, ("cpu",), each platform alone) instead of tracing it
again for each.

jax.export.export(fun_jit, platforms=P)(*specs) is, in jax 0.10.2
(do_export, jax/_src/export/_export.py:642-662; the same in 0.12.1,
_export.py:606-626):

    check_symbolic_scope_errors(fun_jit, specs, {})
    traced = fun_jit.trace(*specs)
    lowered = traced.lower(lowering_platforms=P, _private_parameters=
        mlir.LoweringParameters(override_lowering_rules=None,
                                for_export=True,
                                hoist_constants_as_args=False,
                                export_ignore_forward_compatibility=F))
    return _export_lowered(lowered, traced.jaxpr, traced.fun_name,
                           disabled_checks=())

(F: config.export_ignore_forward_compatibility.value)

`trace` is its first two lines and `lower` the rest; `supported` says
whether the installed JAX has each of those names (else the exporter calls
jax.export.export for every item, as before).

What the sweep judges stays the same: the census records the lowering
rules' look-ups (ModuleContext exists only while lowering) and the
lowering runs anew for each platform list (JAX caches a lowering by jaxpr
and platforms, pxla.py:695 `_cached_lowering_to_hlo`: another list is
another key; the exporter never lowers one trace twice for the same list).
A program whose tracing records anything (an export made while it is
traced, a user's look-up of the host's devices) is not kept: it is traced
again for each list, as before."""

import inspect


def _parts(j):
    """(check_symbolic_scope_errors, _export_lowered, LoweringParameters,
    the export_ignore_forward_compatibility option) of this JAX."""
    from jax._src.export import _export
    return (_export.check_symbolic_scope_errors, _export._export_lowered,
            j.mlir.LoweringParameters,
            j.config.export_ignore_forward_compatibility)


def supported(j):
    """Whether this JAX's export is the two steps above."""
    try:
        check, export_lowered, params, _ = _parts(j)
        lower = inspect.signature(j.jax.stages.Traced.lower).parameters
        fields = inspect.signature(params).parameters
        lowered = list(inspect.signature(export_lowered).parameters)
        return (callable(check)
                and {"lowering_platforms", "_private_parameters"} <= set(lower)
                and {"override_lowering_rules", "for_export",
                     "hoist_constants_as_args",
                     "export_ignore_forward_compatibility"} <= set(fields)
                and lowered[:4] == ["lowered", "jaxpr", "fun_name",
                                    "disabled_checks"])
    except Exception:
        return False


def trace(j, fun_jit, specs):
    """The first step: fun_jit (a jax.jit) traced for `specs`."""
    check, _, _, _ = _parts(j)
    check(fun_jit, specs, {})
    return fun_jit.trace(*specs)


def lower(j, traced, platforms):
    """The second step: the Exported of `traced` lowered for
    `platforms`."""
    _, export_lowered, params, forward = _parts(j)
    lowered = traced.lower(
        lowering_platforms=tuple(platforms),
        _private_parameters=params(
            override_lowering_rules=None, for_export=True,
            hoist_constants_as_args=False,
            export_ignore_forward_compatibility=forward.value))
    return export_lowered(lowered, traced.jaxpr, traced.fun_name,
                          disabled_checks=())
