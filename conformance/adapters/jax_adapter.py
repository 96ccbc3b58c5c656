#!/usr/bin/env python3
"""lctx adapter for JAX itself: judge JAX's own backend selection and
multi-platform lowering.

This program speaks version 1 of the lctx process protocol
(conformance/PROTOCOL.md), like conformance/examples/python/lctx_example.py,
but instead of a model it drives JAX's own functions:

    jax._src.xla_bridge.backends()
    jax._src.xla_bridge.canonicalize_platform(name)
    jax._src.xla_bridge.get_backend(platform)
    jax._src.interpreters.mlir.ModuleContext.get_backend(optional)
    jax._src.interpreters.mlir.register_lowering(prim, rule, platform)
    jax._src.interpreters.mlir._get_lowering_rules, lower_per_platform,
        lower_fun (on real ModuleContext and LoweringRuleContext objects)

For each case it puts a registry in place -- the case's backend factories
registered through JAX's `register_backend_factory`, returning fake clients;
the `jax_platforms`, `jax_platform_name` and `jax_xla_backend` config values;
NVIDIA GPU visibility -- and turns the case's rules into Python lowering
rules, then runs the case's operations and reports what JAX returned or
raised, with the MLIR module of every lowering.  See
conformance/adapters/README.md for what it patches and its limitations.

    sh tools/setup-jax.sh 0.10.2
    lctx conform --cmd "build/jax/venv-0.10.2/bin/python \
                        conformance/adapters/jax_adapter.py"

When JAX cannot be imported it says so on stderr, answers the handshake with
{"protocol": 1, "error": "jax is not importable: ..."} and exits with status 3;
likewise ("no client entry for this jaxlib: ...") when the installed jaxlib
has no entry in jaxlib_clients.py, whose entry the fake clients follow.

It drives whatever API the installed release has, detected by feature
(Capabilities): an operation the release cannot drive through its own entry
points is left out of the handshake's `operations` (lctx then reports its
cases `unsupported`), with the reason on stderr. With --per-case-refusals,
module_get_backend is also offered on a release whose ModuleContext has no
`optional` parameter, and a case asking for optional=True is answered
{"error": "unsupported: ..."} (lctx counts it as a crash: PROTOCOL.md has no
per-case `unsupported` answer). --clients ENTRY makes the fake clients follow
another entry of jaxlib_clients.CLIENTS (e.g. `modelled`, the commit lctx
models) instead of the installed jaxlib's; the version says which.
"""

import contextlib
import inspect
import itertools
import logging
import os
import sys

import jax_module
import jaxlib_clients

# The protocol half (the line reader, the hello, the request loop, send and
# log, and a client's outcome) is the Python example's, written to be kept
# when the model is replaced (conformance/examples/python/lctx_example.py,
# standard library only).
# jax_export.py imports read_message from here.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                             "..", "examples", "python"))
from lctx_example import (  # noqa: E402
    PROTOCOL_VERSION, client_outcome, log, read_hello, read_message, refuse,
    send, serve)

ADAPTER_NAME = "jax"
OPERATIONS = ["backends", "canonicalize", "get_backend", "module_get_backend",
              "register_lowering", "lower_per_platform"]
EXIT_CANNOT_RUN = 3
# Lowerings built in one MLIR context before it is made anew.
RECYCLE_LOWERINGS = 1000

# The JAX commit lctx's semantics sheet models, and the set-up that installs
# the pinned release (0.10.2: the code lctx models differs from the commit in
# plumbing only, see README.md).
MODELLED_COMMIT = "cec06d116c05"
SUGGESTED_INSTALL = "sh tools/setup-jax.sh 0.10.2"

PER_CASE_REFUSALS = "--per-case-refusals"
CLIENTS_OPTION = "--clients"
# The installed JAX's own backend factories instead of the case's fakes
# (see Driver.setup and conformance/cases/installed/README.md).
INSTALLED_REGISTRY = "--installed-registry"


# ---------------------------------------------------------------------------
# Importing JAX
# ---------------------------------------------------------------------------

class Jax:
    """The JAX modules the adapter drives."""

    def __init__(self):
        import jax
        from jax._src import xla_bridge
        from jax._src.interpreters import mlir
        from jax._src import (config, core, dtypes, sharding_impls,
                              source_info_util)
        from jax._src.lib.mlir import ir
        from jax._src.lib.mlir.dialects import func as func_dialect
        import numpy
        self.jax, self.xb, self.mlir, self.ir = jax, xla_bridge, mlir, ir
        self.func_dialect, self.np = func_dialect, numpy
        self.config, self.core, self.dtypes = config, core, dtypes
        self.sharding_impls = sharding_impls
        self.source_info_util = source_info_util
        # jax._src.hardware_utils (the hardware probes) exists from 0.4.30;
        # 0.4.20 has none (None here, see Driver).
        try:
            from jax._src import hardware_utils
        except ImportError:
            hardware_utils = None
        self.hardware_utils = hardware_utils
        self.version = getattr(jax, "__version__", "unknown")
        self.jaxlib_version = (jaxlib_clients.installed_version()
                               or "unknown")


def import_jax():
    """Returns (Jax, None) or (None, why)."""
    return import_jax_with(
        Jax, "install the pinned JAX (the modelled commit is %s): %s "
        "(jax and jaxlib, pinned and hashed), then run this adapter with "
        "build/jax/venv-0.10.2/bin/python." % (MODELLED_COMMIT,
                                                SUGGESTED_INSTALL))


def import_jax_with(make, install):
    """Returns (make(), None), or (None, why) with why logged and, when a
    package is missing, `install` (how to install the pinned JAX).
    jax_export.py imports it."""
    try:
        return make(), None
    except ImportError as err:
        missing = getattr(err, "name", None)
        why = "%s: %s" % (type(err).__name__, err)
        if missing:
            log("cannot import jax: the Python package %r is missing (%s)."
                % (missing.split(".")[0], err))
        else:
            log("cannot import jax: %s" % why)
        log(install)
        return None, why
    except Exception as err:  # e.g. a jax/jaxlib version mismatch
        why = "%s: %s" % (type(err).__name__, err)
        log("importing jax failed: %s" % why)
        log("install matching jax and jaxlib, for example: %s"
            % SUGGESTED_INSTALL)
        return None, why


# ---------------------------------------------------------------------------
# Fake clients
# ---------------------------------------------------------------------------

class FakeDevice:
    def __init__(self, client, device_id):
        self.client = client
        self.id = device_id
        self.process_index = 0

    @property
    def platform(self):
        return self.client.platform

    def __repr__(self):
        return "FakeDevice(%s, %d)" % (self.client.real_platform, self.id)


class FakeClient:
    """Stands in for a jaxlib Client of the installed release.

    What it reports comes from the installed jaxlib's entry of
    jaxlib_clients.CLIENTS (`entry`, set on the class that
    fake_client_class makes): `.platform` is 'gpu' for the real platforms
    that release's compatibility shim maps to 'gpu' (cuda and rocm; oneapi
    too from jaxlib 0.11.0), the real platform otherwise;
    `platform_version` and `runtime_type` are the CPU client's; and the
    members of jaxlib_clients.KNOWN_MEMBERS that the release's Client lacks
    (`_get_all_devices` before 0.5) raise AttributeError, as on the real
    one. `origin` ('registry' or 'pinned') and `registration` identify the
    client in outcomes.

    JAX reads only a few members of a client on the paths driven here
    (`_init_backend`: device_count, _get_all_devices, platform,
    process_index, local_devices).  Any other attribute JAX asks for is
    recorded in `problems`: the case is then reported as an adapter error
    rather than as JAX's behaviour, because JAX's `except Exception` in
    backends() would otherwise turn the AttributeError into a backend
    failure message.
    """

    entry = None

    def __init__(self, real_platform, origin, registration, has_devices,
                 problems):
        self.real_platform = real_platform
        self.origin = origin
        self.registration = registration
        self._problems = problems
        self._devices = [FakeDevice(self, 0)] if has_devices else []

    @property
    def platform(self):
        return self.entry.platform(self.real_platform)

    @property
    def platform_version(self):
        return self.entry.cpu_platform_version

    @property
    def runtime_type(self):
        return self.entry.cpu_runtime_type

    def device_count(self):
        return len(self._devices)

    def local_device_count(self):
        return len(self._devices)

    def _get_all_devices(self):
        return list(self._devices)

    def devices(self):
        return list(self._devices)

    def local_devices(self):
        return list(self._devices)

    def process_index(self):
        return 0

    def __getattr__(self, name):
        # Only called for attributes not defined above, and for the members
        # this release's Client lacks (_Absent).
        if name in jaxlib_clients.KNOWN_MEMBERS:
            raise AttributeError(
                "jaxlib %s's Client has no attribute %r"
                % (self.entry.release, name))
        if not (name.startswith("__") and name.endswith("__")):
            self._problems.append("JAX read FakeClient.%s, which the adapter "
                                  "does not provide" % name)
        raise AttributeError(name)

    def __repr__(self):
        return "FakeClient(%r, %s, %r)" % (self.real_platform, self.origin,
                                           self.registration)


class _Absent:
    """A member the installed release's Client does not have: reading it
    raises AttributeError (then FakeClient.__getattr__ says so)."""

    def __init__(self, name):
        self.name = name

    def __get__(self, obj, owner=None):
        raise AttributeError(self.name)


class InstalledClient:
    """A client one of the installed JAX's own factories returned, with the
    registration it came from (for outcomes): every attribute JAX reads is
    the real client's."""

    origin = "registry"

    def __init__(self, real, real_platform, registration):
        self._real = real
        self.real_platform = real_platform
        self.registration = registration

    def __getattr__(self, name):
        return getattr(self._real, name)

    def __repr__(self):
        return "InstalledClient(%r, %r)" % (self.real_platform,
                                            self.registration)


def fake_client_class(entry):
    """FakeClient for the jaxlib release of `entry` (a ClientEntry)."""
    attrs = {"entry": entry}
    for name in jaxlib_clients.KNOWN_MEMBERS:
        if name not in entry.members:
            attrs[name] = _Absent(name)
    return type("FakeClient", (FakeClient,), attrs)


# ---------------------------------------------------------------------------
# Lowering: rules as real Python lowering rules, run by JAX's own machinery
# ---------------------------------------------------------------------------

_ACCEPTED = {}


def _accepted(cls_or_fn):
    """The parameter names of `cls_or_fn`, or None when it takes any
    keyword (cached: signatures are read once)."""
    if cls_or_fn not in _ACCEPTED:
        try:
            params = inspect.signature(cls_or_fn).parameters
        except (TypeError, ValueError):
            names = None
        else:
            names = (None if any(p.kind == p.VAR_KEYWORD
                                 for p in params.values())
                     else frozenset(params))
        _ACCEPTED[cls_or_fn] = names
    return _ACCEPTED[cls_or_fn]


def _kwargs_for(cls_or_fn, kwargs):
    """The keyword arguments `cls_or_fn` accepts (JAX versions add and drop
    fields of ModuleContext and LoweringRuleContext)."""
    names = _accepted(cls_or_fn)
    if names is None:
        return kwargs
    return {k: v for k, v in kwargs.items() if k in names}


class Lowering:
    """One case's lowering world: its primitives (fresh `core.Primitive`
    objects, so nothing registered by an earlier case is seen), its rules
    (one Python function object per declared rule, so identity is the
    rule's), registered with JAX's own `mlir.register_lowering`, and
    lowered with JAX's own `_get_lowering_rules`, `lower_per_platform` and
    `lower_fun` on real ModuleContext and LoweringRuleContext objects.

    Every primitive takes and returns one f32 scalar. A rule runs its
    actions in order and returns its input unchanged (so JAX's
    compute-type wrapping, which skips block arguments, adds nothing the
    model does not know about).
    """

    def __init__(self, driver, case):
        self.d = driver
        self.j = driver.j
        self.prims = {}
        self.rules = {}
        self.specs = {}
        rules = case.get("rules", [])
        if rules is None:
            rules = []
        if not isinstance(rules, list):
            raise CaseFormatError("case: 'rules' is not a list")
        for what, r in _objects(rules, "rule"):
            name = r.get("name")
            actions = r.get("actions")
            if not isinstance(name, str) or not name or name in self.specs:
                raise CaseFormatError("%s: bad or repeated name" % what)
            if not isinstance(actions, list):
                raise CaseFormatError("%s: 'actions' is not a list" % what)
            for k, a in enumerate(actions):
                self._check_action(a, "%s action %d" % (what, k))
            self.specs[name] = actions
        for name in self.specs:
            self.rules[name] = self._make_rule(name, self.specs[name])

    def close(self):
        """Removes this case's primitives from JAX's lowering tables."""
        mlir = self.j.mlir
        for prim in self.prims.values():
            mlir._lowerings.pop(prim, None)
            for table in mlir._platform_specific_lowerings.values():
                table.pop(prim, None)
            uncacheable = getattr(mlir, "_uncacheable_primitives", None)
            if uncacheable is not None:
                uncacheable.discard(prim)

    @staticmethod
    def _check_action(a, what):
        if not isinstance(a, dict):
            raise CaseFormatError("%s is not a JSON object" % what)
        kind = a.get("action")
        if kind in ("get_backend", "guarded_get_backend"):
            if not isinstance(a.get("optional"), bool):
                raise CaseFormatError("%s: bad optional" % what)
        elif kind == "raise_if_multi":
            if not isinstance(a.get("message"), str):
                raise CaseFormatError("%s: bad message" % what)
        elif kind == "lower_fun":
            if not isinstance(a.get("primitive"), str):
                raise CaseFormatError("%s: bad primitive" % what)
            ct = a.get("compute_type")
            if ct is not None and not isinstance(ct, str):
                raise CaseFormatError("%s: bad compute_type" % what)
        elif kind not in ("try_fallback_get_backend", "read_client_platform",
                          "marker"):
            raise CaseFormatError("%s: unknown action %r" % (what, kind))

    def primitive(self, name):
        prim = self.prims.get(name)
        if prim is None:
            core = self.j.core
            prim = core.Primitive(name)
            prim.def_abstract_eval(lambda x: x)
            prim.def_impl(lambda x: x)
            self.prims[name] = prim
        return prim

    def rule(self, name, what):
        if name not in self.rules:
            raise CaseFormatError("%s: no rule named %r" % (what, name))
        return self.rules[name]

    # -- rules -----------------------------------------------------------

    def _make_rule(self, name, actions):
        """One Python lowering rule: runs the actions' steps in order on the
        rule context and returns its input."""
        steps = []
        for a in actions:
            kind = a["action"]
            if kind == "get_backend":
                steps.append(self._step_get_backend(a["optional"]))
            elif kind == "guarded_get_backend":
                steps.append(self._step_guarded(a["optional"]))
            elif kind == "try_fallback_get_backend":
                steps.append(self._step_try_fallback())
            elif kind == "raise_if_multi":
                steps.append(self._step_raise_if_multi(a["message"]))
            elif kind == "read_client_platform":
                steps.append(self._step_read_client_platform())
            elif kind == "lower_fun":
                steps.append(self._step_lower_fun(a["primitive"],
                                                  a.get("compute_type")))
            else:
                steps.append(self._step_marker(name))

        def rule(ctx, x, **params):
            for step in steps:
                step(ctx, x)
            return [x]

        rule.__name__ = "lctx_rule_%s" % "".join(
            c if c.isalnum() else "_" for c in name)
        rule.__qualname__ = rule.__name__
        return rule

    @staticmethod
    def _step_get_backend(optional):
        def step(ctx, x):
            ctx.module_context.get_backend(optional=optional)
        return step

    @staticmethod
    def _step_guarded(optional):
        def step(ctx, x):
            if len(ctx.module_context.platforms) <= 1:
                ctx.module_context.get_backend(optional=optional)
        return step

    @staticmethod
    def _step_try_fallback():
        def step(ctx, x):
            try:
                ctx.module_context.get_backend()
            except NotImplementedError:
                ctx.module_context.get_backend(optional=True)
        return step

    @staticmethod
    def _step_raise_if_multi(message):
        def step(ctx, x):
            if len(ctx.module_context.platforms) > 1:
                raise NotImplementedError(message)
        return step

    @staticmethod
    def _step_read_client_platform():
        def step(ctx, x):
            client = ctx.module_context.get_backend(optional=True)
            if client is not None:
                client.platform  # noqa: B018 (the read is the action)
        return step

    def _step_lower_fun(self, prim_name, compute_type):
        j = self.j
        prim = self.primitive(prim_name)

        def traced(y):
            with self.d.compute_type(compute_type):
                return [prim.bind(y)]

        lowered = j.mlir.lower_fun(traced, multiple_results=True)

        def step(ctx, x):
            lowered(ctx, x)
        return step

    def _step_marker(self, rule_name):
        j = self.j
        ir = j.ir
        mlir = j.mlir

        def step(ctx, x):
            platforms = mlir._platforms_for_eqn(ctx)
            # The marker is an op of no registered dialect; the context JAX
            # made for the module (lower_jaxpr_to_module makes its own) is
            # told to accept it. This changes nothing else in the lowering.
            ctx.module_context.context.allow_unregistered_dialects = True
            ir.Operation.create("lctx.marker", attributes={
                "platforms": ir.ArrayAttr.get(
                    [ir.StringAttr.get(p) for p in platforms]),
                "primitive": ir.StringAttr.get(str(ctx.primitive)),
                "rule": ir.StringAttr.get(rule_name)})
        return step

    # -- operations ----------------------------------------------------------

    def register(self, op, what):
        prim_name = op.get("primitive")
        rule_name = op.get("rule")
        platform = op.get("platform")
        if not isinstance(prim_name, str):
            raise CaseFormatError("%s: bad primitive" % what)
        if not isinstance(rule_name, str):
            raise CaseFormatError("%s: bad rule" % what)
        if platform is not None and not isinstance(platform, str):
            raise CaseFormatError("%s: bad platform" % what)
        rule = self.rule(rule_name, what)
        prim = self.primitive(prim_name)
        return lambda: self.j.mlir.register_lowering(prim, rule, platform)

    def lower(self, op, what):
        prim_name = op.get("primitive")
        platforms = _names(op, "platforms", what)
        backend = op.get("backend")
        narrow = _names(op, "narrow", what, nullable=True)
        compute_type = op.get("compute_type")
        override = op.get("override")
        x64 = op.get("x64")
        if not isinstance(prim_name, str):
            raise CaseFormatError("%s: bad primitive" % what)
        if backend is not None and not isinstance(backend, str):
            raise CaseFormatError("%s: bad backend" % what)
        if compute_type is not None and not isinstance(compute_type, str):
            raise CaseFormatError("%s: bad compute_type" % what)
        if override is not None and not isinstance(override, str):
            raise CaseFormatError("%s: bad override" % what)
        if not isinstance(x64, bool):
            raise CaseFormatError("%s: bad x64" % what)
        prim = self.primitive(prim_name)
        override_rule = (None if override is None
                         else self.rule(override, what))
        pinned = self.d.pinned_client(backend)

        def call():
            return self._lower(prim, tuple(platforms), pinned, narrow,
                               compute_type, override_rule, x64)
        return call

    def _lower(self, prim, platforms, pinned, narrow, compute_type,
               override_rule, x64):
        """Lowers one equation of `prim` like jaxpr_subcomp does: the
        equation's rules from _get_lowering_rules, then lower_per_platform
        with a rule context whose platforms are `narrow`, in a module whose
        @main takes the dimension variables (the platform index when the
        module lowers for several platforms) and one f32 scalar.

        Returns the module as generic MLIR text; JAX's raises propagate.

        Where JAX's own module lowering can express the operation (no
        narrowed platforms, no `gpu` in the list: jax_module.reachable), the
        module is JAX's end to end (jax_module.lower); otherwise it is
        built here, and counted under the reason.
        """
        j = self.j
        mlir, ir, core = j.mlir, j.ir, j.core
        with self.d.x64(x64):
            overrides = (None if override_rule is None
                         else ((prim, override_rule),))
            params = mlir.LoweringParameters(
                **_kwargs_for(mlir.LoweringParameters,
                              {"override_lowering_rules": overrides}))
            whole, why = jax_module.reachable(platforms, narrow)
            self.d.count_lowering(why if not whole else None)
            if whole:
                return jax_module.lower(
                    j, prim, platforms, pinned, params,
                    lambda: self.d.compute_type(compute_type))
            eqn_ctx = self.d.eqn_context(compute_type)
            context = self.d.lowering_ir_context()
            with context, ir.Location.unknown(context):
                ctx = self.d.module_context(platforms, pinned, params,
                                            context)
                aval = core.ShapedArray((), self.d.np.float32)
                dim_vars = ctx.shape_poly_state.dim_vars
                int_aval = core.ShapedArray((), self.d.default_int_dtype())
                int_type = self.d.ir_type(ctx, int_aval)
                f32_type = self.d.ir_type(ctx, aval)
                ftype = ir.FunctionType.get(
                    [int_type] * len(dim_vars) + [f32_type], [f32_type])
                main = j.func_dialect.FuncOp("main", ftype, ip=ctx.ip)
                if dim_vars:
                    # As lower_jaxpr_to_fun marks the dimension variables
                    # of @main.
                    attrs = [ir.DictAttr.get({
                        "jax.global_constant": ir.StringAttr.get(v)})
                        for v in dim_vars] + [ir.DictAttr.get({})]
                    main.arg_attrs = ir.ArrayAttr.get(attrs)
                block = main.add_entry_block()
                with ir.InsertionPoint(block):
                    args = list(block.arguments)
                    rule_ctx = self.d.rule_context(
                        ctx, prim, aval, args[:len(dim_vars)], eqn_ctx,
                        None if narrow is None else list(narrow))
                    # jaxpr_subcomp looks the rules up and runs them inside
                    # the equation's context manager (its compute type,
                    # among others, is then current: a rule's lower_fun
                    # traces under it), at the commit mlir.py:2225-2227 and
                    # 2281-2283, jax-v0.10.2 mlir.py:2177 and 2233,
                    # jax-v0.8.3 mlir.py:2056, jax-v0.7.2 mlir.py:2144 (where
                    # lower_fun entered it once more, mlir.py:2553).
                    with eqn_ctx.manager:
                        out = self.d.lower_equation(ctx, rule_ctx, prim,
                                                    eqn_ctx,
                                                    args[len(dim_vars)])
                    j.func_dialect.ReturnOp(list(out))
                text = ctx.module.operation.get_asm(
                    print_generic_op_form=True, enable_debug_info=False)
        return text


# ---------------------------------------------------------------------------
# Putting a case's registry in place
# ---------------------------------------------------------------------------

class CaseFormatError(Exception):
    pass


def _objects(items, label):
    """(what, item) for each item of a JSON list, `what` naming it ("rule
    3"); raises CaseFormatError at an item that is not a JSON object."""
    for i, item in enumerate(items):
        what = "%s %d" % (label, i)
        if not isinstance(item, dict):
            raise CaseFormatError("%s is not a JSON object" % what)
        yield what, item


def _names(obj, key, what, nullable=False):
    """`obj[key]`: a list of strings (or None when `nullable`)."""
    value = obj.get(key)
    if value is None and nullable:
        return None
    if not isinstance(value, list) or not all(isinstance(p, str)
                                              for p in value):
        raise CaseFormatError("%s: bad %s" % (what, key))
    return value


def _str_or_unset(obj, key, what):
    value = obj.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise CaseFormatError("%s: %r is not a string" % (what, key))
    return value


class Unsupported(Exception):
    """A case this release cannot run through its own entry points
    (answered {"error": "unsupported: ..."}, with --per-case-refusals)."""


class Capabilities:
    """What the installed JAX offers for each operation, detected by
    feature (attributes and signatures), never by version number.

    `operations` are the protocol operations offered; `refused` maps each
    one left out to the reason (the missing API and the release).
    """

    def __init__(self, j, per_case_refusals):
        mlir, xb = j.mlir, j.xb
        release = "jax %s" % j.version
        module_context = mlir.ModuleContext
        self.refused = {}

        # ModuleContext.get_backend(optional=...): from 0.7 (jax-v0.7.2
        # mlir.py:821). 0.5 and 0.6 have get_backend() without `optional`
        # (jax-v0.5.3 mlir.py:767, jax-v0.6.2 mlir.py:759); 0.4 has only
        # the `backend` property (jax-v0.4.20 mlir.py:519-529, jax-v0.4.30
        # mlir.py:639-649), the same entry point under its older name:
        # get_backend() replaced it (same NotImplementedError for several
        # platforms), so it answers get_backend() with optional false.
        method = getattr(module_context, "get_backend", None)
        params = _accepted(method) if method is not None else frozenset()
        self.optional = method is not None and (params is None
                                                or "optional" in params)
        if method is not None:
            self.get_backend_form = "get_backend()"
        elif isinstance(inspect.getattr_static(module_context, "backend",
                                               None), property):
            self.get_backend_form = "backend"
        else:
            self.get_backend_form = None
        # The ModuleContext field holding the pinned client: `backend` from
        # 0.5 (jax-v0.5.3 mlir.py:708), `backend_or_name` before
        # (jax-v0.4.20 mlir.py:464: a client, a platform name or None; the
        # adapter passes a client or None).
        ctor = _accepted(module_context) or frozenset(("backend",))
        self.pinned_field = ("backend" if "backend" in ctor else
                             "backend_or_name" if "backend_or_name" in ctor
                             else None)
        self.no_optional = (
            "ModuleContext.get_backend(optional=...) is missing in %s (it "
            "has %s)" % (release, {"get_backend()": "get_backend() without "
                                   "optional", "backend": "only the "
                                   "`backend` property"}.get(
                                       self.get_backend_form, "neither")))

        for name in ("backends", "canonicalize_platform", "get_backend"):
            if not callable(getattr(xb, name, None)):
                op = {"canonicalize_platform": "canonicalize"}.get(name, name)
                self.refused[op] = "xla_bridge.%s is missing in %s" % (
                    name, release)

        if self.pinned_field is None:
            self.refused["module_get_backend"] = (
                "ModuleContext takes neither `backend` nor `backend_or_name` "
                "in %s" % release)
        elif not self.optional:
            if self.get_backend_form is None or not per_case_refusals:
                self.refused["module_get_backend"] = self.no_optional
        self.partial_module_get_backend = (
            "module_get_backend" not in self.refused and not self.optional)

        # The rule lookup jaxpr_subcomp runs: _get_lowering_rules (0.10 on)
        # or _uncached_lowering, which held it before (0.7 to 0.9); before
        # 0.7 it is inline in jaxpr_subcomp, which has no entry point for
        # one equation.
        if hasattr(mlir, "_get_lowering_rules"):
            self.lookup = "_get_lowering_rules"
        elif hasattr(mlir, "_uncached_lowering"):
            self.lookup = "_uncached_lowering"
        else:
            self.lookup = None
        missing = []
        if not hasattr(mlir, "lower_per_platform"):
            missing.append("mlir.lower_per_platform")
        if self.lookup is None:
            missing.append("a rule-lookup entry point (mlir._get_lowering_rules"
                           " or mlir._uncached_lowering; the lookup is inline "
                           "in jaxpr_subcomp)")
        if not self.optional:
            missing.append("ModuleContext.get_backend(optional=...), which "
                           "the rules' actions call")
        if not hasattr(mlir, "_platforms_for_eqn"):
            missing.append("mlir._platforms_for_eqn (the marker action)")
        if not hasattr(j.config, "compute_on_context_manager"):
            missing.append("config.compute_on_context_manager (compute "
                           "types)")
        if missing:
            self.refused["lower_per_platform"] = "%s lacks %s" % (
                release, "; ".join(missing))

        why = self._register_lowering_returns(j)
        if why:
            self.refused["register_lowering"] = why

        self.operations = [op for op in OPERATIONS if op not in self.refused]

    @staticmethod
    def _register_lowering_returns(j):
        """Why register_lowering cannot be reported, or None: a release whose
        register_lowering returns the rule (for use as a decorator; before
        0.7) has no outcome in the protocol (none, string, platforms,
        client, raise) for what it returns. Probed once with a primitive of
        the adapter's own, removed again."""
        mlir = j.mlir
        probe = j.core.Primitive("lctx_register_lowering_probe")

        def rule(ctx, *args, **params):
            return args

        try:
            value = mlir.register_lowering(probe, rule)
        except Exception as err:
            return ("register_lowering(prim, rule) raised %s: %s in jax %s"
                    % (type(err).__name__, err, j.version))
        finally:
            mlir._lowerings.pop(probe, None)
        if value is None:
            return None
        return ("mlir.register_lowering returns %s in jax %s (it returns the "
                "rule), for which the protocol has no outcome"
                % ("the rule" if value is rule else type(value).__name__,
                   j.version))


class Driver:
    """Installs the patches once, then sets up and runs one case at a time."""

    def __init__(self, j, entry, per_case_refusals=False, installed=False):
        self.j = j
        xb = j.xb
        self.entry = entry
        # --installed-registry: the factories the installed JAX registered
        # at import (plugin discovery off), in order, kept for every case.
        self.installed = installed
        self.stock = list(xb._backend_factories.items()) if installed else []
        self.client_class = fake_client_class(entry)
        self.caps = Capabilities(j, per_case_refusals)
        self.problems = []
        # Per backends() run: how many times each factory has been called.
        self.calls = {}
        # The registration list of the current case (platform names in
        # order), to map a factory call to its registration index.
        self.registration_names = []
        self.jax_platforms_mode = False
        self._ir_context = None
        self._lowering_context = None
        self._lowerings_in_context = 0
        # Lowerings by path: None for JAX's own module lowering
        # (jax_module.lower), else the reason it could not be used.
        self.lowerings = {}
        self._eqn_contexts = {}
        self._probe = None
        self.np = j.np

        # Keep JAX's own warnings (missing-plugin suggestions, experimental
        # plugins) out of the run's log.
        logging.getLogger(xb.__name__).setLevel(logging.ERROR)

        # No plugin discovery: plugins found on this machine would add
        # factories and could import or load native code. (0.4.20 has no
        # _discover_and_register_pjrt_plugins: backends() discovers only
        # while _plugins_registered is false, xla_bridge.py:590.)
        xb._plugins_registered = True
        if hasattr(xb, "_discover_and_register_pjrt_plugins"):
            xb._discover_and_register_pjrt_plugins = lambda: None

        # No hardware probing: NVIDIA visibility comes from the case, and the
        # TPU probe used for suggestions after initialization reports none.
        self.nvidia_gpu_visible = False
        self.hardware_notes = []
        hw = j.hardware_utils
        if hw is not None and hasattr(
                hw, "num_available_tpu_chips_and_device_id"):
            hw.num_available_tpu_chips_and_device_id = lambda: (0, None)
        elif hasattr(xb, "_num_available_tpu_chips"):
            # Its older name (jax-v0.4.20 xla_bridge.py:666), a count only,
            # read by the same suggestions.
            xb._num_available_tpu_chips = lambda: 0
        if hw is not None and hasattr(hw, "has_visible_nvidia_gpu"):
            hw.has_visible_nvidia_gpu = lambda: self.nvidia_gpu_visible
        else:
            # Before 0.5 no JAX function says whether an NVIDIA GPU is
            # visible: only _suggest_missing_backends looks at /dev/nvidia0
            # itself, for a warning (jax-v0.4.20 xla_bridge.py:689-694,
            # jax-v0.4.30 xla_bridge.py:916-921). A case's
            # nvidia_gpu_visible is then not put in place.
            self.hardware_notes.append(
                "jax %s has no hardware_utils.has_visible_nvidia_gpu: a "
                "case's nvidia_gpu_visible is not put in place (this JAX "
                "reads /dev/nvidia0 only for a warning in "
                "_suggest_missing_backends)" % j.version)

        # Wrap backends() to know when an initialization run starts (it is
        # looked up as a module global, so JAX's own callers go through the
        # wrapper too).  The wrapper only resets the adapter's call counters
        # and calls JAX's function.
        original_backends = xb.backends

        def backends():
            self.calls = {}
            return original_backends()

        backends.__wrapped__ = original_backends
        xb.backends = backends

    # -- lowering plumbing (version-tolerant) --------------------------------

    @contextlib.contextmanager
    def compute_type(self, compute_type):
        """Equations traced inside get `compute_type` in their context, as
        under JAX's compute_on (without its check of the name)."""
        if compute_type is None:
            yield
            return
        holder = self.j.config.compute_on_context_manager
        prev = holder.swap_local(compute_type)
        try:
            yield
        finally:
            holder.set_local(prev)

    @contextlib.contextmanager
    def x64(self, enabled):
        """jax_enable_x64 for one lowering (the platform index type)."""
        config = self.j.jax.config
        prev = bool(config.jax_enable_x64)
        if prev == enabled:
            yield
            return
        config.update("jax_enable_x64", enabled)
        try:
            yield
        finally:
            config.update("jax_enable_x64", prev)

    def default_int_dtype(self):
        dtypes = self.j.dtypes
        if hasattr(dtypes, "default_int_dtype"):
            return dtypes.default_int_dtype()
        return dtypes.canonicalize_dtype(self.np.int64)

    def eqn_context(self, compute_type):
        """The JaxprEqnContext of an equation traced under `compute_type`:
        traced for real, so its fields are this JAX's. It depends on the
        configuration only, so one is traced per compute type and x64."""
        key = (compute_type, bool(self.j.jax.config.jax_enable_x64))
        found = self._eqn_contexts.get(key)
        if found is None:
            if self._probe is None:
                self._probe = self.j.core.Primitive("lctx_eqn_context_probe")
                self._probe.def_abstract_eval(lambda x: x)
            probe = self._probe
            x = self.np.float32(0)
            with self.compute_type(compute_type):
                closed = self.j.jax.make_jaxpr(lambda y: probe.bind(y))(x)
            found = self._eqn_contexts[key] = closed.jaxpr.eqns[0].ctx
        return found

    def count_lowering(self, why):
        self.lowerings[why] = self.lowerings.get(why, 0) + 1

    def lowering_summary(self):
        """One line: how many lowerings came from JAX's module lowering,
        and how many were built by the adapter, and why."""
        own = self.lowerings.get(None, 0)
        rest = sorted((n, why) for why, n in self.lowerings.items()
                      if why is not None)
        text = "lowerings: %d through lower_jaxpr_to_module" % own
        for n, why in reversed(rest):
            text += "; %d in the adapter's own module (%s)" % (n, why)
        return text

    def lowering_ir_context(self):
        """The MLIR context lowerings build their modules in: JAX's own
        (make_ir_context) with unregistered dialects allowed for the
        lctx.marker ops; shared, and made anew every RECYCLE_LOWERINGS
        lowerings (a context only grows)."""
        if (self._lowering_context is None
                or self._lowerings_in_context >= RECYCLE_LOWERINGS):
            self._lowering_context = self.j.mlir.make_ir_context()
            self._lowering_context.allow_unregistered_dialects = True
            self._lowerings_in_context = 0
        self._lowerings_in_context += 1
        return self._lowering_context

    def pinned_client(self, backend):
        if backend is None:
            return None
        return self.client_class(backend, "pinned", None, True,
                                 self.problems)

    def ir_context(self):
        """One MLIR context for the module contexts of get_backend."""
        if self._ir_context is None:
            self._ir_context = self.j.mlir.make_ir_context()
        return self._ir_context

    def module_context(self, platforms, pinned, params=None, context=None):
        """A real ModuleContext for `platforms` (a tuple, as the normal
        lowering path holds them) with the pinned client `pinned`; its
        shape-polymorphism state prepends the platform index exactly when
        JAX's ShapePolyLoweringState does."""
        mlir = self.j.mlir
        if params is None:
            params = mlir.LoweringParameters()
        if context is None:
            context = self.ir_context()
        kwargs = {
            "platforms": platforms, self.caps.pinned_field: pinned,
            "axis_context": self.sharding_context(),
            "name_stack": self.j.source_info_util.new_name_stack(),
            "keepalives": [], "channel_iterator": itertools.count(1),
            "host_callbacks": [], "lowering_parameters": params,
            "context": context,
            "shape_poly_state": mlir.ShapePolyLoweringState((), platforms),
        }
        with context, self.j.ir.Location.unknown(context):
            return mlir.ModuleContext(
                **_kwargs_for(mlir.ModuleContext, kwargs))

    def sharding_context(self):
        """A one-device ShardingContext: ShardingContext(1) from 0.4.30;
        0.4.20's takes the device assignment itself (no device is at hand,
        and get_backend does not read the axis context)."""
        cls = self.j.sharding_impls.ShardingContext
        params = _accepted(cls)
        if params is not None and "num_devices" not in params \
                and "device_assignment" in params:
            return cls(device_assignment=())
        return cls(1)

    def module_get_backend(self, ctx, optional):
        """A callable running JAX's ModuleContext.get_backend(optional) on
        `ctx`, through the entry point this release has (Capabilities)."""
        caps = self.caps
        if caps.optional:
            return lambda: ctx.get_backend(optional=optional)
        if optional:
            raise Unsupported(caps.no_optional)
        if caps.get_backend_form == "get_backend()":
            return ctx.get_backend
        return lambda: ctx.backend

    def rule_context(self, ctx, prim, aval, dim_var_values, eqn_ctx, narrow):
        mlir = self.j.mlir
        kwargs = {
            "module_context": ctx,
            "name_stack": self.j.source_info_util.new_name_stack(),
            "traceback": None, "primitive": prim,
            "avals_in": (aval,), "avals_out": [aval],
            "tokens_in": mlir.TokenSet(), "tokens_out": None,
            "const_lowering": {}, "axis_size_env": None,
            "dim_var_values": dim_var_values, "jaxpr_eqn_ctx": eqn_ctx,
            "platforms": narrow,
        }
        return mlir.LoweringRuleContext(
            **_kwargs_for(mlir.LoweringRuleContext, kwargs))

    def ir_type(self, ctx, aval):
        """JAX's IR type of `aval` (`aval_to_ir_type(ctx, aval)`; releases
        before 0.9 take the aval alone)."""
        convert = self.j.mlir.aval_to_ir_type
        params = _accepted(convert)
        if params is not None and "ctx" not in params and len(params) == 1:
            return convert(aval)
        return convert(ctx, aval)

    def lower_equation(self, ctx, rule_ctx, prim, eqn_ctx, arg):
        """JAX's rule lookup for `prim` then its lower_per_platform, as
        jaxpr_subcomp runs them: `_get_lowering_rules` (0.10 and later), or
        `_uncached_lowering`, which held the lookup before (0.7 to 0.9)."""
        mlir = self.j.mlir
        if self.caps.lookup == "_get_lowering_rules":
            found = mlir._get_lowering_rules(ctx, prim, eqn_ctx)
            return self.lower_per_platform(rule_ctx, str(prim), found[0],
                                           found[1], arg)
        outs, _ = mlir._uncached_lowering(prim, eqn_ctx, frozenset(),
                                          rule_ctx, arg)
        return outs

    def lower_per_platform(self, rule_ctx, description, platform_rules,
                           default_rule, arg):
        mlir = self.j.mlir
        params = _accepted(mlir.lower_per_platform)
        if params is None or "effects" in params:
            return mlir.lower_per_platform(rule_ctx, description,
                                           platform_rules, default_rule,
                                           frozenset(), arg)
        return mlir.lower_per_platform(rule_ctx, description, platform_rules,
                                       default_rule, arg)

    # -- config --------------------------------------------------------------

    def _set_config(self, name, value):
        try:
            self.j.jax.config.update(name, value)
        except AttributeError:
            # A flag missing from jax.config (jax_xla_backend is deprecated):
            # set JAX's holder directly.
            holder = {"jax_xla_backend": "_XLA_BACKEND",
                      "jax_platform_name": "_PLATFORM_NAME"}.get(name)
            if holder is None or not hasattr(self.j.xb, holder):
                raise
            getattr(self.j.xb, holder)._set(value)

    # -- factories -----------------------------------------------------------

    def _registration_index(self, name):
        """Which registration is calling the factory for `name` now.

        Default mode: the factory's position in the registration order.
        jax_platforms mode: JAX initializes the expanded list in order and
        calls a name's factory once for each of its entries (a skipped cuda
        calls nothing), so the k-th call of `name` in one backends() run is
        the k-th entry for `name`.
        """
        k = self.calls.get(name, 0)
        self.calls[name] = k + 1
        positions = [i for i, n in enumerate(self.registration_names)
                     if n == name]
        if not positions:
            self.problems.append("factory %r called but not registered" % name)
            return -1
        return positions[k % len(positions)]

    def _make_factory(self, name, behaviour, message):
        def factory():
            index = self._registration_index(name)
            if behaviour == "raises":
                raise RuntimeError(message)
            if behaviour == "none":
                return None
            return self.client_class(name, "registry", index,
                                     behaviour == "client", self.problems)
        return factory

    def setup(self, case):
        """Puts the case's registry and configuration in place."""
        xb = self.j.xb
        if not isinstance(case, dict):
            raise CaseFormatError("case is not a JSON object")
        factories = case.get("factories")
        if not isinstance(factories, list):
            raise CaseFormatError("case: 'factories' is not a list")
        visible = case.get("nvidia_gpu_visible", False)
        if not isinstance(visible, bool):
            raise CaseFormatError("case: 'nvidia_gpu_visible' is not a bool")
        jax_platforms = _str_or_unset(case, "jax_platforms", "case")
        platform_name = _str_or_unset(case, "jax_platform_name", "case")
        xla_backend = _str_or_unset(case, "jax_xla_backend", "case")

        self.problems[:] = []
        self.calls = {}

        # A fresh registry: no initialized backends, no recorded failures, no
        # default, nothing cached by get_backend, no factories.
        xb._clear_backends()
        xb.get_backend.cache_clear()
        xb._backend_factories.clear()

        declared = []
        for what, f in _objects(factories, "factory"):
            name = f.get("name")
            priority = f.get("priority")
            quiet = f.get("fail_quietly")
            behaviour = f.get("behaviour")
            if not isinstance(name, str):
                raise CaseFormatError("%s: bad name" % what)
            if not isinstance(priority, int) or isinstance(priority, bool):
                raise CaseFormatError("%s: bad priority" % what)
            if not isinstance(quiet, bool):
                raise CaseFormatError("%s: bad fail_quietly" % what)
            if behaviour not in ("client", "raises", "none", "no_devices"):
                raise CaseFormatError("%s: bad behaviour %r" % (what, behaviour))
            message = _str_or_unset(f, "message", what)
            declared.append((name, priority, quiet, behaviour, message))
        if self.installed:
            self._install_stock(declared)
        else:
            for name, priority, quiet, behaviour, message in declared:
                xb.register_backend_factory(
                    name, self._make_factory(name, behaviour, message),
                    priority=priority, fail_quietly=quiet)

        self._set_config("jax_platforms", jax_platforms or None)
        self._set_config("jax_platform_name", platform_name)
        self._set_config("jax_xla_backend", xla_backend)
        self.nvidia_gpu_visible = visible

        # Registration indices (PROTOCOL.md): the factory's position in
        # default mode, the position in the expanded jax_platforms list
        # otherwise -- expanded with JAX's own alias function.
        if jax_platforms:
            self.registration_names = []
            for entry in jax_platforms.split(","):
                self.registration_names.extend(xb.expand_platform_alias(entry))
        else:
            self.registration_names = list(xb._backend_factories)

    def _install_stock(self, declared):
        """--installed-registry: the installed JAX's own factories, each
        wrapped only to note which registration a client came from. The
        case's factories (`declared`, as setup read them) must be exactly
        them (name, priority, fail_quietly, in order): what it expects is
        computed from its declaration, so a JAX whose registry differs is
        reported, not judged against another registry."""
        declared = [d[:3] for d in declared]
        stock = [(name, reg.priority, reg.fail_quietly)
                 for name, reg in self.stock]
        if declared != stock:
            raise RuntimeError(
                "installed registry: the case declares the factories %s, "
                "this JAX registers %s" % (declared, stock))
        xb = self.j.xb
        for name, reg in self.stock:
            xb.register_backend_factory(
                name, self._wrap_stock(name, reg.factory),
                priority=reg.priority, fail_quietly=reg.fail_quietly)

    def _wrap_stock(self, name, factory):
        def wrapped(*args, **kwargs):
            index = self._registration_index(name)
            client = factory(*args, **kwargs)
            if client is None:
                return None
            return InstalledClient(client, name, index)
        return wrapped

    # -- operations ----------------------------------------------------------

    def client_outcome(self, client):
        if isinstance(client, InstalledClient):
            return {"kind": "client", "origin": "registry",
                    "registration": client.registration,
                    "platform": client.real_platform}
        if not isinstance(client, FakeClient):
            raise TypeError("JAX returned %r, not one of the case's clients"
                            % (client,))
        return client_outcome(client)  # the example's form

    def value_outcome(self, value):
        if value is None:
            return {"kind": "none"}
        if isinstance(value, str):
            return {"kind": "string", "value": value}
        return self.client_outcome(value)

    def run_operation(self, op, index):
        xb = self.j.xb
        what = "operation %d" % index
        if not isinstance(op, dict):
            raise CaseFormatError("%s is not a JSON object" % what)
        kind = op.get("op")
        if kind == "backends":
            call = xb.backends
            wrap = lambda bs: {"kind": "platforms",  # noqa: E731
                               "value": repr(list(bs))}
        elif kind == "canonicalize":
            name = op.get("name")
            if not isinstance(name, str):
                raise CaseFormatError("%s: bad name" % what)
            call = lambda: xb.canonicalize_platform(name)  # noqa: E731
            wrap = self.value_outcome
        elif kind == "get_backend":
            platform = op.get("platform")
            if platform is not None and not isinstance(platform, str):
                raise CaseFormatError("%s: bad platform" % what)
            call = lambda: xb.get_backend(platform)  # noqa: E731
            wrap = self.value_outcome
        elif kind == "module_get_backend":
            platforms = _names(op, "platforms", what)
            backend = op.get("backend")
            optional = op.get("optional")
            if backend is not None and not isinstance(backend, str):
                raise CaseFormatError("%s: bad backend" % what)
            if not isinstance(optional, bool):
                raise CaseFormatError("%s: bad optional" % what)
            pinned = self.pinned_client(backend)
            # A real ModuleContext (platforms held as a tuple, as on the
            # normal lowering path) and JAX's own method.
            ctx = self.module_context(tuple(platforms), pinned)
            call = self.module_get_backend(ctx, optional)
            wrap = self.value_outcome
        elif kind == "register_lowering":
            call = self.lowering.register(op, what)
            wrap = self.value_outcome
        elif kind == "lower_per_platform":
            call = self.lowering.lower(op, what)
            wrap = lambda text: {"kind": "none", "mlir": text}  # noqa: E731
        else:
            raise CaseFormatError("%s: unknown op %r" % (what, kind))

        try:
            value = call()
        except Exception as err:
            outcome = {"kind": "raise", "class": type(err).__name__,
                       "message": str(err)}
        else:
            outcome = wrap(value)
        if self.problems:
            raise RuntimeError("; ".join(self.problems))
        return outcome

    def run_case(self, case):
        self.lowering = None
        try:
            self.setup(case)
            ops = case.get("operations")
            if not isinstance(ops, list):
                raise CaseFormatError("case: 'operations' is not a list")
            self.lowering = Lowering(self, case)
            return {"outcomes": [self.run_operation(op, i)
                                 for i, op in enumerate(ops)]}
        except Unsupported as err:
            return {"error": "unsupported: %s" % err}
        except Exception as err:
            return {"error": "adapter: %s: %s" % (type(err).__name__, err)}
        finally:
            if self.lowering is not None:
                self.lowering.close()
                self.lowering = None


# ---------------------------------------------------------------------------
# The protocol loop
# ---------------------------------------------------------------------------

def refuse_before_hello(stdin, error):
    """Reads lctx's hello and answers it with `error`; returns the exit
    status for a JAX the adapter cannot run."""
    try:
        hello = read_message(stdin)
    except ValueError:
        hello = None
    if hello is not None:
        refuse(error, EXIT_CANNOT_RUN)
    return EXIT_CANNOT_RUN


USAGE = ("usage: jax_adapter.py [%s] [%s] [%s ENTRY]   (ENTRY: a key of "
         "jaxlib_clients.CLIENTS, e.g. modelled)" % (PER_CASE_REFUSALS,
                                                     INSTALLED_REGISTRY,
                                                     CLIENTS_OPTION))


def parse_args(argv):
    """(per_case_refusals, clients entry name or None, installed), or None
    (logged)."""
    per_case, clients, installed = False, None, False
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == PER_CASE_REFUSALS:
            per_case = True
        elif arg == INSTALLED_REGISTRY:
            installed = True
        elif arg == CLIENTS_OPTION and args:
            clients = args.pop(0)
        else:
            log("bad argument %r; %s" % (arg, USAGE))
            return None
    return per_case, clients, installed


def main(argv):
    parsed = parse_args(argv)
    if parsed is None:
        return 2
    per_case, clients, installed = parsed
    stdin = sys.stdin.buffer
    j, why = import_jax()
    if j is None:
        return refuse_before_hello(stdin, "jax is not importable: %s" % why)
    # The fake clients follow the installed jaxlib's entry of the client
    # table; a release without one is refused, not guessed. --clients names
    # another entry explicitly (the version string then says so).
    try:
        if clients is not None:
            if clients not in jaxlib_clients.CLIENTS:
                raise jaxlib_clients.UnknownRelease(
                    "%s %r is not an entry of jaxlib_clients.CLIENTS (%s)"
                    % (CLIENTS_OPTION, clients,
                       ", ".join(jaxlib_clients.CLIENTS)))
            entry = jaxlib_clients.CLIENTS[clients]
            log("%s %s: the fake clients follow that entry, not the "
                "installed jaxlib %s's" % (CLIENTS_OPTION, clients,
                                           j.jaxlib_version))
        else:
            entry = jaxlib_clients.lookup(j.jaxlib_version)
    except jaxlib_clients.UnknownRelease as err:
        log(str(err))
        return refuse_before_hello(stdin,
                                   "no client entry for this jaxlib: %s" % err)
    log(jaxlib_clients.describe(entry))

    status = read_hello(stdin)
    if status is not None:
        return status
    if sys.flags.optimize:
        # JAX's own `assert`s (the registry without a default) are part of
        # the behaviour under test; -O removes them.
        return refuse("python3 runs with -O (or PYTHONOPTIMIZE), which "
                      "strips JAX's asserts; run the adapter without it",
                      EXIT_CANNOT_RUN)
    try:
        driver = Driver(j, entry, per_case, installed)
    except Exception as err:
        return refuse("cannot patch this JAX (%s): %s: %s"
                      % (j.version, type(err).__name__, err), EXIT_CANNOT_RUN)
    for note in driver.hardware_notes:
        log(note)
    caps = driver.caps
    for op in OPERATIONS:
        if op in caps.refused:
            log("%s unsupported: %s" % (op, caps.refused[op]))
    if caps.partial_module_get_backend:
        log("module_get_backend: optional=False through %s; a case asking "
            "for optional=True is answered unsupported: %s"
            % (caps.get_backend_form, caps.no_optional))
    # The version names the client entry in use (PROTOCOL.md's hello has no
    # field for it; it is logged above too).
    if installed:
        log("%s: the installed JAX's own factories: %s"
            % (INSTALLED_REGISTRY, ", ".join(
                "%s (priority %d%s)" % (n, r.priority,
                                        ", quiet" if r.fail_quietly else "")
                for n, r in driver.stock)))
    send({"protocol": PROTOCOL_VERSION, "name": ADAPTER_NAME,
          "version": "%s (jaxlib %s, clients %s%s)" % (
              j.version, j.jaxlib_version, entry.release,
              ", installed registry" if installed else ""),
          "operations": caps.operations})
    status = serve(stdin, driver.run_case)
    if driver.lowerings:
        log(driver.lowering_summary())
    return status


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (BrokenPipeError, KeyboardInterrupt):
        sys.exit(1)
