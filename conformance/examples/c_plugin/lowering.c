/*
 * lowering.c - part of the example plugin (overview: lctx_example_plugin.c):
 * lowering one equation (ABI v2): rule selection, lower_per_platform,
 * nested lower_fun lowerings, and the module's MLIR text.
 */
#include "plugin.h"

#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// 7. Lowering one equation (ABI v2; semantics.md section 7) and its MLIR
//===----------------------------------------------------------------------===//

/// A sequence of platform names (not owned).
typedef struct platform_list {
  const char *const *items;
  size_t count;
} platform_list;

/// ModuleContext: the platforms a module lowers for and the pinned client's
/// real platform (NULL for none).
typedef struct module_context {
  platform_list platforms;
  const char *backend;
  /// The platforms are a Python list: narrowed platforms put in place by
  /// lower_fun (the module's own are a tuple). Only the IndexError of zero
  /// platforms tells them apart.
  bool platforms_are_list;
} module_context;

/// LoweringRuleContext: its module context, the narrowed platforms (None
/// unless `narrowed`), and the equation's compute type (NULL for none).
typedef struct rule_context {
  module_context module;
  bool narrowed;
  platform_list platforms;
  const char *compute_type;
} rule_context;

static const char *const only_cpu[] = {"cpu"};
static const char *const only_tpu[] = {"tpu"};

/// `_platforms_for_eqn_ctx`: the platforms a compute type forces, or an
/// empty list.
static platform_list compute_type_platforms(const char *compute_type) {
  if (compute_type != NULL && strcmp(compute_type, "device_host") == 0)
    return (platform_list){only_cpu, 1};
  if (compute_type != NULL && strcmp(compute_type, "tpu_sparsecore") == 0)
    return (platform_list){only_tpu, 1};
  return (platform_list){NULL, 0};
}

/// `_platforms_for_eqn(ctx)`: the compute type's platforms, else the
/// narrowed platforms if non-empty, else the module platforms.
static platform_list platforms_for_eqn(const rule_context *ctx) {
  platform_list forced = compute_type_platforms(ctx->compute_type);
  if (forced.count > 0)
    return forced;
  if (ctx->narrowed && ctx->platforms.count > 0)
    return ctx->platforms;
  return ctx->module.platforms;
}

static bool list_contains(platform_list list, const char *platform) {
  for (size_t i = 0; i < list.count; i++)
    if (strcmp(list.items[i], platform) == 0)
      return true;
  return false;
}

/// A growing text buffer for the module, bounded by `limit` bytes (the
/// caller's capacity less the NUL). Past it, `overflow` is set and nothing
/// more is kept.
typedef struct text_buffer {
  char *data;
  size_t length;
  size_t capacity;
  size_t limit;
  bool overflow;
  bool out_of_memory;
} text_buffer;

static void text_append_bytes(text_buffer *b, const char *s, size_t n) {
  if (b->overflow || b->out_of_memory)
    return;
  if (n > b->limit - b->length) {
    b->overflow = true;
    return;
  }
  if (b->length + n + 1 > b->capacity) {
    size_t capacity = b->capacity > 0 ? b->capacity : 4096;
    while (capacity < b->length + n + 1)
      capacity *= 2;
    char *grown = realloc(b->data, capacity);
    if (grown == NULL) {
      b->out_of_memory = true;
      return;
    }
    b->data = grown;
    b->capacity = capacity;
  }
  memcpy(b->data + b->length, s, n);
  b->length += n;
  b->data[b->length] = '\0';
}

static void text_append(text_buffer *b, const char *s) {
  text_append_bytes(b, s, strlen(s));
}

static void text_append_number(text_buffer *b, size_t value) {
  char digits[24];
  size_t n = sizeof digits;
  do {
    digits[--n] = (char)('0' + value % 10);
    value /= 10;
  } while (value > 0);
  text_append_bytes(b, digits + n, sizeof digits - n);
}

/// Appends an MLIR string literal: `"` and `\`, control bytes and 0x7f as
/// `\XX` escapes (which MLIR decodes), other bytes raw.
static void text_append_string_literal(text_buffer *b, const char *s) {
  static const char hex[] = "0123456789ABCDEF";
  text_append(b, "\"");
  for (const char *c = s; *c != '\0'; c++) {
    unsigned char byte = (unsigned char)*c;
    if (byte == '"' || byte == '\\' || byte < 0x20 || byte >= 0x7f) {
      char escaped[3] = {'\\', hex[byte >> 4], hex[byte & 0xf]};
      text_append_bytes(b, escaped, 3);
    } else {
      text_append_bytes(b, c, 1);
    }
  }
  text_append(b, "\"");
}

/// How deep lower_fun may nest, and how many rule actions one lowering may
/// run, before the plugin gives up (status 1): a guard against cyclic or
/// exploding rule graphs, which lctx's cases do not contain.
#define MAX_LOWERING_DEPTH 64
#define MAX_LOWERING_STEPS 1000000

/// What a step of the lowering did.
typedef enum step_result {
  STEP_OK,     ///< went on normally
  STEP_RAISED, ///< raised: the exception is in the outcome
  STEP_FAILED, ///< could not run (out of memory, bounds): status 1
} step_result;

/// The state of one lower_per_platform operation.
typedef struct lowering_run {
  session *s;
  const lctx_impl_lowering *lowering;
  lctx_impl_outcome *out;
  bool has_platform_index; ///< the module lowers for several platforms
  bool emit;               ///< MLIR text wanted
  text_buffer ir;
  size_t next_value; ///< SSA values %0, %1, ...
  size_t indent;     ///< nesting of the op being emitted
  size_t depth;      ///< lower_fun nesting
  size_t steps;      ///< rule actions run
} lowering_run;

static void emit_indent(lowering_run *run) {
  for (size_t i = 0; i < run->indent; i++)
    text_append(&run->ir, "  ");
}

/// Emits `"lctx.marker"() {platforms = [...], primitive = "...", rule =
/// "..."} : () -> ()`, attributes in MLIR's (sorted) order.
static void emit_marker(lowering_run *run, const char *primitive,
                        const char *rule, platform_list platforms) {
  if (!run->emit)
    return;
  emit_indent(run);
  text_append(&run->ir, "\"lctx.marker\"() {platforms = [");
  for (size_t i = 0; i < platforms.count; i++) {
    if (i > 0)
      text_append(&run->ir, ", ");
    text_append_string_literal(&run->ir, platforms.items[i]);
  }
  text_append(&run->ir, "], primitive = ");
  text_append_string_literal(&run->ir, primitive);
  text_append(&run->ir, ", rule = ");
  text_append_string_literal(&run->ir, rule);
  text_append(&run->ir, "} : () -> ()\n");
}

static step_result lower_equation(lowering_run *run, module_context module,
                                  bool narrowed, platform_list narrow,
                                  const char *primitive,
                                  const char *compute_type);

/// A get_backend call of a rule body, on the rule context's module context.
/// A raise stays in the outcome and aborts the lowering.
static step_result rule_get_backend(lowering_run *run, const rule_context *ctx,
                                    bool optional) {
  module_get_backend_into(
      run->s, ctx->module.platforms.items, ctx->module.platforms.count,
      ctx->module.backend, optional,
      ctx->module.platforms_are_list ? "list index out of range"
                                     : "tuple index out of range",
      run->out);
  if (outcome_status(run->out) != 0)
    return STEP_FAILED;
  return run->out->kind == LCTX_IMPL_RAISE ? STEP_RAISED : STEP_OK;
}

/// Runs the body of rule `rule_index` for an equation of `primitive` with
/// the rule context `ctx`.
static step_result call_rule(lowering_run *run, const rule_context *ctx,
                             size_t rule_index, const char *primitive) {
  const lctx_impl_rule *rule = &run->s->config->rules[rule_index];
  for (size_t a = 0; a < rule->action_count; a++) {
    if (++run->steps > MAX_LOWERING_STEPS)
      return STEP_FAILED;
    const lctx_impl_action *act = &rule->actions[a];
    size_t module_platforms = ctx->module.platforms.count;
    step_result r = STEP_OK;
    switch (act->kind) {
    case LCTX_IMPL_ACTION_GET_BACKEND:
      r = rule_get_backend(run, ctx, act->optional != 0);
      break;
    case LCTX_IMPL_ACTION_GUARDED_GET_BACKEND:
      if (module_platforms <= 1)
        r = rule_get_backend(run, ctx, act->optional != 0);
      break;
    case LCTX_IMPL_ACTION_TRY_FALLBACK_GET_BACKEND:
      r = rule_get_backend(run, ctx, false);
      if (r == STEP_RAISED &&
          run->out->error_class == LCTX_IMPL_NOT_IMPLEMENTED_ERROR)
        r = rule_get_backend(run, ctx, true);
      break;
    case LCTX_IMPL_ACTION_RAISE_IF_MULTI:
      if (module_platforms > 1) {
        raise_error(run->out, LCTX_IMPL_NOT_IMPLEMENTED_ERROR, act->text);
        r = outcome_status(run->out) != 0 ? STEP_FAILED : STEP_RAISED;
      }
      break;
    case LCTX_IMPL_ACTION_READ_CLIENT_PLATFORM:
      // The rule reads `.platform` only of a client it got (None is
      // handled by the rule), so only the call itself is observable.
      r = rule_get_backend(run, ctx, true);
      break;
    case LCTX_IMPL_ACTION_LOWER_FUN: {
      // lower_fun: the module context with its platforms replaced by the
      // rule context's narrowed ones (when narrowed); the new equation's
      // rule context is not narrowed.
      module_context sub = ctx->module;
      if (ctx->narrowed)
        sub.platforms = ctx->platforms;
      sub.platforms_are_list |= ctx->narrowed; // narrowed ones are lists
      // jaxpr_subcomp: `assert "gpu" not in ctx.platforms`.
      if (list_contains(sub.platforms, "gpu")) {
        raise_error(run->out, LCTX_IMPL_ASSERTION_ERROR, "");
        r = outcome_status(run->out) != 0 ? STEP_FAILED : STEP_RAISED;
        break;
      }
      // The rule runs inside its equation's context manager, so the traced
      // equation takes the outer compute type unless the action sets one.
      r = lower_equation(run, sub, false, (platform_list){NULL, 0}, act->text,
                         act->compute_type != NULL ? act->compute_type
                                                   : ctx->compute_type);
      break;
    }
    case LCTX_IMPL_ACTION_EMIT_MARKER:
      emit_marker(run, primitive, rule->name, platforms_for_eqn(ctx));
      break;
    default:
      return STEP_FAILED;
    }
    if (r != STEP_OK)
      return r;
  }
  return STEP_OK;
}

/// One platform-specific rule of `platform_rules`.
typedef struct platform_rule {
  const char *platform;
  size_t rule;
} platform_rule;

static const char *string_at(const void *items, size_t i) {
  return ((const char *const *)items)[i];
}

/// Emits the two nested `stablehlo.case` ops of a dispatch, in generic form,
/// and lowers each kept rule in its branch. `entries` is the platform list,
/// `slots[i]` the kept-rule slot of entry i, `kept` the rules with their
/// narrowed platform lists.
static step_result emit_dispatch(lowering_run *run, const rule_context *ctx,
                                 const char *primitive, platform_list entries,
                                 const size_t *slots, const size_t *kept,
                                 const platform_list *kept_platforms,
                                 size_t kept_count) {
  text_buffer *ir = &run->ir;
  // The platform index is always dimension variable 0, i.e. %arg0 of the
  // function, also inside nested lowerings (JAX's defect: never remapped to
  // a narrowed list). Converted to i32 when it is not i32.
  size_t index = 0;
  bool index_is_arg = true;
  if (run->emit && run->lowering->x64) {
    index = run->next_value++;
    index_is_arg = false;
    emit_indent(run);
    text_append(ir, "%");
    text_append_number(ir, index);
    text_append(ir, " = \"stablehlo.convert\"(%arg0) : (i64) -> i32\n");
  }

  size_t slot_value = run->next_value++;
  if (run->emit) {
    emit_indent(run);
    text_append(ir, "%");
    text_append_number(ir, slot_value);
    text_append(ir, " = \"stablehlo.case\"(");
    if (index_is_arg) {
      text_append(ir, "%arg0");
    } else {
      text_append(ir, "%");
      text_append_number(ir, index);
    }
    text_append(ir, ") ({\n");
    for (size_t i = 0; i < entries.count; i++) {
      if (i > 0) {
        emit_indent(run);
        text_append(ir, "}, {\n");
      }
      size_t constant = run->next_value++;
      run->indent++;
      emit_indent(run);
      text_append(ir, "%");
      text_append_number(ir, constant);
      text_append(ir, " = arith.constant ");
      text_append_number(ir, slots[i]);
      text_append(ir, " : i32\n");
      emit_indent(run);
      text_append(ir, "\"stablehlo.return\"(%");
      text_append_number(ir, constant);
      text_append(ir, ") : (i32) -> ()\n");
      run->indent--;
    }
    emit_indent(run);
    text_append(ir, "}) : (i32) -> i32\n");

    emit_indent(run);
    text_append(ir, "\"stablehlo.case\"(%");
    text_append_number(ir, slot_value);
    text_append(ir, ") ({\n");
  }
  for (size_t k = 0; k < kept_count; k++) {
    if (run->emit && k > 0) {
      emit_indent(run);
      text_append(ir, "}, {\n");
    }
    rule_context inner = *ctx;
    inner.narrowed = true;
    inner.platforms = kept_platforms[k];
    run->indent++;
    step_result r = call_rule(run, &inner, kept[k], primitive);
    if (r != STEP_OK)
      return r;
    if (run->emit) {
      emit_indent(run);
      text_append(ir, "\"stablehlo.return\"() : () -> ()\n");
    }
    run->indent--;
  }
  if (run->emit) {
    emit_indent(run);
    text_append(ir, "}) : (i32) -> ()\n");
  }
  return STEP_OK;
}

/// Appends `p` to `list` unless it holds it already.
static void add_unique(const char **list, size_t *count, const char *p) {
  for (size_t i = 0; i < *count; i++)
    if (strcmp(list[i], p) == 0)
      return;
  list[(*count)++] = p;
}

/// The working arrays of lower_per_platform: the kept rules (at most one
/// per platform rule, plus the default slot) with the narrowed platform
/// list of each, the kept-rule slot of each entry, and the entries without
/// a specific rule (in order, and each once).
typedef struct kept_rules {
  size_t *rules;
  const char **platform; ///< the platform of each specific kept rule
  platform_list *platforms;
  size_t count;
  size_t *slots;
  const char **missing;
  size_t missing_count;
  const char **missing_unique;
  size_t missing_unique_count;
} kept_rules;

static void kept_free(kept_rules *k) {
  free(k->rules);
  free(k->platform);
  free(k->platforms);
  free(k->slots);
  free(k->missing);
  free(k->missing_unique);
}

/// Allocates the arrays for `rule_count` platform rules and `entry_count`
/// entries. Returns false when out of memory (kept_free still applies).
static bool kept_alloc(kept_rules *k, size_t rule_count, size_t entry_count) {
  size_t room = rule_count + 1;
  size_t entry_room = entry_count > 0 ? entry_count : 1;
  *k = (kept_rules){0};
  k->rules = malloc(room * sizeof *k->rules);
  k->platform = malloc(room * sizeof *k->platform);
  k->platforms = malloc(room * sizeof *k->platforms);
  k->slots = malloc(entry_room * sizeof *k->slots);
  k->missing = malloc(entry_room * sizeof *k->missing);
  k->missing_unique = malloc(entry_room * sizeof *k->missing_unique);
  return k->rules != NULL && k->platform != NULL && k->platforms != NULL &&
         k->slots != NULL && k->missing != NULL && k->missing_unique != NULL;
}

/// Steps 2 and 3 of lower_per_platform: the kept rules are the platform
/// rules whose platform is in the list, in the order of platform_rules;
/// entries without a specific rule share the next slot (the default's).
static void keep_rules(kept_rules *k, platform_list platforms,
                       const platform_rule *platform_rules,
                       size_t platform_rule_count) {
  for (size_t i = 0; i < platform_rule_count; i++) {
    if (!list_contains(platforms, platform_rules[i].platform))
      continue;
    k->rules[k->count] = platform_rules[i].rule;
    k->platform[k->count] = platform_rules[i].platform;
    k->platforms[k->count] = (platform_list){&k->platform[k->count], 1};
    k->count++;
  }
  size_t specific_count = k->count;
  for (size_t i = 0; i < platforms.count; i++) {
    const char *p = platforms.items[i];
    bool has_slot = false;
    for (size_t j = 0; j < specific_count; j++) {
      if (strcmp(k->platform[j], p) == 0) {
        k->slots[i] = j;
        has_slot = true;
      }
    }
    if (has_slot)
      continue;
    k->slots[i] = specific_count;
    k->missing[k->missing_count++] = p;
    add_unique(k->missing_unique, &k->missing_unique_count, p);
  }
}

/// JAX's `lower_per_platform(ctx, description, platform_rules,
/// default_rule)` (`default_rule` -1 for None).
static step_result
lower_per_platform(lowering_run *run, const rule_context *ctx,
                   const char *description, const platform_rule *platform_rules,
                   size_t platform_rule_count, ptrdiff_t default_rule) {
  lctx_impl_outcome *out = run->out;
  platform_list platforms = platforms_for_eqn(ctx);

  // 1. One entry with neither a specific rule nor a default.
  if (platforms.count == 1 && default_rule < 0) {
    bool specific = false;
    for (size_t i = 0; i < platform_rule_count; i++)
      if (strcmp(platform_rules[i].platform, platforms.items[0]) == 0)
        specific = true;
    if (!specific) {
      raise_error(out, LCTX_IMPL_NOT_IMPLEMENTED_ERROR,
                  "MLIR translation rule for primitive '");
      append(out, description);
      append(out, "' not found for platform ");
      append(out, platforms.items[0]);
      return outcome_status(out) != 0 ? STEP_FAILED : STEP_RAISED;
    }
  }

  kept_rules k;
  step_result result = STEP_FAILED;
  if (!kept_alloc(&k, platform_rule_count, platforms.count))
    goto done;
  // 2. and 3. Kept rules; entries without a specific rule share the
  // default slot.
  keep_rules(&k, platforms, platform_rules, platform_rule_count);
  if (k.missing_count > 0) {
    if (default_rule < 0) {
      raise_error(out, LCTX_IMPL_NOT_IMPLEMENTED_ERROR,
                  "MLIR translation rule for primitive '");
      append(out, description);
      append(out, "' not found for platforms ");
      append_list_repr(out, k.missing, k.missing_count, string_at);
      result = outcome_status(out) != 0 ? STEP_FAILED : STEP_RAISED;
      goto done;
    }
    k.rules[k.count] = (size_t)default_rule;
    k.platforms[k.count] =
        (platform_list){k.missing_unique, k.missing_unique_count};
    k.count++;
  }

  // 4. No platforms at all.
  if (k.count == 0) {
    raise_error(out, LCTX_IMPL_ASSERTION_ERROR, "");
    result = STEP_RAISED;
    goto done;
  }
  // 5. One kept rule: called directly with the context as passed in.
  if (k.count == 1) {
    result = call_rule(run, ctx, k.rules[0], description);
    goto done;
  }
  // 6. Several kept rules need the platform index.
  if (!run->has_platform_index) {
    raise_error(out, LCTX_IMPL_ASSERTION_ERROR,
                "Must have a platform_index variable");
    result = STEP_RAISED;
    goto done;
  }
  // 7. The two case ops.
  result = emit_dispatch(run, ctx, description, platforms, k.slots, k.rules,
                         k.platforms, k.count);

done:
  kept_free(&k);
  return result;
}

/// Lowers one equation of `primitive` (jaxpr_subcomp): rule selection
/// (`_get_lowering_rules`), then lower_per_platform.
static step_result lower_equation(lowering_run *run, module_context module,
                                  bool narrowed, platform_list narrow,
                                  const char *primitive,
                                  const char *compute_type) {
  if (run->depth >= MAX_LOWERING_DEPTH)
    return STEP_FAILED;
  rule_context ctx = {module, narrowed, narrow, compute_type};

  // Rule lookup uses the compute type's platforms, else the module
  // platforms (never the narrowed ones); duplicates give one entry.
  platform_list lookup = compute_type_platforms(compute_type);
  if (lookup.count == 0)
    lookup = module.platforms;
  platform_rule *platform_rules =
      malloc((lookup.count > 0 ? lookup.count : 1) * sizeof *platform_rules);
  if (platform_rules == NULL)
    return STEP_FAILED;
  size_t platform_rule_count = 0;
  ptrdiff_t default_rule;

  const char *override = run->lowering->override_rule;
  if (override != NULL && strcmp(primitive, run->lowering->primitive) == 0) {
    // An override rule is the default rule; no platform rule is consulted.
    default_rule = find_rule(run->s, override);
    if (default_rule < 0) {
      free(platform_rules);
      return STEP_FAILED;
    }
  } else {
    for (size_t i = 0; i < lookup.count; i++) {
      const char *p = lookup.items[i];
      bool seen = false;
      for (size_t j = 0; j < platform_rule_count; j++)
        if (strcmp(platform_rules[j].platform, p) == 0)
          seen = true;
      ptrdiff_t rule = seen ? -1 : find_lowering(run->s, primitive, p);
      if (rule >= 0)
        platform_rules[platform_rule_count++] =
            (platform_rule){p, (size_t)rule};
    }
    default_rule = find_lowering(run->s, primitive, NULL);
  }

  run->depth++;
  step_result r = lower_per_platform(run, &ctx, primitive, platform_rules,
                                     platform_rule_count, default_rule);
  run->depth--;
  free(platform_rules);
  return r;
}

/// Lowers one equation of `lowering->primitive` in a module lowered for
/// `lowering->platforms`, and on success writes the module's MLIR text.
lctx_impl_status op_lower_per_platform(void *opaque,
                                       const lctx_impl_lowering *lowering,
                                       lctx_impl_outcome *out, char *mlir,
                                       size_t mlir_capacity,
                                       size_t *mlir_length) {
  session *s = opaque;
  outcome_reset(out);
  if (mlir_length != NULL)
    *mlir_length = 0;
  if (mlir != NULL && mlir_capacity > 0)
    mlir[0] = '\0';
  if (lowering == NULL || lowering->primitive == NULL ||
      (lowering->platform_count > 0 && lowering->platforms == NULL) ||
      (lowering->narrow_count > 0 && lowering->narrow == NULL))
    return 1;

  lowering_run run = {
      .s = s,
      .lowering = lowering,
      .out = out,
      .has_platform_index = lowering->platform_count > 1,
      .emit = mlir != NULL && mlir_capacity > 0 && mlir_length != NULL,
      .ir = {.limit = mlir_capacity > 0 ? mlir_capacity - 1 : 0},
      .indent = 2,
  };
  module_context module = {{lowering->platforms, lowering->platform_count},
                           lowering->backend,
                           false};
  // The equation's rule context is narrowed (`ctx.platforms is not None`)
  // when `narrow` is given, even empty: an empty list reads as not narrowed
  // for the equation's own platforms, but lower_fun still replaces the
  // module platforms with it.
  platform_list narrow = {lowering->narrow, lowering->narrow_count};
  step_result r = lower_equation(&run, module, lowering->narrow != NULL, narrow,
                                 lowering->primitive, lowering->compute_type);

  lctx_impl_status status = 0;
  if (r == STEP_FAILED) {
    status = 1;
  } else if (r == STEP_OK) {
    outcome_reset(out); // scratch get_backend results are not the outcome
    if (run.emit) {
      // The module: @main takes the platform index as argument 0 exactly
      // when it lowers for several platforms.
      text_buffer module_text = {.limit = run.ir.limit};
      text_append(&module_text, "module");
      if (run.has_platform_index)
        text_append(&module_text,
                    " attributes {jax.uses_shape_polymorphism = true}");
      text_append(&module_text, " {\n  func.func @main(");
      if (run.has_platform_index) {
        text_append(&module_text, lowering->x64 ? "%arg0: i64" : "%arg0: i32");
        text_append(&module_text,
                    " {jax.global_constant = \"_platform_index\"}");
      }
      text_append(&module_text, ") {\n");
      if (run.ir.length > 0)
        text_append_bytes(&module_text, run.ir.data, run.ir.length);
      text_append(&module_text, "    return\n  }\n}\n");
      if (run.ir.overflow || run.ir.out_of_memory || module_text.overflow ||
          module_text.out_of_memory) {
        status = 1;
      } else {
        memcpy(mlir, module_text.data, module_text.length + 1);
        *mlir_length = module_text.length;
      }
      free(module_text.data);
    }
  } else {
    status = outcome_status(out);
  }
  free(run.ir.data);
  return status;
}
