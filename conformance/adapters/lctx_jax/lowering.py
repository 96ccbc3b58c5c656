"""The JAX adapter's lowering: a case's rules as real Python lowering rules,
run by JAX's own machinery (register_lowering, _get_lowering_rules,
lower_per_platform, lower_fun on real ModuleContext and
LoweringRuleContext objects); the module of `lower_per_platform` from JAX
end to end where it can (jax_module.py)."""

import inspect

from . import jax_module
from .case_fields import CaseFormatError, _names, _objects


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
