"""What the installed JAX release can drive (the JAX adapter): each
protocol operation through the release's own entry points, detected by
feature; an operation it cannot drive is left out of the handshake."""

import inspect

from .lowering import _accepted

OPERATIONS = ["backends", "canonicalize", "get_backend", "module_get_backend",
              "register_lowering", "lower_per_platform"]


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


