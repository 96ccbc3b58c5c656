"""A user catalogue (conformance/sweep/USER.md) holding one program per
mistake that breaks a multi-platform export, and one clean program.  The
primitives and their rules are in tests/user/user_rules.py; the call sites
are here.  Each program's name says the class lctx diagnoses."""

import jax
import jax.numpy as jnp
import numpy as np

import user_rules as r

X = np.linspace(0.5, 2.0, 4, dtype=np.float32)


def get_backend(x):
    return r.get_backend_p.bind(x)


def backend_read(x):
    return r.backend_read_p.bind(x)


def host_rule(x):
    return r.host_rule_p.bind(x)


def host_trace(x):
    # 2b. host-backend at trace time: the kernel is picked by the host.
    if jax.default_backend() == "gpu":
        return x * 2
    return x + x


def missing_rule(x):
    return r.partial_p.bind(x)


def host_callback(x):
    return jax.pure_callback(lambda v: np.asarray(v) * 2,
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x)


def jax_defect(x):
    jax.debug.print("x = {}", x)
    return x * 2


def clean(x):
    return jnp.sin(r.adapted_p.bind(x))


LCTX_PROGRAMS = [
    {"name": "get_backend", "fn": get_backend, "args": (X,)},
    {"name": "backend_read", "fn": backend_read, "args": (X,)},
    {"name": "host_rule", "fn": host_rule, "args": (X,)},
    {"name": "host_trace", "fn": host_trace,
     "args": (jax.ShapeDtypeStruct((4,), jnp.float32),)},
    {"name": "missing_rule", "fn": missing_rule, "args": (X,),
     "platforms": [["cpu", "tpu"], ["cuda", "cpu", "rocm"]]},
    {"name": "host_callback", "fn": host_callback, "args": (X,)},
    {"name": "jax_defect", "fn": jax_defect, "args": (X,)},
    {"name": "clean", "fn": clean, "args": (X,)},
]
