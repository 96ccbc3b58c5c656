"""Lowering rules written the way a library's authors write them, one per
mistake that breaks a multi-platform export (tests/user/mistakes.py lists
the programs that bind them).  Each primitive computes 2 * x on every
platform; only the way its rule picks a backend differs."""

import jax
from jax import core
from jax.extend.core import Primitive
from jax.interpreters import mlir
from jax._src.lib.mlir.dialects import hlo


def _double(ctx, x):
    del ctx
    return [hlo.add(x, x)]


def _new(name):
    prim = Primitive(name)
    prim.def_impl(lambda x: 2 * x)
    prim.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype))
    return prim


# 1. get-backend: the rule asks the module for its backend without
# optional=True (raises under several platforms).
get_backend_p = _new("lctx_user_get_backend")


def get_backend_rule(ctx, x):
    backend = ctx.module_context.get_backend()
    del backend
    return _double(ctx, x)


mlir.register_lowering(get_backend_p, get_backend_rule)

# 1b. get-backend: the rule reads the module's .backend attribute.
backend_read_p = _new("lctx_user_backend_read")


def backend_read_rule(ctx, x):
    if ctx.module_context.backend is None:
        return _double(ctx, x)
    return _double(ctx, x)


mlir.register_lowering(backend_read_p, backend_read_rule)

# 2. host-backend: the rule picks its kernel by the host's devices, so an
# export for another platform gets the host's kernel.
host_rule_p = _new("lctx_user_host_rule")


def host_rule(ctx, x):
    if jax.devices()[0].platform == "gpu":
        return _double(ctx, x)
    return _double(ctx, x)


mlir.register_lowering(host_rule_p, host_rule)

# 3. missing-rule: rules for cpu and cuda only.
partial_p = _new("lctx_user_partial")
mlir.register_lowering(partial_p, _double, platform="cpu")
mlir.register_lowering(partial_p, _double, platform="cuda")

# A primitive adapted to several platforms: the clean pattern.
adapted_p = _new("lctx_user_adapted")


def adapted_rule(ctx, x):
    backend = ctx.module_context.get_backend(optional=True)
    if backend is None:
        # Several platforms: branch on ctx.module_context.platforms.
        return _double(ctx, x)
    return _double(ctx, x)


mlir.register_lowering(adapted_p, adapted_rule)

# A registration for a platform JAX may not know, guarded as libraries do.
try:
    mlir.register_lowering(adapted_p, _double, platform="metal")
except NotImplementedError:
    pass
