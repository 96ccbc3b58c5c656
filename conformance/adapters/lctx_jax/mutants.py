"""The exporter's mutants of JAX (--mutate NAME): JAX broken on purpose so
that each judgement of the sweep can be seen to fail (export_main.py lists
them)."""

from .export_common import log


def mutate(j, names):
    """Applies the mutants (after every rule is registered)."""
    for name in names:
        if name == "dispatch-first":
            mutate_dispatch_first(j)
        elif name == "order-first":
            mutate_order_first(j)
        elif name == "declared-sorted":
            mutate_declared_sorted(j)
        elif name.startswith("get-backend="):
            mutate_get_backend(j, name[len("get-backend="):])
        elif name.startswith("host-read="):
            mutate_rules(j, "host-read", name[len("host-read="):],
                         lambda rule, prim: wrap_host_read(j, rule))
        elif name.startswith("raise-multi="):
            mutate_rules(j, "raise-multi", name[len("raise-multi="):],
                         wrap_raise_multi)


def mutate_dispatch_first(j):
    """lower_per_platform (mlir.py:2462) runs the first platform's rule for
    every platform."""
    mlir = j.mlir
    original = mlir.lower_per_platform

    def lower_per_platform(ctx, description, platform_rules, default_rule,
                           effects, *args, **kwargs):
        platforms = mlir._platforms_for_eqn(ctx)
        if platforms:
            first = platform_rules.get(platforms[0], default_rule)
            if first is not None:
                platform_rules, default_rule = {}, first
        return original(ctx, description, platform_rules, default_rule,
                        effects, *args, **kwargs)

    mlir.lower_per_platform = lower_per_platform


def mutate_order_first(j):
    """jax.export.export raises when platforms[0] is not the first in
    sorted order: an outcome that depends on the order."""
    export_module = j.jax.export
    original = export_module.export

    def export(fun_jit, *args, platforms=None, **kwargs):
        inner = original(fun_jit, *args, platforms=platforms, **kwargs)

        def do_export(*a, **k):
            if platforms and list(platforms)[0] != sorted(platforms)[0]:
                raise NotImplementedError("lctx mutant: order")
            return inner(*a, **k)
        return do_export

    export_module.export = export


def mutate_declared_sorted(j):
    """The Exported that jax.export.export returns declares its platforms
    in sorted order, not in the order asked (Exported.platforms, set at
    _export.py:644): a module that says it was lowered for other
    platforms, or in another order, than it was asked for."""
    import dataclasses
    export_module = j.jax.export
    original = export_module.export

    def export(fun_jit, *args, platforms=None, **kwargs):
        inner = original(fun_jit, *args, platforms=platforms, **kwargs)

        def do_export(*a, **k):
            exported = inner(*a, **k)
            return dataclasses.replace(
                exported, platforms=tuple(sorted(exported.platforms)))
        return do_export

    export_module.export = export


def mutate_get_backend(j, prim_name):
    """The lowering rules of the primitive named prim_name (common and
    per-platform) first call ctx.module_context.get_backend(), as a rule
    not adapted to multi-platform lowering does."""
    mutate_rules(j, "get-backend", prim_name,
                 lambda rule, prim: wrap_get_backend(rule))


def mutate_rules(j, option, prim_name, wrap):
    """Replaces each lowering rule (common and per-platform) of the
    primitive named prim_name by wrap(rule, prim_name).  The wrappers live
    here, outside the jax package: the census locates what they do at the
    first jax frame outside them, the line of lower_per_platform that
    calls the rule (mlir.py:2536 in 0.10.2)."""
    mlir = j.mlir
    tables = [mlir._lowerings] + list(mlir._platform_specific_lowerings
                                      .values())
    count = 0
    for table in tables:
        for prim, entry in list(table.items()):
            if prim.name != prim_name:
                continue
            table[prim] = type(entry)(wrap(entry.rule, prim_name),
                                      entry.inline)
            count += 1
    if not count:
        log("--mutate %s=%s: no lowering rule for a primitive of that name"
            % (option, prim_name))


def wrap_get_backend(rule):
    def unadapted_rule(ctx, *args, **kwargs):
        ctx.module_context.get_backend()
        return rule(ctx, *args, **kwargs)
    return unadapted_rule


def wrap_host_read(j, rule):
    """The rule first asks the host for its devices (jax.devices(), looked
    up when it runs: the census's wrapper records it as `host`), whatever
    the platforms being lowered for."""
    def host_reading_rule(ctx, *args, **kwargs):
        j.jax.devices()
        return rule(ctx, *args, **kwargs)
    return host_reading_rule


def wrap_raise_multi(rule, prim_name):
    """The rule refuses a module of several platforms with an exception
    JAX does not document for that (RuntimeError)."""
    message = "lctx mutant: %s refuses several platforms" % prim_name

    def multi_refusing_rule(ctx, *args, **kwargs):
        if len(ctx.module_context.platforms) > 1:
            raise RuntimeError(message)
        return rule(ctx, *args, **kwargs)
    return multi_refusing_rule


# ---------------------------------------------------------------------------
# Exporting
# ---------------------------------------------------------------------------

