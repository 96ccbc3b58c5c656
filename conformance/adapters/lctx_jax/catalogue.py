"""The exporter's catalogue of real JAX programs: every harness of
jax/_src/internal_test_util/test_harnesses.py, host-callback effects,
custom rules, control flow around effects, lctx's rule corpus
(corpus.py) and the extra programs (catalogue_extra.py), sorted by name."""

import re
import zlib

from .catalogue_extra import extra_programs
from .export_common import MAX_NAME, Program, f32


SAFE_NAME = re.compile(r"[^\x20-\x7e]")


def clean_name(name):
    """ASCII printable, at most MAX_NAME bytes (a long name keeps a crc of
    the whole so that it stays unique)."""
    name = SAFE_NAME.sub("_", name)
    if len(name) > MAX_NAME:
        tail = "~%08x" % (zlib.crc32(name.encode()) & 0xffffffff)
        name = name[:MAX_NAME - len(tail)] + tail
    return name


WIDE_DTYPES = ("float64", "int64", "uint64", "complex128")


def needs_x64(j, harness):
    """Does the harness use a 64-bit dtype (its dtype, a RandArg's, a
    literal array's)?  Those run under jax_enable_x64."""
    np = j.np
    th = j.test_harnesses
    dtypes = [harness.dtype]
    for ad in harness.arg_descriptors:
        if isinstance(ad, th.RandArg):
            dtypes.append(ad.dtype)
        elif isinstance(ad, th.StaticArg):
            continue
        elif isinstance(ad, np.ndarray):
            dtypes.append(ad.dtype)
    for dt in dtypes:
        try:
            if dt is not None and np.dtype(dt).name in WIDE_DTYPES:
                return True
        except Exception:
            pass
    return False


def harness_size(j, harness):
    """Total elements of the harness's dynamic arguments (1 per custom
    argument: cheap, no argument is made)."""
    np = j.np
    th = j.test_harnesses
    total = 0
    for ad in harness.arg_descriptors:
        if isinstance(ad, th.StaticArg):
            continue
        if isinstance(ad, th.RandArg):
            total += int(np.prod(ad.shape, dtype=np.int64))
        elif isinstance(ad, np.ndarray):
            total += int(ad.size)
        else:
            total += 1
    return total


def harness_programs(j):
    programs = []
    for harness in j.test_harnesses.all_harnesses:
        def build(harness=harness):
            seed = zlib.crc32(harness.fullname.encode()) & 0x7fffffff
            rng = j.np.random.RandomState(seed)
            x64 = needs_x64(j, harness)
            with j.config.enable_x64(x64):
                args = harness.dyn_args_maker(rng)
            return harness.dyn_fun, list(args), x64
        group = clean_name(str(harness.group_name))
        name = "harness/%s/%s" % (group, harness.name)
        programs.append(Program(name, group, "harness",
                                harness_size(j, harness), build))
    return programs


def effect_programs(j):
    jax, jnp, np = j.jax, j.jnp, j.np
    from jax.experimental import io_callback

    def host(x):
        return np.asarray(x) * np.float32(2)

    def debug_callback(x):
        jax.debug.callback(lambda v: None, x)
        return x * 2

    def debug_print(x):
        jax.debug.print("lctx debug_print {}", x)
        return x * 2

    def io_ordered(x):
        return io_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                           ordered=True)

    def io_unordered(x):
        return io_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                           ordered=False)

    def pure(x):
        return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype),
                                 x) + jnp.float32(1)

    table = [("debug_callback", debug_callback), ("debug_print", debug_print),
             ("io_callback_ordered", io_ordered),
             ("io_callback_unordered", io_unordered),
             ("pure_callback", pure)]
    return [Program("effect/" + name, "effect", "effect", 4,
                    lambda fn=fn: (fn, [f32(j)], False))
            for name, fn in table]


def custom_programs(j):
    jax, jnp = j.jax, j.jnp

    @jax.custom_jvp
    def cj(x):
        return jnp.sin(x) * 2

    @cj.defjvp
    def cj_jvp(primals, tangents):
        x, = primals
        t, = tangents
        return cj(x), jnp.cos(x) * 3 * t

    @jax.custom_vjp
    def cv(x):
        return jnp.sin(x) * 2

    def cv_fwd(x):
        return cv(x), jnp.cos(x)

    def cv_bwd(res, g):
        return (res * 5 * g,)

    cv.defvjp(cv_fwd, cv_bwd)

    def grad_of(fn):
        return jax.grad(lambda x: jnp.sum(fn(x)))

    programs = [
        Program("custom/custom_jvp", "custom", "custom", 4,
                lambda: (cj, [f32(j)], False)),
        Program("custom/custom_jvp_grad", "custom", "custom", 4,
                lambda: (grad_of(cj), [f32(j)], False)),
        Program("custom/custom_vjp", "custom", "custom", 4,
                lambda: (cv, [f32(j)], False)),
        Program("custom/custom_vjp_grad", "custom", "custom", 4,
                lambda: (grad_of(cv), [f32(j)], False)),
        Program("custom/custom_partitioning", "custom", "custom", 8,
                lambda: build_custom_partitioning(j)),
        Program("custom/pallas_call", "custom", "custom", 1024,
                lambda: build_pallas_call(j)),
    ]
    prim = uncacheable_primitive(j)
    programs.append(Program(
        "custom/uncacheable_per_platform", "custom", "custom", 4,
        lambda: ((lambda x: prim.bind(x)), [f32(j)], False)))
    return programs


def uncacheable_primitive(j):
    """A user primitive lowered with mlir.register_lowering(...,
    cacheable=False) and its own rule for cpu (x + 1), for tpu (x + 2) and
    for the other platforms (x + 3): as debug_callback is
    (jax/_src/debugging.py:219-228 in 0.10.2), minus the host callback, so
    that each platform alone exports."""
    np, mlir, hlo = j.np, j.mlir, j.hlo
    prim = j.core.Primitive("lctx_uncacheable_per_platform")
    prim.def_impl(lambda x: x)
    prim.def_abstract_eval(lambda x: j.core.ShapedArray(x.shape, x.dtype))

    def adding(value):
        def rule(ctx, x):
            aval = ctx.avals_in[0]
            constant = mlir.ir_constant(np.full(aval.shape, value,
                                                dtype=aval.dtype))
            return [hlo.add(x, constant)]
        return rule

    mlir.register_lowering(prim, adding(1.0), platform="cpu",
                           cacheable=False)
    mlir.register_lowering(prim, adding(2.0), platform="tpu",
                           cacheable=False)
    mlir.register_lowering(prim, adding(3.0), cacheable=False)
    return prim


def build_custom_partitioning(j):
    """A custom_partitioning op (x * 2 + 1) with a partition rule and a
    Shardy sharding rule, under jit on the one default device.

    With one device the lowering rule lowers the op's body through
    mlir.lower_fun (jax/_src/custom_partitioning.py:597-599 in 0.10.2).
    With a mesh of several devices it would register a partitioner callback
    kept alive by the executable, and export refuses every such program
    ("serialization of host_callbacks is not yet implemented",
    jax/_src/export/_export.py:1101-1102), whatever the platforms: the
    partitioner's read of ModuleContext.backend
    (jax/_src/custom_partitioning.py:199) is not reachable through export."""
    from jax.experimental.custom_partitioning import custom_partitioning

    @custom_partitioning
    def op(x):
        return x * 2 + 1

    def infer(mesh, arg_shapes, result_shape):
        return arg_shapes[0].sharding

    def partition(mesh, arg_shapes, result_shape):
        sharding = arg_shapes[0].sharding

        def lower(x):
            return x * 2 + 1
        return mesh, lower, sharding, (sharding,)

    op.def_partition(partition=partition,
                     infer_sharding_from_operands=infer,
                     sharding_rule="i j -> i j")
    x = j.np.arange(8, dtype=j.np.float32).reshape(4, 2)
    return op, [x], False


def build_pallas_call(j):
    """A Pallas kernel (x * 2 + 1) without interpret mode: per-platform
    lowering rules (jax/_src/pallas/pallas_call.py:840-992 in 0.10.2);
    Mosaic for tpu reads the module's backend (mlir.py:940 via
    is_forward_compat, and get_backend(optional=True)); the CPU refuses it
    ("Only interpret mode is supported on CPU backend")."""
    jax = j.jax
    from jax.experimental import pallas as pl

    def kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...] * 2 + 1

    def fn(x):
        return pl.pallas_call(
            kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
    return fn, [j.np.ones((8, 128), dtype=j.np.float32)], False


def control_programs(j):
    jax, jnp, lax, np = j.jax, j.jnp, j.lax, j.np
    from jax.experimental import io_callback

    def host(x):
        return np.asarray(x) + np.float32(1)

    def debug_callback(x):
        jax.debug.callback(lambda v: None, x)
        return x * 2

    def io(x):
        return io_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                           ordered=True)

    def platform_dependent(x):
        return lax.platform_dependent(
            x, cpu=lambda v: v + 1, tpu=lambda v: v + 2,
            cuda=lambda v: v + 3, default=lambda v: v + 4)

    def cholesky(x):
        # x is a vector of 4: a 2x2 SPD matrix from it, back to 4.
        a = x.reshape(2, 2)
        spd = a @ a.T + 4 * jnp.eye(2, dtype=x.dtype)
        return jnp.linalg.cholesky(spd).reshape(4)

    whats = [("debug_callback", debug_callback), ("io_callback", io),
             ("platform_dependent", platform_dependent),
             ("cholesky", cholesky)]

    def cond(body):
        return lambda x: lax.cond(x[0] > 0, body, lambda v: v - 1, x)

    def switch(body):
        return lambda x: lax.switch(
            jnp.int32(x[0] > 0), [lambda v: v - 1, body], x)

    def while_loop(body):
        def fn(x):
            def step(c):
                i, v = c
                return i + 1, body(v)
            return lax.while_loop(lambda c: c[0] < 2, step,
                                  (jnp.int32(0), x))[1]
        return fn

    def scan(body):
        def fn(x):
            def step(c, _):
                c = body(c)
                return c, c[0]
            return lax.scan(step, x, None, length=2)
        return fn

    constructs = [("cond", cond), ("switch", switch),
                  ("while_loop", while_loop), ("scan", scan)]
    programs = []
    for cname, construct in constructs:
        for wname, body in whats:
            programs.append(Program(
                "control/%s_%s" % (cname, wname), "control", "control", 4,
                lambda c=construct, b=body: (c(b), [f32(j)], False)))
    return programs


def corpus_programs(j, corpus):
    programs = []
    for stem, prim in sorted(corpus.programs.items()):
        programs.append(Program(
            "corpus/" + stem, "corpus", "corpus", 4,
            lambda p=prim: ((lambda x: p.bind(x)), [f32(j)], False)))
    return programs


def make_catalogue(j, corpus):
    """Every program, sorted by name, names unique."""
    programs = (harness_programs(j) + effect_programs(j)
                + custom_programs(j) + control_programs(j)
                + corpus_programs(j, corpus))
    programs += extra_programs(j)
    seen, out = {}, []
    for p in programs:
        name = clean_name(p.name)
        if name in seen:
            seen[name] += 1
            name = clean_name("%s~%d" % (name, seen[name]))
        seen.setdefault(name, 1)
        p.name = name
        out.append(p)
    out.sort(key=lambda p: p.name)
    return out


