"""More catalogue programs for the exporter (catalogue.py): the lowering
rules the harnesses, effects, custom and control programs do not reach.

`extra_programs(j)` returns `Program`s (kind "extra", named extra/NAME) in
these groups:

    collective        shard_map with psum, pmax, pmin, axis_index,
                      all_gather (varying, invariant, reduced), all_to_all,
                      ppermute, psum_scatter, pcast (varying, reduced,
                      unreduced) and psum/psum_scatter of unreduced values
    collective_async  the asynchronous start/done forms of the collectives
                      (jax._src.lax.parallel.psum_start and the like: not
                      exported by jax.lax in 0.10.2)
    sharding          with_sharding_constraint, reshard,
                      inspect_array_sharding
    shape_poly        a shape-polymorphic function exported and called from
                      the program (call_exported, dimension_size,
                      shape_assertion, dim_as_value), and a static one
    ffi               jax.ffi.ffi_call of a LAPACK target the CPU registers
    linalg            hessenberg, schur, tridiagonal, cholesky_update,
                      symmetric_product
    random            key impls philox2x32, philox4x32, threefry4x32,
                      wrap_key_data, fold_in, clone, rng_uniform
    transform         checkpoint (remat2, name), custom_vjp with
                      optimize_remat (remat_opt), custom_vmap, linear_call,
                      call_p, Pallas' run_state
    lax               lax operations no harness binds (clz, exp2, square,
                      mulhi, polygamma, zeta, igamma_grad_a, reduce_xor,
                      scatter_sub, optimization_barrier, tile, unstack,
                      empty, tokens, ragged_dot, scaled_dot, composite,
                      extended dtypes, broadcast_to, le_to, tie)

The collective and sharding programs need at least two devices (a mesh of
the first two; lctx starts the exporter with
XLA_FLAGS=--xla_force_host_platform_device_count=N for them): with fewer
they are left out of the catalogue.  Their arguments are placed on that
mesh, so that the exported module can be called on the CPU devices.

Every program exports for ("cpu",) and its CPU result is deterministic (a
random or uninitialized value is reduced to a range check or overwritten).
What each program reaches, and why the rest of JAX's lowering rules are not
reached, is docs/primitive-reach.md.

Standard library and JAX only; JAX is imported by the caller (`j`, the
export_common.Jax holder) and modules beyond it only when a program is built.
"""

from .export_common import Program, f32

KIND = "extra"
MESH_DEVICES = 2
# The platforms a nested export (shape_poly) is lowered for: every platform
# the sweep may name, so that the outer module can call it on any of them.
NESTED_PLATFORMS = ("cpu", "cuda", "rocm", "tpu", "oneapi")


def simple(j, name, group, fn, args=None, size=4):
    """A program computing fn(*args) (args made when it is built)."""
    def build():
        return fn, list(args() if args else [f32(j)]), False
    return Program("extra/" + name, group, KIND, size, build)


def extra_programs(j):
    programs = (lax_programs(j) + random_programs(j) + linalg_programs(j)
                + transform_programs(j) + shape_poly_programs(j)
                + ffi_programs(j) + [inspect_program(j)])
    try:
        devices = len(j.jax.devices())
    except Exception:
        devices = 0
    if devices >= MESH_DEVICES:
        programs += collective_programs(j) + sharding_programs(j)
    return programs


# ---------------------------------------------------------------------------
# lax operations
# ---------------------------------------------------------------------------

def lax_programs(j):
    jnp, lax, np = j.jnp, j.lax, j.np
    g = "lax"

    def ints():
        return [np.array([1, 7, 300, 70000], dtype=np.int32)]

    def uints():
        return [np.array([1, 7, 300, 0x80000001], dtype=np.uint32)]

    def empty(v):
        # Uninitialized (AllocateBuffer on tpu and gpu, zeros elsewhere):
        # overwritten whole, so the result does not depend on it.
        e = lax.empty(v.shape, v.dtype)
        return lax.dynamic_update_slice(e, v * 2, (0,))

    def tokens(v):
        # A token must be kept alive to be lowered (jit drops dead code):
        # dce_sink marks it used; the module computes v * 2.
        lax.dce_sink(lax.after_all(lax.create_token(), lax.create_token()))
        return v * 2

    def ragged_dot(a, b, sizes):
        return lax.ragged_dot(a, b, sizes)

    def ragged_args():
        return [np.arange(12, dtype=np.float32).reshape(4, 3) / 8,
                np.arange(30, dtype=np.float32).reshape(2, 3, 5) / 16,
                np.array([1, 3], dtype=np.int32)]

    def scaled_dot(a, b, sa, sb):
        return lax.scaled_dot(a, b, lhs_scale=sa, rhs_scale=sb,
                              preferred_element_type=jnp.float32)

    def scaled_args():
        a = (np.arange(64, dtype=np.float32).reshape(2, 32) % 5) / 4
        b = (np.arange(64, dtype=np.float32).reshape(32, 2) % 3) / 2
        return [a.astype(jnp.bfloat16), b.astype(jnp.bfloat16),
                np.array([[1.0], [2.0]], np.float32).astype(jnp.bfloat16),
                np.array([[0.5, 4.0]], np.float32).astype(jnp.bfloat16)]

    composite = lax.composite(lambda v: v * 2 + 1, name="lctx.twice_plus_one")

    def edtype(v):
        # jax.experimental.primal_tangent_dtype: an extended dtype that
        # converts to and from its representation (to_edtype, from_edtype).
        from jax.experimental import primal_tangent_dtype
        pt = primal_tangent_dtype(jnp.float32, jnp.float32)
        return lax.convert_element_type(lax.convert_element_type(v, pt),
                                         jnp.float32) * 2

    def broadcast_to(v):
        # Pallas' equal-rank broadcast (state primitive broadcast_to_p),
        # used here outside a kernel.
        from jax.experimental import pallas as pl
        return pl.broadcast_to(v.reshape(1, 4), (2, 4)) * 2

    def le_to(v):
        # searchsorted compares with le_to through _sort_le_comparator
        # (jax/_src/lax/lax.py:8758-8766) for side="right" of method
        # "compare_all" (jax/_src/numpy/hijax.py:370-377).
        return jnp.searchsorted(v, v * 1.5, side="right",
                                method="compare_all")

    def tie(v):
        # tie_p (jax/_src/lax/lax.py:9701) is defined but bound by nothing
        # in JAX 0.10.2: bound directly; tie(x, y) is y.
        from jax._src.lax.lax import tie_p
        return tie_p.bind(v * 2, v + 1)

    return [
        simple(j, "clz", g, lax.clz, ints),
        simple(j, "exp2", g, lax.exp2),
        simple(j, "square", g, lax.square),
        simple(j, "mulhi", g, lambda v: lax.mulhi(v, v * 7), uints),
        simple(j, "polygamma", g,
               lambda v: lax.polygamma(jnp.ones_like(v), v)),
        simple(j, "zeta", g, lambda v: lax.zeta(v + 1, v)),
        simple(j, "igamma_grad_a", g, lambda v: lax.igamma_grad_a(v, v * 2)),
        simple(j, "reduce_xor", g, lambda v: lax.reduce_xor(v, (0,)), ints),
        simple(j, "scatter_sub", g,
               lambda v: v.at[jnp.array([1, 2])].subtract(0.25)),
        simple(j, "optimization_barrier", g,
               lambda v: lax.optimization_barrier(v * 2) + 1),
        simple(j, "tile", g, lambda v: lax.tile(v, (2,)), size=4),
        simple(j, "unstack", g,
               lambda v: lax.unstack(v.reshape(2, 2))[1] * 2),
        simple(j, "empty", g, empty),
        simple(j, "tokens", g, tokens),
        simple(j, "ragged_dot", g, ragged_dot, ragged_args, size=44),
        simple(j, "scaled_dot", g, scaled_dot, scaled_args, size=132),
        simple(j, "composite", g, composite),
        simple(j, "extended_dtype", g, edtype),
        simple(j, "broadcast_to", g, broadcast_to),
        simple(j, "searchsorted_compare_all", g, le_to),
        simple(j, "tie", g, tie),
    ]


# ---------------------------------------------------------------------------
# Random
# ---------------------------------------------------------------------------

def random_programs(j):
    jax, jnp, lax, np = j.jax, j.jnp, j.lax, j.np
    g = "random"

    def with_impl(impl):
        def fn(v):
            key = jax.random.key(7, impl=impl)
            return jax.random.uniform(key, v.shape) + v
        return fn

    def wrap(data):
        return jax.random.uniform(jax.random.wrap_key_data(data), (4,))

    def fold_in(v):
        key = jax.random.fold_in(jax.random.key(7), 3)
        return jax.random.uniform(key, v.shape) + v

    def clone(v):
        key = jax.random.clone(jax.random.key(7))
        return jax.random.uniform(key, v.shape) + v

    def rng_uniform(v):
        # XLA's RngUniform is not seeded by the program: only its range is
        # the result.
        r = lax.rng_uniform(jnp.float32(0.25), jnp.float32(0.5), v.shape)
        return (r >= 0.25) & (r < 0.5)

    return [
        simple(j, "key_philox2x32", g, with_impl("philox2x32")),
        simple(j, "key_philox4x32", g, with_impl("philox4x32")),
        simple(j, "key_threefry4x32", g, with_impl("threefry4x32")),
        simple(j, "wrap_key_data", g, wrap,
               lambda: [np.array([0, 42], dtype=np.uint32)], size=2),
        simple(j, "fold_in", g, fold_in),
        simple(j, "clone", g, clone),
        simple(j, "rng_uniform", g, rng_uniform),
    ]


# ---------------------------------------------------------------------------
# Linear algebra
# ---------------------------------------------------------------------------

def linalg_programs(j):
    jnp, lax, np = j.jnp, j.lax, j.np
    linalg = lax.linalg
    g = "linalg"

    def square3():
        return [np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25],
                          [0.5, 0.25, 2.0]], dtype=np.float32)]

    def nonsym3():
        return [np.array([[4.0, 1.0, 2.0], [0.5, 3.0, 1.0],
                          [0.25, 1.5, 2.0]], dtype=np.float32)]

    def hessenberg(a):
        h, taus = linalg.hessenberg(a)
        return jnp.triu(h, -1), taus

    def schur(a):
        # Schur vectors are defined up to sign: T's diagonal (the real
        # eigenvalues here) is the result.
        t, _ = linalg.schur(a)
        return jnp.sort(jnp.diagonal(t))

    def tridiagonal(a):
        _, d, e, _ = linalg.tridiagonal(a, lower=True)
        return d, jnp.abs(e)

    def cholesky_update(a, w):
        r = linalg.cholesky(a).T
        return linalg.cholesky_update(r, w)

    def chol_args():
        return square3() + [np.array([0.5, -0.25, 1.0], dtype=np.float32)]

    def symmetric_product(a):
        c = jnp.eye(3, dtype=a.dtype)
        return linalg.symmetric_product(a, c, alpha=2.0, beta=0.5)

    return [
        simple(j, "hessenberg", g, hessenberg, nonsym3, size=9),
        simple(j, "schur", g, schur, nonsym3, size=9),
        simple(j, "tridiagonal", g, tridiagonal, square3, size=9),
        simple(j, "cholesky_update", g, cholesky_update, chol_args,
               size=12),
        simple(j, "symmetric_product", g, symmetric_product, nonsym3,
               size=9),
    ]


# ---------------------------------------------------------------------------
# Transformations and call primitives
# ---------------------------------------------------------------------------

def transform_programs(j):
    jax, jnp = j.jax, j.jnp
    g = "transform"

    def grad_sum(fn):
        return jax.grad(lambda v: jnp.sum(fn(v)))

    checkpointed = jax.checkpoint(lambda v: jnp.sin(v) * 2)

    def named(v):
        from jax.ad_checkpoint import checkpoint_name
        policy = jax.checkpoint_policies.save_only_these_names("lctx")
        body = jax.checkpoint(
            lambda u: jnp.sin(checkpoint_name(u * 2, "lctx")), policy=policy)
        return grad_sum(body)(v)

    @jax.custom_vjp
    def remat_opt(v):
        return jnp.sin(v) * 2

    def remat_opt_fwd(v):
        return remat_opt(v), jnp.cos(v)

    def remat_opt_bwd(res, ct):
        return (res * 2 * ct,)

    remat_opt.defvjp(remat_opt_fwd, remat_opt_bwd, optimize_remat=True)

    def custom_vmap(v):
        from jax.custom_batching import custom_vmap as cv

        @cv
        def twice(u):
            return u * 2

        @twice.def_vmap
        def twice_rule(axis_size, in_batched, u):
            return u * 2, in_batched[0]
        return twice(v) + 1

    def linear_call(v):
        from jax.custom_derivatives import linear_call as lc
        return lc(lambda r, u: u * r, lambda r, u: u * r, 3.0, v)

    def call(v):
        # core.call_p, through jax.extend (the staged call primitive that
        # jit's closed_call replaced).
        from jax.extend import linear_util as lu
        from jax.extend.core.primitives import call_p
        return call_p.bind(v, subfuns=(lu.wrap_init(
            lambda u: [u * 2], debug_info=None),))[0] + 1

    def run_state(v):
        from jax.experimental import pallas as pl

        def body(ref):
            ref[...] = ref[...] * 2 + 1
        return pl.run_state(body)(v)

    return [
        simple(j, "checkpoint", g, checkpointed),
        simple(j, "checkpoint_grad", g, grad_sum(checkpointed)),
        simple(j, "checkpoint_name_grad", g, named),
        simple(j, "custom_vjp_optimize_remat_grad", g, grad_sum(remat_opt)),
        simple(j, "custom_vmap", g, custom_vmap),
        simple(j, "linear_call", g, linear_call),
        simple(j, "call_p", g, call),
        simple(j, "run_state", g, run_state),
    ]


# ---------------------------------------------------------------------------
# Shape polymorphism and calling exported modules
# ---------------------------------------------------------------------------

def shape_poly_programs(j):
    """A jax.export.Exported called from the program (call_exported,
    jax/_src/export/_export.py:1615 in 0.10.2).

    poly: the callee is shape-polymorphic and is exported while the program
    is traced, so that its lowering (dimension_size, shape_assertion,
    dim_as_value: jax/_src/export/shape_poly.py) runs within the export lctx
    asked for and is in its census.  It is lowered for NESTED_PLATFORMS (the
    outer module can call it on any of them: call_exported requires its
    platforms among the callee's); `b` is the symbolic dimension, refined to
    4 by the call.

    static: the callee (x * 3 + 1 for f32[4]) is exported once, when the
    program is built."""
    jax, jnp = j.jax, j.jnp
    g = "shape_poly"

    def nested_platforms():
        try:
            jax.export.export(jax.jit(lambda v: v + 1),
                              platforms=NESTED_PLATFORMS)(j.np.float32(1))
            return NESTED_PLATFORMS
        except Exception:
            return tuple(p for p in NESTED_PLATFORMS if p != "oneapi")

    def callee(u):
        # u.shape[0] as a value (dim_as_value), an iota of symbolic size.
        return (jnp.sin(u) * u.shape[0]
                + jnp.arange(u.shape[0], dtype=u.dtype))

    def build_poly():
        platforms = nested_platforms()

        def fn(v):
            b, = jax.export.symbolic_shape("b")
            spec = jax.ShapeDtypeStruct((b,), v.dtype)
            inner = jax.export.export(jax.jit(callee),
                                      platforms=platforms)(spec)
            return inner.call(v) * 2
        return fn, [f32(j)], False

    def build_static():
        spec = jax.ShapeDtypeStruct((4,), jnp.float32)
        inner = jax.export.export(jax.jit(lambda u: u * 3 + 1),
                                  platforms=nested_platforms())(spec)
        return (lambda v: inner.call(v) * 2), [f32(j)], False

    return [
        Program("extra/call_exported_poly", g, KIND, 4, build_poly),
        Program("extra/call_exported_static", g, KIND, 4, build_static),
    ]


# ---------------------------------------------------------------------------
# The FFI
# ---------------------------------------------------------------------------

def ffi_programs(j):
    """jax.ffi.ffi_call of lapack_spotrf_ffi (Cholesky), a target the CPU
    registers and export allows (_CPU_FFI_KERNELS, jax/_src/export/
    _export.py:1149 in 0.10.2), with the column-major layouts LAPACK wants;
    jnp.linalg.cholesky of the same matrix beside it."""
    jax, jnp, np = j.jax, j.jnp, j.np

    def fn(v):
        a = v.reshape(2, 2)
        spd = a @ a.T + 4 * jnp.eye(2, dtype=v.dtype)
        call = jax.ffi.ffi_call(
            "lapack_spotrf_ffi",
            (jax.ShapeDtypeStruct((2, 2), jnp.float32),
             jax.ShapeDtypeStruct((), jnp.int32)),
            input_layouts=[(0, 1)], output_layouts=[(0, 1), ()],
            input_output_aliases={0: 0}, vmap_method="sequential")
        out, info = call(spd, uplo=np.uint8(ord("L")))
        return jnp.tril(out), info, jnp.linalg.cholesky(spd)

    def build():
        # The handler reads LAPACK's function table, filled on first use
        # by JAX's own linalg lowering (jaxlib/lapack.py): fill it now.
        try:
            from jax._src.lib import lapack
            lapack.prepare_lapack_call("potrf_ffi", np.dtype(np.float32))
        except Exception:
            pass
        return fn, [f32(j)], False

    return [Program("extra/ffi_call_lapack_potrf", "ffi", KIND, 4, build)]


# ---------------------------------------------------------------------------
# Collectives and sharding (two devices or more)
# ---------------------------------------------------------------------------

def mesh(j, explicit=True):
    """A one-axis mesh ("x") of the first MESH_DEVICES devices."""
    jax, np = j.jax, j.np
    kind = jax.sharding.AxisType.Explicit if explicit else \
        jax.sharding.AxisType.Auto
    return jax.sharding.Mesh(np.array(jax.devices()[:MESH_DEVICES]), ("x",),
                             axis_types=(kind,))


def sharded(j, m, n):
    """arange(n) / 4 in float32, split over the mesh axis."""
    jax, np = j.jax, j.np
    P = jax.sharding.PartitionSpec
    x = np.arange(n, dtype=np.float32) / 4
    return jax.device_put(x, jax.sharding.NamedSharding(m, P("x")))


def collective_programs(j):
    jax, jnp, lax = j.jax, j.jnp, j.lax
    P = jax.sharding.PartitionSpec
    n = MESH_DEVICES
    ring = [(i, (i + 1) % n) for i in range(n)]

    def program(name, group, body, out_specs=P("x"), length=4 * n,
                **kwargs):
        def build():
            m = mesh(j)
            fn = jax.shard_map(body, mesh=m, in_specs=P("x"),
                               out_specs=out_specs, **kwargs)
            return fn, [sharded(j, m, length)], False
        return Program("extra/" + name, group, KIND, length, build)

    def par():
        from jax._src.lax import parallel
        return parallel

    def to_unreduced(v):
        return lax.pcast(v, "x", to="unreduced")

    g, ga = "collective", "collective_async"
    reduced = P(reduced={"x"})
    return [
        program("shard_map", g, lambda v: v * 2),
        program("psum", g, lambda v: lax.psum(v, "x"), check_vma=False),
        program("psum_invariant", g, lambda v: lax.psum(v, "x"), P()),
        program("pmax", g, lambda v: lax.pmax(v, "x")),
        program("pmin", g, lambda v: lax.pmin(v, "x")),
        program("axis_index", g, lambda v: v + lax.axis_index("x")),
        program("all_gather", g,
                lambda v: lax.all_gather(v, "x", tiled=True)),
        program("all_gather_invariant", g,
                lambda v: lax.all_gather(v, "x", tiled=True, to="invarying"),
                P()),
        program("all_gather_reduced", g,
                lambda v: lax.all_gather(v, "x", tiled=True, to="reduced"),
                reduced),
        program("all_to_all", g,
                lambda v: lax.all_to_all(v, "x", 0, 0, tiled=True)),
        program("ppermute", g, lambda v: lax.ppermute(v, "x", ring)),
        program("psum_scatter", g,
                lambda v: lax.psum_scatter(v, "x", tiled=True)),
        program("pcast_varying", g,
                lambda v: lax.pcast(jnp.ones(v.shape), "x", to="varying")
                + v),
        program("pcast_reduced_varying", g,
                lambda v: lax.pcast(
                    lax.pcast(jnp.ones(v.shape), "x", to="reduced"), "x",
                    to="varying") + v),
        program("psum_unreduced", g,
                lambda v: lax.psum(to_unreduced(v), "x"), P()),
        program("psum_scatter_unreduced", g,
                lambda v: lax.psum_scatter(to_unreduced(v), "x",
                                           tiled=True)),
        program("psum_start", ga,
                lambda v: par().psum_start(v, "x").done(), check_vma=False),
        program("psum_invariant_start", ga,
                lambda v: par().psum_start(v, "x").done(), P()),
        program("psum_unreduced_start", ga,
                lambda v: par().psum_start(to_unreduced(v), "x").done(),
                P()),
        program("all_gather_start", ga,
                lambda v: par().all_gather_start(v, "x", tiled=True).done()),
        program("all_gather_reduced_start", ga,
                lambda v: par().all_gather_start(
                    v, "x", tiled=True, to="reduced").done(), reduced),
        program("psum_scatter_start", ga,
                lambda v: par().psum_scatter_start(v, "x",
                                                   tiled=True).done()),
        program("psum_scatter_unreduced_start", ga,
                lambda v: par().psum_scatter_start(
                    to_unreduced(v), "x", tiled=True).done()),
        program("all_to_all_start", ga,
                lambda v: par().all_to_all_start(v, "x", 0, 0,
                                                 tiled=True).done()),
        program("ppermute_start", ga,
                lambda v: par().ppermute_start(v, "x", ring).done()),
    ]


def sharding_programs(j):
    jax = j.jax
    P = jax.sharding.PartitionSpec
    NamedSharding = jax.sharding.NamedSharding
    g = "sharding"
    length = 4 * MESH_DEVICES

    def build_constraint():
        m = mesh(j, explicit=False)

        def fn(v):
            return jax.lax.with_sharding_constraint(
                v * 2, NamedSharding(m, P("x"))) + 1
        return fn, [sharded(j, m, length)], False

    def build_reshard():
        m = mesh(j)
        x = jax.device_put(j.np.arange(length, dtype=j.np.float32) / 4,
                           NamedSharding(m, P()))

        def fn(v):
            return jax.sharding.reshard(v * 2, NamedSharding(m, P("x"))) + 1
        return fn, [x], False

    return [
        Program("extra/with_sharding_constraint", g, KIND, length,
                build_constraint),
        Program("extra/reshard", g, KIND, length, build_reshard),
    ]


def inspect_program(j):
    """jax.debug.inspect_array_sharding on one device.  Over a mesh of
    several it registers a partitioner callback with the executable, which
    export refuses whatever the platforms ("serialization of host_callbacks
    is not yet implemented", jax/_src/export/_export.py:1102 in 0.10.2)."""
    jax = j.jax

    def fn(v):
        jax.debug.inspect_array_sharding(v, callback=lambda s: None)
        return v * 2
    return simple(j, "inspect_array_sharding", "sharding", fn)
