"""The exporter's census: every backend look-up a lowering makes
(ModuleContext.get_backend calls, ModuleContext.backend reads, host
look-ups inside a rule), the primitives whose rules ran, and the
per-platform dispatches of generated programs, recorded while an export
runs without changing what JAX does."""

import functools
import os
import sys

from .export_common import (CORPUS_CODES, GENERATED_RULES, MAX_CENSUS,
                            MAX_DISPATCH, MAX_DISPATCH_RULES, PROGRAM_FILE,
                            corpus_location, jax_path)


class _InstanceSlot:
    """A stand-in for a slot descriptor over an instance's __dict__."""

    def __init__(self, key):
        self.key = key

    def __get__(self, obj, owner=None):
        return obj.__dict__.get(self.key)

    def __set__(self, obj, value):
        obj.__dict__[self.key] = value


class Census:
    """Instruments ModuleContext (jax/_src/interpreters/mlir.py:775-869 in
    0.10.2) without changing what it does:

    - ModuleContext.get_backend is wrapped: the call is recorded, then the
      original runs; what it gave (raise, None, a client) is recorded;
    - ModuleContext.backend (a slot of the dataclass) becomes a property
      over the original slot that records reads.  Reads made by get_backend
      itself and by the dataclass machinery (ModuleContext.replace copies
      every field through dataclasses.replace) are not look-ups by a rule
      and are not recorded;
    - mlir._uncached_lowering (mlir.py:2395, which every lowering rule runs
      under, cached or not) is wrapped to know the primitive being lowered;
    - the host look-ups jax.devices, jax.local_devices, jax.default_backend
      (jax/__init__.py re-exports them from xla_bridge) and
      xla_bridge.get_backend, devices, local_devices, default_backend
      (xla_bridge.py:969-1083) are wrapped: a call made while a lowering
      rule runs, not from get_backend nor from another of them, is recorded
      as `host`;
    - mlir.lower_per_platform (mlir.py:2462) is wrapped to record the
      dispatches of the generated programs' primitives (`dispatch`), and
      their rules (wrapped when a program is built, `wrap_generated`)
      record which ran for which platforms.

    With user roots (`facts`, a user_facts.UserFacts: the programs of a
    user catalogue or a discovered package), a look-up made from user code
    is located at the innermost user frame, with the rule and call site of
    the primitive being lowered; and a host look-up that user code itself
    makes while an export traces it (outside any rule) is recorded too,
    `primitive` null and `platforms` the number being exported
    (conformance/sweep/USER.md).

    Recording is on only while an export runs (`start`/`stop`)."""

    HOST_LOOKUPS = ("get_backend", "devices", "local_devices",
                    "default_backend")

    def __init__(self, j):
        self.j = j
        self.on = False
        self.entries = []
        self.dropped = 0
        self.reached = set()
        self.stack = []
        self.contexts = []
        self.in_get_backend = 0
        self.in_host = 0
        # Generated primitives being exported: JAX name -> name in the
        # description; their dispatches during the current export.
        self.generated = {}
        self.dispatches = []
        self.dispatch_stack = []
        self.dispatch_dropped = 0
        # User roots (user_facts.UserFacts) or None; the platforms of the
        # export running.
        self.facts = None
        self.platforms = ()
        self._install()

    def _install(self):
        mc = self.j.mlir.ModuleContext
        census = self
        original_get_backend = mc.get_backend
        slot = mc.__dict__.get("backend")
        if not hasattr(slot, "__set__"):
            # Older releases (0.8, 0.9): `backend` is a plain instance
            # attribute of a dataclass without slots; the property below
            # keeps it in the instance's __dict__ under another name.
            slot = _InstanceSlot("_lctx_census_backend")

        def get_backend(self, optional=False):
            if not census.on:
                return original_get_backend(self, optional)
            entry = census.record("get_backend", bool(optional), self,
                                  sys._getframe(1))
            census.in_get_backend += 1
            try:
                client = original_get_backend(self, optional)
            except BaseException:
                census.gave(entry, "raise")
                raise
            finally:
                census.in_get_backend -= 1
            census.gave(entry, "none" if client is None else "client")
            return client

        def read_backend(self):
            client = slot.__get__(self, mc)
            if census.on and not census.in_get_backend:
                caller = sys._getframe(1)
                name = os.path.basename(caller.f_code.co_filename)
                if name != "dataclasses.py" and caller.f_code.co_filename \
                        != "<string>":
                    entry = census.record("backend", None, self, caller)
                    census.gave(entry,
                                "none" if client is None else "client")
            return client

        def write_backend(self, client):
            slot.__set__(self, client)

        get_backend.__wrapped__ = original_get_backend
        mc.get_backend = get_backend
        mc.backend = property(read_backend, write_backend)

        original_uncached = self.j.mlir._uncached_lowering

        def uncached_lowering(primitive, *args, **kwargs):
            name = getattr(primitive, "name", str(primitive))
            if census.on:
                census.reached.add(name)
            # The LoweringRuleContext (6th argument in 0.10.2).
            ctx = next((a for a in args[:6] if hasattr(a, "module_context")),
                       None)
            census.stack.append(name)
            census.contexts.append(getattr(ctx, "module_context", None))
            try:
                return original_uncached(primitive, *args, **kwargs)
            finally:
                census.stack.pop()
                census.contexts.pop()

        self.j.mlir._uncached_lowering = uncached_lowering
        self._install_host()
        self._install_nested_export()
        self._install_dispatch()

    def _install_nested_export(self):
        """An export made while a rule lowers (a generated program's
        `export` statement, or call_exported tracing) is a lowering of its
        own: its machinery's host look-ups (device assignment) are not the
        enclosing rule's.  A None on the stack marks it; the rules it lowers
        push their names above."""
        census = self
        module = self.j.jax.export
        original = module.export

        def export(*args, **kwargs):
            do_export = original(*args, **kwargs)

            @functools.wraps(do_export)
            def nested(*a, **k):
                if not census.on or not census.stack:
                    return do_export(*a, **k)
                census.stack.append(None)
                try:
                    return do_export(*a, **k)
                finally:
                    census.stack.pop()
            return nested

        export.__wrapped__ = original
        module.export = export

    def _install_host(self):
        census = self
        xb, jax = self.j.xb, self.j.jax
        wrapped = {}

        def wrap(original):
            @functools.wraps(original)
            def host_lookup(*args, **kwargs):
                if not census.on or census.in_get_backend or census.in_host:
                    return original(*args, **kwargs)
                if not census.stack:
                    entry = census.record_trace(sys._getframe(1))
                    if entry is None:
                        return original(*args, **kwargs)
                elif census.stack[-1] is None:
                    return original(*args, **kwargs)
                else:
                    entry = census.record("host", None, census.contexts[-1],
                                          sys._getframe(1))
                census.in_host += 1
                try:
                    result = original(*args, **kwargs)
                except BaseException:
                    census.gave(entry, "raise")
                    raise
                finally:
                    census.in_host -= 1
                census.gave(entry, "client")
                return result
            return host_lookup

        for name in self.HOST_LOOKUPS:
            original = getattr(xb, name, None)
            if original is None:
                continue
            wrapped[id(original)] = wrap(original)
            setattr(xb, name, wrapped[id(original)])
        for name in ("devices", "local_devices", "default_backend"):
            original = getattr(jax, name, None)
            if original is None:
                continue
            if id(original) not in wrapped:
                wrapped[id(original)] = wrap(original)
            setattr(jax, name, wrapped[id(original)])

    def _install_dispatch(self):
        census = self
        mlir = self.j.mlir
        original = getattr(mlir, "lower_per_platform", None)
        if original is None:
            return

        def lower_per_platform(ctx, description, *args, **kwargs):
            name = census.generated.get(description)
            if name is None or not census.on:
                return original(ctx, description, *args, **kwargs)
            event = {"primitive": name,
                     "platforms": census.dispatch_platforms(ctx),
                     "rules": []}
            census.add_dispatch(event)
            census.dispatch_stack.append(event)
            try:
                lowered = original(ctx, description, *args, **kwargs)
            finally:
                census.dispatch_stack.pop()
            # Only a dispatch that completed lowered every kept rule; one
            # that raised part-way (a rule's refusal) is not reported.
            event["complete"] = True
            return lowered

        lower_per_platform.__wrapped__ = original
        mlir.lower_per_platform = lower_per_platform

    def dispatch_platforms(self, ctx):
        """The platforms a dispatch covers (mlir._platforms_for_eqn)."""
        try:
            return list(self.j.mlir._platforms_for_eqn(ctx))
        except Exception:
            return self.rule_platforms(ctx)

    @staticmethod
    def rule_platforms(ctx):
        """The platforms a rule lowers for: ctx.platforms when the
        LoweringRuleContext narrows them, else the module's."""
        platforms = getattr(ctx, "platforms", None)
        if not platforms:
            platforms = ctx.module_context.platforms
        return list(platforms)

    def add_dispatch(self, event):
        if len(self.dispatches) >= MAX_DISPATCH:
            self.dispatch_dropped += 1
            return
        self.dispatches.append(event)

    def rule_ran(self, primitive, rule, ctx):
        """A generated rule (`rule`: its platform or "default") of
        `primitive` (the description's name) runs."""
        if not self.on:
            return
        try:
            platforms = self.rule_platforms(ctx)
        except Exception:
            platforms = []
        entry = {"rule": rule, "platforms": platforms}
        top = self.dispatch_stack[-1] if self.dispatch_stack else None
        if top is not None and top["primitive"] == primitive:
            if len(top["rules"]) < MAX_DISPATCH_RULES:
                top["rules"].append(entry)
        else:
            # A rule run outside lower_per_platform (another JAX release).
            self.add_dispatch({"primitive": primitive,
                               "platforms": list(platforms),
                               "rules": [entry], "complete": True})

    def wrap_generated(self, built):
        """Registers a built generated program: its primitives' names, its
        rules' code (census locations) and, in JAX's lowering tables, each
        of its rules wrapped to record when it runs.  Returns what
        `unwrap_generated` needs to forget it."""
        mlir = self.j.mlir
        prims = {}
        for name, prim in built.primitives.items():
            self.generated[prim.name] = name
            prims[prim] = name
        effect_types = [v for v in built.namespace.values()
                        if isinstance(v, type) and v.__name__.startswith(
                            "Effect_")]
        rules = {}
        for prim_name, platform, line, fn in built.rules:
            rules[fn] = (prim_name, platform)
            GENERATED_RULES[fn.__code__] = line
        tables = [mlir._lowerings] + list(
            mlir._platform_specific_lowerings.values())
        for table in tables:
            for prim in list(table):
                if prim not in prims:
                    continue
                entry = table[prim]
                rule = getattr(entry, "rule", entry)
                if rule not in rules:
                    continue
                recorded = self.recording(rule, *rules[rule])
                table[prim] = (type(entry)(recorded, entry.inline)
                               if hasattr(entry, "rule") else recorded)
        return prims, [fn.__code__ for fn in rules], effect_types

    def recording(self, rule, primitive, platform):
        census = self

        def lctx_recorded_rule(ctx, *args, **kwargs):
            census.rule_ran(primitive, platform, ctx)
            return rule(ctx, *args, **kwargs)
        return lctx_recorded_rule

    def unwrap_generated(self, registered):
        """Forgets a generated program: its rules leave JAX's lowering
        tables (its primitives are never bound again)."""
        prims, codes, effect_types = registered
        mlir = self.j.mlir
        for table in [mlir._lowerings] + list(
                mlir._platform_specific_lowerings.values()):
            for prim in prims:
                table.pop(prim, None)
        uncacheable = getattr(mlir, "_uncacheable_primitives", None)
        for prim, name in prims.items():
            if uncacheable is not None:
                uncacheable.discard(prim)
            self.generated.pop(prim.name, None)
        for code in codes:
            GENERATED_RULES.pop(code, None)
        # The program's effect types leave JAX's effect type sets
        # (jax/_src/effects.py:94-130, a set `_effect_types` in each).
        try:
            from jax._src import effects
        except Exception:
            return
        for value in vars(effects).values():
            kinds = getattr(value, "_effect_types", None)
            if isinstance(kinds, set):
                for t in effect_types:
                    kinds.discard(t)

    def start(self, platforms=()):
        self.entries, self.dropped = [], 0
        self.platforms = tuple(platforms)
        self.reached = set()
        self.dispatches, self.dispatch_stack = [], []
        self.dispatch_dropped = 0
        self.on = True

    def quiet(self):
        """Whether nothing was recorded since `start`: no census entry, no
        rule run, no dispatch (nor any dropped)."""
        return not (self.entries or self.dropped or self.reached
                    or self.dispatches or self.dispatch_dropped)

    def dispatch(self):
        """The dispatches of the generated primitives during the last
        export: those in which a rule ran (a dispatch that raised before
        any rule ran has none)."""
        return [{k: v for k, v in d.items() if k != "complete"}
                for d in self.dispatches if d["rules"] and d.get("complete")]

    def stop(self):
        self.on = False
        entries = list(self.entries)
        if self.dropped:
            entries.append({"what": "truncated", "optional": None,
                            "gave": None, "file": None, "line": 0,
                            "primitive": None, "platforms": 0,
                            "dropped": self.dropped})
        return entries, sorted(self.reached)

    def record(self, what, optional, module_context, frame):
        """A census entry for a look-up made from `frame` (None once the
        census is full)."""
        if len(self.entries) >= MAX_CENSUS:
            self.dropped += 1
            return None
        extras = {}
        place = (self.facts.census_place(frame, self.platforms)
                 if self.facts is not None else None)
        if place is not None:
            where, line, extras = place
        else:
            where, line = self.locate(frame)
        try:
            platforms = len(module_context.platforms)
        except Exception:
            platforms = 0
        entry = {"what": what, "optional": optional, "gave": None,
                 "file": where, "line": line,
                 "primitive": self.stack[-1] if self.stack else None,
                 "platforms": platforms}
        entry.update(extras)
        self.entries.append(entry)
        return entry

    def record_trace(self, frame):
        """A census entry for a host look-up made while no rule runs (the
        export tracing the program), recorded only when user code itself
        made it (`frame`, its caller, is user code); else None."""
        if self.facts is None:
            return None
        place = self.facts.trace_caller(frame)
        if place is None:
            return None
        if len(self.entries) >= MAX_CENSUS:
            self.dropped += 1
            return None
        entry = {"what": "host", "optional": None, "gave": None,
                 "file": place[0], "line": place[1], "primitive": None,
                 "platforms": len(self.platforms)}
        self.entries.append(entry)
        return entry

    @staticmethod
    def gave(entry, what):
        if entry is not None:
            entry["gave"] = what

    def locate(self, frame):
        """The caller: the innermost frame that is a corpus rule
        ("lctx:corpus/rules/STEM.rule" and the action's line there), a
        generated program's rule ("lctx-program" and the rule's line in the
        description) or lies in the jax package (not
        ModuleContext.get_backend itself)."""
        while frame is not None:
            code = frame.f_code
            if code in CORPUS_CODES:
                return corpus_location(frame)
            if code in GENERATED_RULES:
                return PROGRAM_FILE, GENERATED_RULES[code]
            path = jax_path(self.j, code.co_filename)
            if path is not None and not (
                    code.co_name == "get_backend"
                    and path.endswith("interpreters/mlir.py")):
                return path, frame.f_lineno
            frame = frame.f_back
        return None, 0


