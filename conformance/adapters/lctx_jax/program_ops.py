"""Generated programs: the JAX operations of `jax OP` statements (the
table OPS: each operation's arity, whether it is float32-only, and how it
keeps the argument's shape and dtype), and the source of each one's
helper function."""


class Shape:
    """What an operation's code may rely on: the value's rank, its static
    dimensions (None for the symbolic one) and dtype.  An operation that
    needs an axis sees a 0-d value as a vector of 1."""

    def __init__(self, dims, dtype):
        self.dims = list(dims)       # int, or None when symbolic
        self.dtype = dtype
        self.rank = len(self.dims)

    def axis(self):
        """The last axis of static size, else the last axis."""
        for i in reversed(range(self.rank)):
            if self.dims[i] is not None:
                return i
        return self.rank - 1

    def size(self, axis, value="a"):
        d = self.dims[axis]
        return str(d) if d is not None else "%s.shape[%d]" % (value, axis)

    def square(self):
        """k of the trailing k x k block (of the value, as a column when
        1-d): min of the two trailing sizes, 1 when one is symbolic."""
        if self.rank == 1:
            return 1
        m, n = self.dims[-2], self.dims[-1]
        if m is None or n is None:
            return 1
        return min(m, n)


class Op:
    """`arity` values in, one out of the same shape and dtype.  `float_only`
    (f in PROGRAMS.md): an int32 value is converted to float32 and the
    result back.  `lift`: the code needs an axis (a 0-d value becomes a
    vector of 1 and the result a 0-d value again).  `build(shape)` gives
    the body: lines on `a` (and `b`), the last one `return ...`."""

    def __init__(self, arity, float_only, build, lift=False):
        self.arity, self.float_only = arity, float_only
        self.build, self.lift = build, lift


def _last(s):
    return s.rank - 1


def _cumulative(fn):
    return lambda s: ["return lax.%s(a, axis=%d)" % (fn, _last(s))]


def _transpose(s):
    perm = tuple(reversed(range(s.rank)))
    if s.rank < 2:
        return ["return lax.transpose(a, %r)" % (perm,)]
    return ["# the reversed axes, reshaped back to the argument's shape",
            "return jnp.reshape(lax.transpose(a, %r), a.shape)" % (perm,)]


def _round(s):
    if s.dtype == "int32":
        return ["# lax.round takes floats: an int32 goes through float32",
                "return lax.round(a.astype(jnp.float32)).astype(a.dtype)"]
    return ["return lax.round(a)"]


def _fft(s):
    ax = s.axis()
    if s.dims[ax] is None:
        # JAX refuses a symbolic FFT length: the value as a column, its
        # rows transformed (length 1)
        return ["c = jnp.reshape(a, a.shape + (1,))",
                "return jnp.reshape(jnp.real(jnp.fft.fft(c, axis=-1)), "
                "a.shape).astype(a.dtype)"]
    return ["return jnp.real(jnp.fft.fft(a, axis=%d)).astype(a.dtype)" % ax]


def _linalg(compute):
    """An operation on the trailing k x k block (the value as a column when
    1-d), written back into it."""
    def build(s):
        k = s.square()
        lines = []
        if s.rank == 1:
            lines.append("v = jnp.reshape(a, (%s, 1))  # the value as a "
                         "column" % s.size(0))
        else:
            lines.append("v = a")
        lines.append("m = v[..., :%d, :%d]  # the trailing %dx%d block"
                     % (k, k, k, k))
        lines.extend(compute(k))
        lines.append("v = lax.dynamic_update_slice(v, r, (0,) * v.ndim)")
        lines.append("return jnp.reshape(v, a.shape)")
        return lines
    return build


def _spd(k):
    return ["m = m @ jnp.swapaxes(m, -1, -2) + %d * jnp.eye(%d, dtype=m.dtype)"
            "  # positive definite" % (k, k)]


LINALG = {
    "cholesky": _linalg(lambda k: _spd(k) + ["r = jnp.linalg.cholesky(m)"]),
    "qr": _linalg(lambda k: ["q, r = jnp.linalg.qr(m)", "r = q + r"]),
    "svd": _linalg(lambda k: ["s = jnp.linalg.svd(m, compute_uv=False)",
                              "r = m + s[..., None, :]"]),
    "eigh": _linalg(lambda k: ["w, _ = jnp.linalg.eigh(m + jnp.swapaxes(m, "
                               "-1, -2))",
                               "r = m + w[..., None, :]"]),
    "triangular_solve": _linalg(
        lambda k: ["d = jnp.abs(jnp.diagonal(m, axis1=-2, axis2=-1)) + 1",
                   "t = jnp.tril(m, -1) + jnp.eye(%d, dtype=m.dtype) * "
                   "d[..., None, :]" % k,
                   "r = lax.linalg.triangular_solve(t, m, left_side=True, "
                   "lower=True)"]),
    "lu": _linalg(lambda k: ["r, _, _ = lax.linalg.lu(m)"]),
}


def _dot(s):
    r = s.rank
    batch = tuple(range(r - 1))
    return ["# contracts the last axis (batching the others), added back",
            "d = lax.dot_general(a, b, (((%d,), (%d,)), (%r, %r)))"
            % (r - 1, r - 1, batch, batch),
            "return a + d[..., None]"]


def _concat(s):
    ax = s.axis()
    return ["c = jnp.concatenate([a, b], axis=%d)" % ax,
            "return lax.slice_in_dim(c, 1, 1 + %s, axis=%d)  # sliced back"
            % (s.size(ax), ax)]


def _pad(s):
    ax = s.axis()
    config = [(0, 0, 0)] * s.rank
    config[ax] = (1, 1, 1)
    return ["c = lax.pad(a, b[%r], %r)" % ((0,) * s.rank, config),
            "return lax.slice_in_dim(c, 2, 2 + %s, axis=%d)  # sliced back"
            % (s.size(ax), ax)]


def _flat_index(src):
    return ["n = a.size",
            "i = jnp.remainder(jnp.ravel(%s).astype(jnp.int32) + "
            "jnp.arange(n, dtype=jnp.int32), n)" % src]


def _gather(s):
    return (["# a permutation-like index from b, over the flattened value"]
            + _flat_index("b")
            + ["return jnp.reshape(jnp.ravel(a)[i], a.shape)"])


def _scatter_add(s):
    return (_flat_index("b")
            + ["return jnp.reshape(jnp.ravel(a).at[i].add(jnp.ravel(b)), "
               "a.shape)"])


def _dynamic_slice(s):
    ax = s.axis()
    n = s.size(ax)
    return ["start = jnp.remainder(jnp.ravel(b)[0].astype(jnp.int32), %s)" % n,
            "c = jnp.concatenate([a, a], axis=%d)" % ax,
            "return lax.dynamic_slice_in_dim(c, start, %s, axis=%d)  # a "
            "rotation" % (n, ax)]


def _dynamic_update_slice(s):
    ax = s.axis()
    return ["start = jnp.remainder(jnp.ravel(a)[0].astype(jnp.int32), %s)"
            % s.size(ax),
            "u = lax.slice_in_dim(b, 0, 1, axis=%d)" % ax,
            "return lax.dynamic_update_slice_in_dim(a, u, start, axis=%d)"
            % ax]


def _simple(expr):
    return lambda s: ["return " + expr]


OPS = {
    # arity 1
    "neg": Op(1, False, _simple("-a")),
    "abs": Op(1, False, _simple("jnp.abs(a)")),
    "sign": Op(1, False, _simple("jnp.sign(a)")),
    "square": Op(1, False, _simple("jnp.square(a)")),
    "cumsum": Op(1, False, _cumulative("cumsum"), lift=True),
    "cumprod": Op(1, False, _cumulative("cumprod"), lift=True),
    "cummax": Op(1, False, _cumulative("cummax"), lift=True),
    "sort": Op(1, False, lambda s: ["return lax.sort(a, dimension=%d)"
                                    % _last(s)], lift=True),
    "rev": Op(1, False, lambda s: ["return lax.rev(a, (%d,))" % _last(s)],
              lift=True),
    "transpose": Op(1, False, _transpose),
    "reduce_sum": Op(1, False, _simple("jnp.broadcast_to(jnp.sum(a), "
                                       "a.shape)  # kept as a broadcast")),
    "argmax": Op(1, False, lambda s: [
        "i = jnp.argmax(a, axis=%d, keepdims=True)" % _last(s),
        "return a + i.astype(a.dtype)  # added back"], lift=True),
    "round": Op(1, False, _round),
    "floor": Op(1, True, _simple("jnp.floor(a)")),
    "ceil": Op(1, True, _simple("jnp.ceil(a)")),
    "sin": Op(1, True, _simple("jnp.sin(a)")),
    "cos": Op(1, True, _simple("jnp.cos(a)")),
    "tanh": Op(1, True, _simple("jnp.tanh(a)")),
    "exp": Op(1, True, _simple("jnp.exp(jnp.clip(a, -20, 20))")),
    "log1p": Op(1, True, _simple("jnp.log1p(jnp.abs(a))")),
    "logistic": Op(1, True, _simple("lax.logistic(a)")),
    "erf": Op(1, True, _simple("lax.erf(a)")),
    "sqrt": Op(1, True, _simple("jnp.sqrt(jnp.abs(a) + 1)")),
    "rsqrt": Op(1, True, _simple("lax.rsqrt(jnp.abs(a) + 1)")),
    "fft": Op(1, True, _fft, lift=True),
    "cholesky": Op(1, True, LINALG["cholesky"], lift=True),
    "qr": Op(1, True, LINALG["qr"], lift=True),
    "svd": Op(1, True, LINALG["svd"], lift=True),
    "eigh": Op(1, True, LINALG["eigh"], lift=True),
    "triangular_solve": Op(1, True, LINALG["triangular_solve"], lift=True),
    "lu": Op(1, True, LINALG["lu"], lift=True),
    # arity 2
    "add": Op(2, False, _simple("a + b")),
    "sub": Op(2, False, _simple("a - b")),
    "mul": Op(2, False, _simple("a * b")),
    "max": Op(2, False, _simple("jnp.maximum(a, b)")),
    "min": Op(2, False, _simple("jnp.minimum(a, b)")),
    "pow": Op(2, True, _simple("jnp.power(jnp.abs(a) + 1, "
                               "jnp.clip(b, -4, 4))")),
    "atan2": Op(2, True, _simple("jnp.arctan2(a, b)")),
    "rem": Op(2, False, _simple("lax.rem(a, jnp.where(b == 0, "
                                "jnp.ones_like(b), b))  # never by 0")),
    "dot": Op(2, False, _dot, lift=True),
    "select": Op(2, False, _simple("jnp.where(a > 0, a, b)")),
    "concat": Op(2, False, _concat, lift=True),
    "pad": Op(2, False, _pad, lift=True),
    "gather": Op(2, False, _gather),
    "scatter_add": Op(2, False, _scatter_add),
    "dynamic_slice": Op(2, False, _dynamic_slice, lift=True),
    "dynamic_update_slice": Op(2, False, _dynamic_update_slice, lift=True),
    "clamp": Op(2, False, _simple("lax.clamp(b - 1, a, b + 1)")),
}


def op_source(name, program):
    """The helper function `jax_NAME` of one operation for the program's
    argument type."""
    op = OPS[name]
    dims = [None if sym else size for size, sym in program.dims]
    params = "a" if op.arity == 1 else "a, b"
    lines = []
    lifted = op.lift and not dims
    if lifted:
        dims = [1]
        for v in params.split(", "):
            lines.append("%s = jnp.reshape(%s, (1,))  # a 0-d value as a "
                         "vector of 1" % (v, v))
    through_float = op.float_only and program.dtype == "int32"
    if through_float:
        for v in params.split(", "):
            lines.append("%s = %s.astype(jnp.float32)  # float32 only: "
                         "int32 goes through float32" % (v, v))
    body = op.build(Shape(dims, "float32" if through_float
                          else program.dtype))
    last = body[-1]
    assert last.startswith("return "), (name, last)
    expr, _, comment = last[len("return "):].partition("  # ")
    if through_float:
        expr = "to_int32(%s)" % expr
    if lifted:
        expr = "jnp.reshape(%s, ())" % expr
    body = body[:-1] + ["return " + expr
                        + ("  # " + comment if comment else "")]
    lines.extend(body)
    return ["def jax_%s(%s):" % (name, params)] + ["    " + l for l in lines]


