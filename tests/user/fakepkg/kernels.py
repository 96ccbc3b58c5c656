"""A primitive with a required parameter: discovery cannot bind it alone."""

from jax import core
from jax.extend.core import Primitive
from jax.interpreters import mlir
from jax._src.lib.mlir.dialects import hlo

scale_p = Primitive("fakepkg_scale")


def _scale_abstract(x, *, factor):
    del factor
    return core.ShapedArray(x.shape, x.dtype)


scale_p.def_abstract_eval(_scale_abstract)


def _scale_rule(ctx, x, *, factor):
    del ctx, factor
    return [hlo.add(x, x)]


mlir.register_lowering(scale_p, _scale_rule, platform="cpu")


def scale(x, factor):
    return scale_p.bind(x, factor=factor)
