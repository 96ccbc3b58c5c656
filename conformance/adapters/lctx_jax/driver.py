"""The JAX adapter's driver: installs its patches into JAX once, then puts
each case's registry in place (its factories, config values and NVIDIA GPU
visibility), runs its operations through JAX's own functions and answers
what JAX returned or raised."""

import contextlib
import itertools
import logging

from .capabilities import Capabilities
from .case_fields import (CaseFormatError, Unsupported, _names, _objects,
                          _str_or_unset)
from .fake_clients import FakeClient, InstalledClient, fake_client_class
from .lowering import Lowering, _accepted, _kwargs_for
from .protocol import client_outcome

# Lowerings built in one MLIR context before it is made anew.
RECYCLE_LOWERINGS = 1000


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


