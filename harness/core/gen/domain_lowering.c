/*
 * domain_lowering.c - the lowering sub-domain and random lowering scenarios
 * (see domain_lowering.h).
 */
#include "domain_lowering.h"

#include <string.h>

/* Alphabet indexes of the names the lowering part uses. */
enum { A_CPU = 0, A_CUDA = 1, A_ROCM = 2, A_TPU = 4, A_GPU = 5 };

/* Declares rule `name` with one action (or none when `kind` < 0). Only the
 * fields the action's kind uses are set (case.h: the others stay zero), so
 * the case prints and parses back to itself. */
static void add_rule(lctx_case *c, const char *name, int kind, bool optional,
                     const char *text, const char *compute) {
  lctx_case_rule *r = &c->rules[c->rule_count++];
  memset(r, 0, sizeof *r);
  lctx_domain_set_text(r->name, sizeof r->name, name);
  if (kind < 0)
    return;
  lctx_case_action *a = &r->actions[0];
  r->action_count = 1;
  a->kind = (lctx_lowering_action_kind)kind;
  if (kind == LCTX_ACTION_GET_BACKEND ||
      kind == LCTX_ACTION_GUARDED_GET_BACKEND)
    a->optional = optional;
  if ((kind == LCTX_ACTION_RAISE_IF_MULTI || kind == LCTX_ACTION_LOWER_FUN) &&
      text)
    lctx_domain_set_text(a->text, sizeof a->text, text);
  if (kind == LCTX_ACTION_LOWER_FUN && compute) {
    a->has_compute_type = true;
    lctx_domain_set_text(a->compute_type, sizeof a->compute_type, compute);
  }
}

static void add_register(lctx_case *c, const char *prim, const char *rule,
                         const char *platform) {
  lctx_case_op *op = &c->ops[c->op_count++];
  lctx_domain_clear_op(op, LCTX_OP_REGISTER_LOWERING);
  lctx_domain_set_text(op->primitive, sizeof op->primitive, prim);
  lctx_domain_set_text(op->rule, sizeof op->rule, rule);
  op->has_arg = platform != NULL;
  lctx_domain_set_text(op->arg, sizeof op->arg, platform ? platform : "");
}

static lctx_case_op *add_lower(lctx_case *c, const char *prim) {
  lctx_case_op *op = &c->ops[c->op_count++];
  lctx_domain_clear_op(op, LCTX_OP_LOWER_PER_PLATFORM);
  lctx_domain_set_text(op->primitive, sizeof op->primitive, prim);
  return op;
}

static void set_list(lctx_domain_walk *w, uint8_t *dst, size_t *count,
                     const uint8_t *names, size_t n, size_t index) {
  *count = n;
  for (size_t k = 0; k < n; k++, index /= 3)
    lctx_domain_set_platform(w, &dst[k], names[index % 3]);
}

/* The body of A's default rule in the structural part. */
enum { BODY_MARKER, BODY_LOWER_FUN, BODY_LOWER_FUN_HOST, BODY_RAISE, BODIES };

/* The rules and registrations of one structure group over registry
 * configuration `registry` (the lowering after them is written per case). */
static void structure_group(lctx_domain_walk *w, size_t registry, int regs,
                            int body, int bdef) {
  lctx_case *c = w->c;
  lctx_domain_walk_registry(w, registry);
  add_rule(c, "A.cpu", LCTX_ACTION_EMIT_MARKER, false, NULL, NULL);
  add_rule(c, "A.tpu", LCTX_ACTION_EMIT_MARKER, false, NULL, NULL);
  if (body == BODY_MARKER)
    add_rule(c, "A.def", LCTX_ACTION_EMIT_MARKER, false, NULL, NULL);
  else if (body == BODY_RAISE)
    add_rule(c, "A.def", LCTX_ACTION_RAISE_IF_MULTI, false,
             "A refuses several platforms", NULL);
  else
    add_rule(c, "A.def", LCTX_ACTION_LOWER_FUN, false, "B",
             body == BODY_LOWER_FUN_HOST ? "device_host" : NULL);
  add_rule(c, "B.tpu", LCTX_ACTION_EMIT_MARKER, false, NULL, NULL);
  add_rule(c, "B.cuda", LCTX_ACTION_EMIT_MARKER, false, NULL, NULL);
  add_rule(c, "B.def", LCTX_ACTION_EMIT_MARKER, false, NULL, NULL);
  if (regs & 1)
    add_register(c, "A", "A.cpu", "cpu");
  if (regs & 2)
    add_register(c, "A", "A.tpu", "tpu");
  if (regs & 4)
    add_register(c, "A", "A.def", NULL);
  add_register(c, "B", "B.tpu", "tpu");
  add_register(c, "B", "B.cuda", "cuda");
  if (bdef)
    add_register(c, "B", "B.def", NULL);
}

/* Cases of one structure group: 40 platform lists x 4 narrowings x 2. */
#define STRUCTURE_GROUP_CASES (40 * 4 * 2)

/* Structure: rule selection and dispatch over one registry configuration.
 * A has any subset of {cpu rule, tpu rule, default rule}; the default's body
 * marks, lowers B through lower_fun (with or without compute type
 * device_host) or refuses multi-platform lowering; B has tpu and cuda rules
 * and maybe a default. The equation is lowered for every list of 0-3
 * platforms over (cpu, tpu, cuda), with 4 narrowings and with or without an
 * override rule; the equation's compute type is `outer` (NULL: none). The
 * rules and registrations are written once per group; each case rewrites
 * only its lowering, the last operation. */
static void lowering_structure_with(lctx_domain_walk *w, size_t registry,
                                    const char *outer) {
  static const uint8_t names[] = {A_CPU, A_TPU, A_CUDA};
  lctx_case *c = w->c;
  for (int regs = 0; regs < 8; regs++)
    for (int body = 0; body < BODIES; body++)
      for (int bdef = 0; bdef < 2; bdef++) {
        if (lctx_domain_skip(w, STRUCTURE_GROUP_CASES))
          continue;
        structure_group(w, registry, regs, body, bdef);
        size_t last = c->op_count;
        for (size_t length = 0; length <= 3; length++) {
          size_t lists = length == 0   ? 1
                         : length == 1 ? 3
                         : length == 2 ? 9
                                       : 27;
          for (size_t index = 0; index < lists; index++)
            for (int narrow = 0; narrow < 4; narrow++)
              for (int override = 0; override < 2; override++) {
                if (lctx_domain_skip(w, 1))
                  continue;
                c->op_count = last;
                lctx_case_op *op = add_lower(c, "A");
                set_list(w, op->platform, &op->platform_count, names, length,
                         index);
                /* Narrowing: unset, [], [tpu], [cpu, tpu]. */
                op->has_narrow = narrow > 0;
                op->narrow_count = narrow < 2 ? 0 : (size_t)narrow - 1;
                if (narrow == 2)
                  lctx_domain_set_platform(w, &op->narrowed[0], A_TPU);
                if (narrow == 3) {
                  lctx_domain_set_platform(w, &op->narrowed[0], A_CPU);
                  lctx_domain_set_platform(w, &op->narrowed[1], A_TPU);
                }
                op->has_override = override != 0;
                if (override)
                  lctx_domain_set_text(op->override, sizeof op->override,
                                       "A.tpu");
                op->has_compute_type = outer != NULL;
                if (outer)
                  lctx_domain_set_text(op->compute_type,
                                       sizeof op->compute_type, outer);
                if (!lctx_domain_emit(w))
                  return;
              }
        }
      }
}

/* The structure without a compute type, then under tpu_sparsecore: a
 * lower_fun's traced function inherits it, or (device_host) refuses the
 * nesting in the releases that check it. */
static void lowering_structure(lctx_domain_walk *w, size_t registry) {
  lowering_structure_with(w, registry, NULL);
  lowering_structure_with(w, registry, "tpu_sparsecore");
}

/* register_lowering for every platform name (and None), then a lowering for
 * every one-platform list, so that what was stored (the gpu expansion, a
 * refused name) is observed. */
static void lowering_register(lctx_domain_walk *w, size_t registry) {
  lctx_case *c = w->c;
  for (size_t a = 0; a <= lctx_domain_alphabet_size(); a++) {
    if (lctx_domain_skip(w, lctx_domain_alphabet_size()))
      continue;
    /* The rule and registration once; each case rewrites its lowering. */
    lctx_domain_walk_registry(w, registry);
    add_rule(c, "A.x", LCTX_ACTION_EMIT_MARKER, false, NULL, NULL);
    add_register(c, "A", "A.x",
                 a < lctx_domain_alphabet_size() ? lctx_domain_alphabet(a)
                                                 : NULL);
    for (size_t b = 0; b < lctx_domain_alphabet_size(); b++) {
      if (lctx_domain_skip(w, 1))
        continue;
      c->op_count = 1;
      lctx_case_op *op = add_lower(c, "A");
      op->platform_count = 1;
      lctx_domain_set_platform(w, &op->platform[0], b);
      if (!lctx_domain_emit(w))
        return;
    }
  }
}

/* Rule bodies that read the backend, against the registry configuration:
 * each get_backend flavour in a default rule, called directly or below a
 * lower_fun, for every one- and two-platform list over (cpu, tpu, gpu,
 * cuda) and four pinned backends. */
static void lowering_backend(lctx_domain_walk *w, size_t registry) {
  static const uint8_t names[] = {A_CPU, A_TPU, A_GPU, A_CUDA};
  static const char *const pins[] = {NULL, "cpu", "gpu", "rocm"};
  static const struct {
    int kind;
    bool optional;
  } bodies[] = {
      {LCTX_ACTION_GET_BACKEND, false},
      {LCTX_ACTION_GET_BACKEND, true},
      {LCTX_ACTION_GUARDED_GET_BACKEND, false},
      {LCTX_ACTION_TRY_FALLBACK_GET_BACKEND, false},
      {LCTX_ACTION_READ_CLIENT_PLATFORM, false},
  };
  lctx_case *c = w->c;
  for (size_t b = 0; b < sizeof bodies / sizeof bodies[0]; b++)
    for (int nested = 0; nested < 2; nested++)
      for (int cpu_rule = 0; cpu_rule < 2; cpu_rule++) {
        /* The rules and registrations once per group of (4 + 16) x 4
         * cases, which rewrite only their lowering, the last operation. */
        if (lctx_domain_skip(w, (4 + 16) * 4))
          continue;
        lctx_domain_walk_registry(w, registry);
        add_rule(c, "A.cpu", LCTX_ACTION_EMIT_MARKER, false, NULL, NULL);
        if (nested)
          add_rule(c, "A.def", LCTX_ACTION_LOWER_FUN, false, "B", NULL);
        else
          add_rule(c, "A.def", bodies[b].kind, bodies[b].optional, NULL, NULL);
        add_rule(c, "B.def", bodies[b].kind, bodies[b].optional, NULL, NULL);
        if (cpu_rule)
          add_register(c, "A", "A.cpu", "cpu");
        add_register(c, "A", "A.def", NULL);
        add_register(c, "B", "B.def", NULL);
        size_t last = c->op_count;
        for (size_t length = 1; length <= 2; length++)
          for (size_t index = 0; index < (length == 1 ? 4u : 16u); index++)
            for (size_t pin = 0; pin < 4; pin++) {
              if (lctx_domain_skip(w, 1))
                continue;
              c->op_count = last;
              lctx_case_op *op = add_lower(c, "A");
              op->platform_count = length;
              size_t rest = index;
              for (size_t k = 0; k < length; k++, rest /= 4)
                lctx_domain_set_platform(w, &op->platform[k], names[rest % 4]);
              op->has_backend = pins[pin] != NULL;
              lctx_domain_set_text(op->backend, sizeof op->backend,
                                   pins[pin] ? pins[pin] : "");
              if (!lctx_domain_emit(w))
                return;
            }
      }
}

void lctx_domain_lowering(lctx_domain_walk *w) {
  /* Structure over the first configuration; registrations and
   * backend-reading rule bodies over every configuration. */
  lowering_structure(w, 0);
  for (size_t r = 0; r < lctx_domain_registry_count() && !w->stopped; r++) {
    lowering_register(w, r);
    lowering_backend(w, r);
  }
}

/* Replaces the operations by a random lowering scenario: rules for A
 * (cpu, tpu, default) and B (tpu, cuda, default) whose bodies mark, read the
 * backend, refuse several platforms or lower B; random registrations
 * (platforms from the alphabet, sometimes None); then one or two
 * lowerings of A with random platform lists, pinned backend, narrowing,
 * compute type, override and x64. Kept only when it validates. */
void lctx_domain_random_lowering(uint64_t *state, lctx_case *c) {
  static const char *const rules[] = {"A.cpu", "A.tpu",  "A.def",
                                      "B.tpu", "B.cuda", "B.def"};
  lctx_case_op saved[LCTX_CASE_MAX_OPS];
  size_t saved_count = c->op_count;
  size_t saved_names = c->name_count;
  memcpy(saved, c->ops, saved_count * sizeof c->ops[0]);
  c->rule_count = 0;
  c->op_count = 0;
  for (size_t i = 0; i < 6; i++) {
    int kind = (int)lctx_domain_below(state, 8) - 1; /* -1: empty body */
    bool a_rule = i < 3;
    if (kind == LCTX_ACTION_LOWER_FUN && !a_rule)
      kind = LCTX_ACTION_EMIT_MARKER; /* B lowers nothing: no cycle */
    add_rule(c, rules[i], kind > LCTX_ACTION_EMIT_MARKER ? -1 : kind,
             lctx_domain_below(state, 2) == 0,
             kind == LCTX_ACTION_LOWER_FUN ? "B" : "no",
             kind == LCTX_ACTION_LOWER_FUN && lctx_domain_below(state, 4) == 0
                 ? "device_host"
                 : NULL);
  }
  size_t regs = 2 + lctx_domain_below(state, 4);
  for (size_t i = 0; i < regs; i++) {
    size_t r = lctx_domain_below(state, 6);
    const char *platform = lctx_domain_below(state, 4) == 0
                               ? NULL
                               : lctx_domain_alphabet(lctx_domain_below(
                                     state, lctx_domain_alphabet_size()));
    add_register(c, r < 3 ? "A" : "B", rules[r], platform);
  }
  size_t lowers = 1 + lctx_domain_below(state, 2);
  for (size_t i = 0; i < lowers; i++) {
    lctx_case_op *op = add_lower(c, "A");
    lctx_domain_random_module(state, c, op, 4, 3);
    op->has_narrow = lctx_domain_below(state, 4) == 0;
    if (op->has_narrow) {
      op->narrow_count = lctx_domain_below(state, 3);
      for (size_t k = 0; k < op->narrow_count; k++) {
        char name[8];
        lctx_domain_random_name(state, name, sizeof name);
        lctx_domain_intern(c, &op->narrowed[k], name);
      }
    }
    op->has_compute_type = lctx_domain_below(state, 8) == 0;
    if (op->has_compute_type)
      lctx_domain_set_text(op->compute_type, sizeof op->compute_type,
                           lctx_domain_below(state, 2) ? "device_host"
                                                       : "tpu_sparsecore");
    op->has_override = lctx_domain_below(state, 8) == 0;
    if (op->has_override)
      lctx_domain_set_text(op->override, sizeof op->override,
                           rules[lctx_domain_below(state, 3)]);
    op->x64 = lctx_domain_below(state, 4) == 0;
  }
  /* Every name drawn is valid (random_name: 1-6 bytes of 0x01-0x7f), so
   * only the lowering parts can fail lctx_case_validate. */
  char error[256];
  lctx_buf eb;
  lctx_buf_init(&eb, error, sizeof error);
  if (!lctx_case_validate_lowering(c, &eb)) {
    memset(c->rules, 0, c->rule_count * sizeof c->rules[0]);
    c->rule_count = 0;
    for (size_t i = 0; i < c->op_count; i++)
      lctx_case_op_clear(&c->ops[i]);
    memcpy(c->ops, saved, saved_count * sizeof c->ops[0]);
    c->op_count = saved_count;
    if (c->name_count > saved_names)
      memset(c->names[saved_names], 0,
             (c->name_count - saved_names) * sizeof c->names[0]);
    c->name_count = saved_names;
  }
  /* What lies past the counts is zero (case.h), as lctx_case_reset needs. */
  for (size_t i = c->op_count; i < saved_count; i++)
    lctx_case_op_clear(&c->ops[i]);
}
