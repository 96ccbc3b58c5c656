"""Mistakes only the static check sees (`lctx lint`, docs/lint.md): this
module is read, never imported (its unguarded registration raises
NotImplementedError on import).  tests: conformance/adapters/test_lint.py
and tests/test_lint_py.sh."""

import jax
from jax.extend.core import Primitive
from jax.interpreters import mlir

lint_p = Primitive("lctx_user_lint_only")


def _rule(ctx, x):
    del ctx
    return [x]


# unknown-platform: a platform JAX does not know, not guarded.
mlir.register_lowering(lint_p, _rule, platform="metal")

# The same, suppressed on its line.
mlir.register_lowering(lint_p, _rule, platform="vulkan")  # lctx: ignore[unknown-platform]


def suppressed_rule(ctx, x):
    ctx.module_context.get_backend()  # lctx: ignore[get-backend]
    return [x]


def other_class_suppressed_rule(ctx, x):
    # A suppression of another class keeps the finding.
    del x
    return ctx.module_context.backend  # lctx: ignore[host-backend]


def guarded_rule(ctx, x):
    # The adapted pattern: one platform told from several first.
    if len(ctx.module_context.platforms) > 1:
        return [x]
    ctx.module_context.get_backend()
    return [x]


def _impl(x):
    # host-backend in a function a rule lowers (mlir.lower_fun).
    if jax.default_backend() == "tpu":
        return x
    return x * 1


lowered_p = Primitive("lctx_user_lowered")
mlir.register_lowering(lowered_p, mlir.lower_fun(_impl, multiple_results=False))
