"""JAX's own module lowering for a case's `lower_per_platform` operation.

conformance/adapters/jax_adapter.py lowers one equation of a case's
primitive. Where JAX's top-level path can express the operation, the
module comes from JAX end to end: the program `prim(x)` is traced with
`jax.make_jaxpr` (under the case's compute type, so the equation carries
JAX's own JaxprEqnContext) and lowered with `mlir.lower_jaxpr_to_module`,
which builds the ModuleContext (with the pinned client and the platforms),
@main and its platform-index argument (`lower_jaxpr_to_fun`), runs the
top-level `jaxpr_subcomp` (its `assert "gpu" not in ctx.platforms`, the
rule look-up, `lower_per_platform`) and verifies the module. The IR rows
then judge what JAX built, not adapter scaffolding.

Two kinds of operation cannot be reached that way, and `reachable` says
which and why; the adapter lowers those with JAX's lowering functions in a
module of its own (as before), and counts them:

- a platform list naming `gpu`: `lower_jaxpr_to_module` canonicalizes the
  platforms first (jax/_src/interpreters/mlir.py:1358 at cec06d116c05,
  `platforms = tuple(map(xb.canonicalize_platform, platforms))`), which
  initializes the backend registry and replaces `gpu` by cuda, rocm or
  oneapi; the operation the rows describe lowers the list as given.
- narrowed platforms (`narrow`): the rule context's own platform list is
  set only inside a lowering (lower_fun, platform_dependent); the top
  level always lowers with `platforms=None`.

The keyword arguments of `lower_jaxpr_to_module` changed between releases
(`backend_or_name` and `name_stack` up to 0.6, `num_const_args` and
`in_avals` from 0.7, a bare Jaxpr with `out_avals` from 0.11); they are
passed by the names the installed release takes.
"""

import inspect

MODULE_NAME = "lctx_case"


def reachable(platforms, narrow):
    """(True, "") when lower_jaxpr_to_module can lower the operation as the
    rows describe it, else (False, why)."""
    if narrow is not None:
        return False, ("narrowed platforms are set only inside a lowering "
                       "(lower_fun, platform_dependent), never at the top "
                       "level")
    if "gpu" in platforms:
        return False, ("lower_jaxpr_to_module canonicalizes its platforms "
                       "(gpu becomes cuda, rocm or oneapi, and the backend "
                       "registry is initialized)")
    return True, ""


def _parameters(fn):
    try:
        return inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return None


def lower(j, prim, platforms, pinned, params, trace_context):
    """Lowers `prim(x)` for `platforms` with the pinned client `pinned` and
    the LoweringParameters `params`; `trace_context()` is entered while
    tracing (the compute type). Returns the module as generic MLIR text;
    JAX's raises propagate unchanged."""
    mlir = j.mlir
    x = j.np.float32(0)
    with trace_context():
        closed = j.jax.make_jaxpr(lambda y: prim.bind(y))(x)
    accepted = _parameters(mlir.lower_jaxpr_to_module)
    kwargs = {
        "ordered_effects": [],
        "platforms": tuple(platforms),
        "backend": pinned,
        "backend_or_name": pinned,
        "axis_context": j.sharding_impls.ShardingContext(1),
        "name_stack": j.source_info_util.new_name_stack(),
        "donated_args": [False],
        "lowering_parameters": params,
        "num_const_args": 0,
        "in_avals": closed.in_avals,
        "out_avals": closed.out_avals,
    }
    jaxpr = closed
    if accepted is not None:
        kwargs = {k: v for k, v in kwargs.items() if k in accepted}
        if "out_avals" in accepted:
            # From 0.11 the top-level jaxpr is a bare Jaxpr (its constants
            # passed as arguments, here none).
            jaxpr = closed.jaxpr
    result = mlir.lower_jaxpr_to_module(MODULE_NAME, jaxpr, **kwargs)
    module = result.module
    return module.operation.get_asm(print_generic_op_form=True,
                                    enable_debug_info=False)
