"""A tiny package that registers its own primitives the way libraries do,
for the exporter's discovery (jax_export.py --package fakepkg,
conformance/sweep/USER.md): `fakepkg_double` here (one operand, no
parameter: discovery drives it), `fakepkg_scale` in fakepkg.kernels (needs
its parameter `factor`: discovery lists it without a program), and
fakepkg.cuda_only, whose import fails as a missing plugin's does."""

from jax import core
from jax.extend.core import Primitive
from jax.interpreters import mlir
from jax._src.lib.mlir.dialects import hlo

double_p = Primitive("fakepkg_double")
double_p.def_impl(lambda x: 2 * x)
double_p.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype))


def _lowering(prim):
    """Registers the decorated function as prim's rule (a decorator as
    libraries write one: the rule's def is below it)."""
    def register(rule):
        mlir.register_lowering(prim, rule)
        return rule
    return register


@_lowering(double_p)
def _double_rule(ctx, x):
    # A mistake discovery finds: the rule asks for the backend.
    ctx.module_context.get_backend()
    return [hlo.add(x, x)]


def double(x):
    return double_p.bind(x)
