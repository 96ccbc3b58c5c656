/*
 * domain.c - the bounded domain (see domain.h).
 */
#include "domain.h"

#include <stdlib.h>
#include <string.h>

/* The names, each with its length (the enumeration writes them millions of
 * times). */
#define ALPHABET_NAMES(X)                                                      \
  X("cpu")                                                                     \
  X("cuda")                                                                    \
  X("rocm") X("oneapi") X("tpu") X("gpu") X("METAL") X("bogus") X("GPU") X("")
#define ALPHABET_TEXT(name) name,
#define ALPHABET_LENGTH(name) sizeof name - 1,
static const char *const ALPHABET[] = {ALPHABET_NAMES(ALPHABET_TEXT)};
static const size_t ALPHABET_LENGTHS[] = {ALPHABET_NAMES(ALPHABET_LENGTH)};
#define ALPHABET_SIZE (sizeof ALPHABET / sizeof ALPHABET[0])

typedef struct fspec {
  const char *name;
  int priority;
  bool quiet;
  lctx_factory_behaviour behaviour;
  const char *message;
} fspec;

typedef struct registry_spec {
  const char *description;
  const char *jax_platforms;
  const char *jax_platform_name;
  const char *jax_xla_backend;
  bool gpu_visible;
  fspec factories[5];
} registry_spec;

#define CLIENT LCTX_FACTORY_CLIENT
#define RAISES LCTX_FACTORY_RAISES
#define NONE LCTX_FACTORY_RETURNS_NONE
#define NODEV LCTX_FACTORY_NO_DEVICES
#define CPU                                                                    \
  { "cpu", 0, false, CLIENT, "" }
#define TPU_FAIL                                                               \
  { "tpu", 300, true, RAISES, "TPU not found" }

static const registry_spec REGISTRIES[] = {
    {"cpu only", "", "", "", false, {CPU}},
    {"stock cpu host, tpu fails quietly", "", "", "", false, {CPU, TPU_FAIL}},
    {"cuda host",
     "",
     "",
     "",
     true,
     {CPU, TPU_FAIL, {"cuda", 400, false, CLIENT, ""}}},
    {"cuda plugin, no visible NVIDIA GPU",
     "",
     "",
     "",
     false,
     {CPU, TPU_FAIL, {"cuda", 400, false, CLIENT, ""}}},
    {"rocm host", "", "", "", false, {CPU, {"rocm", 400, false, CLIENT, ""}}},
    {"cuda and rocm, GPU visible",
     "",
     "",
     "",
     true,
     {CPU, {"cuda", 400, false, CLIENT, ""}, {"rocm", 400, false, CLIENT, ""}}},
    {"cuda and rocm, no visible NVIDIA GPU",
     "",
     "",
     "",
     false,
     {CPU, {"cuda", 400, false, CLIENT, ""}, {"rocm", 400, false, CLIENT, ""}}},
    {"oneapi host",
     "",
     "",
     "",
     false,
     {CPU, {"oneapi", 400, false, CLIENT, ""}}},
    {"tpu host", "", "", "", false, {CPU, {"tpu", 300, true, CLIENT, ""}}},
    {"METAL plugin",
     "",
     "",
     "",
     false,
     {CPU, {"METAL", 400, false, CLIENT, ""}}},
    {"tpu returns None quietly",
     "",
     "",
     "",
     false,
     {CPU, {"tpu", 300, true, NONE, ""}}},
    {"tpu has no devices, quietly",
     "",
     "",
     "",
     false,
     {CPU, {"tpu", 300, true, NODEV, ""}}},
    {"cuda fails quietly, message ends in '.'",
     "",
     "",
     "",
     true,
     {CPU, {"cuda", 400, true, RAISES, "CUDA driver too old."}}},
    {"tpu fails quietly with an empty message",
     "",
     "",
     "",
     false,
     {CPU, {"tpu", 300, true, RAISES, ""}}},
    {"loud failure before any client",
     "",
     "",
     "",
     true,
     {{"cuda", 400, false, RAISES, "no CUDA"}, CPU}},
    {"loud failure after a client: partial registry",
     "",
     "",
     "",
     false,
     {CPU,
      TPU_FAIL,
      {"METAL", 400, false, RAISES, "METAL broke"},
      {"rocm", 500, false, CLIENT, ""}}},
    {"loud None after a client",
     "",
     "",
     "",
     false,
     {CPU, {"rocm", 400, false, NONE, ""}}},
    {"loud no-devices after a client",
     "",
     "",
     "",
     false,
     {CPU, {"tpu", 300, false, NODEV, ""}}},
    {"partial registry without a default",
     "",
     "",
     "",
     false,
     {{"cpu", -1000, false, CLIENT, ""}, {"tpu", 0, false, RAISES, "x"}}},
    {"every priority -1000 or lower",
     "",
     "",
     "",
     false,
     {{"cpu", -1000, false, CLIENT, ""}, {"METAL", -2000, true, CLIENT, ""}}},
    {"priority tie",
     "",
     "",
     "",
     false,
     {{"cpu", 5, false, CLIENT, ""}, {"METAL", 5, false, CLIENT, ""}}},
    {"gpu priority tie, rocm registered first",
     "",
     "",
     "",
     true,
     {{"rocm", 400, false, CLIENT, ""}, {"cuda", 400, false, CLIENT, ""}}},
    {"no factories", "", "", "", false, {{NULL, 0, false, CLIENT, ""}}},
    {"only cuda, no visible NVIDIA GPU",
     "",
     "",
     "",
     false,
     {{"cuda", 400, false, CLIENT, ""}}},
    {"a factory named gpu",
     "",
     "",
     "",
     false,
     {CPU, {"gpu", 400, false, CLIENT, ""}}},
    {"a factory named ''",
     "",
     "",
     "",
     false,
     {CPU, {"", 400, false, CLIENT, ""}}},
    {"names with quotes and backslashes",
     "",
     "",
     "",
     false,
     {CPU,
      {"it's", 10, true, RAISES, "bad \"quote\" \\ here"},
      {"a\"b'c\\", 20, true, NONE, ""},
      {"tab\there", 30, true, NODEV, ""}}},
    {"jax_platforms=cpu", "cpu", "", "", false, {CPU, TPU_FAIL}},
    {"jax_platforms=cpu,tpu, tpu raises: partial",
     "cpu,tpu",
     "",
     "",
     false,
     {CPU, TPU_FAIL}},
    {"jax_platforms=tpu,cpu, tpu raises first",
     "tpu,cpu",
     "",
     "",
     false,
     {CPU, TPU_FAIL}},
    {"jax_platforms=gpu, oneapi unknown",
     "gpu",
     "",
     "",
     true,
     {CPU, {"cuda", 400, false, CLIENT, ""}, {"rocm", 400, false, CLIENT, ""}}},
    {"jax_platforms=cuda, no visible NVIDIA GPU",
     "cuda",
     "",
     "",
     false,
     {CPU, {"cuda", 400, false, CLIENT, ""}}},
    {"jax_platforms='cpu, tpu' (no trimming)",
     "cpu, tpu",
     "",
     "",
     false,
     {CPU, {"tpu", 300, true, CLIENT, ""}}},
    {"jax_platforms='cpu,' (empty entry)", "cpu,", "", "", false, {CPU}},
    {"jax_platforms=cpu,cpu (repeated)", "cpu,cpu", "", "", false, {CPU}},
    {"jax_platforms=cuda,gpu (repeated through the alias)",
     "cuda,gpu",
     "",
     "",
     true,
     {{"cuda", 400, false, CLIENT, ""},
      {"rocm", 400, false, CLIENT, ""},
      {"oneapi", 400, false, CLIENT, ""}}},
    {"jax_platforms=METAL, factory returns None",
     "METAL",
     "",
     "",
     false,
     {CPU, {"METAL", 400, true, NONE, ""}}},
    {"jax_platforms=tpu, no devices",
     "tpu",
     "",
     "",
     false,
     {CPU, {"tpu", 300, true, NODEV, ""}}},
    {"jax_platform_name=tpu",
     "",
     "tpu",
     "",
     false,
     {CPU, {"tpu", 300, true, CLIENT, ""}}},
    {"jax_xla_backend=gpu on a cuda host",
     "",
     "cpu",
     "gpu",
     true,
     {CPU, {"cuda", 400, false, CLIENT, ""}}},
    {"jax_platform_name=cuda on a cpu host",
     "",
     "cuda",
     "",
     false,
     {CPU, TPU_FAIL}},
};
#define REGISTRY_COUNT (sizeof REGISTRIES / sizeof REGISTRIES[0])

size_t lctx_domain_alphabet_size(void) {
  return ALPHABET_SIZE;
}

size_t lctx_domain_registry_count(void) {
  return REGISTRY_COUNT;
}

static void set_text(char *dst, size_t cap, const char *src) {
  size_t n = strlen(src);
  if (n >= cap)
    n = cap - 1;
  memcpy(dst, src, n);
  dst[n] = '\0';
}

/* Fills the empty case `c` with registry configuration `i`. */
static const char *fill_registry(size_t i, lctx_case *c) {
  const registry_spec *r = &REGISTRIES[i];
  for (size_t k = 0; k < 5 && r->factories[k].name; k++) {
    lctx_case_factory *f = &c->factories[c->factory_count++];
    set_text(f->name, sizeof f->name, r->factories[k].name);
    f->priority = r->factories[k].priority;
    f->fail_quietly = r->factories[k].quiet;
    f->behaviour = r->factories[k].behaviour;
    set_text(f->message, sizeof f->message, r->factories[k].message);
  }
  set_text(c->jax_platforms, sizeof c->jax_platforms, r->jax_platforms);
  set_text(c->jax_platform_name, sizeof c->jax_platform_name,
           r->jax_platform_name);
  set_text(c->jax_xla_backend, sizeof c->jax_xla_backend, r->jax_xla_backend);
  c->nvidia_gpu_visible = r->gpu_visible;
  return r->description;
}

/* set_text of alphabet name `a` into a name field (every one fits). */
static void set_name(char *dst, size_t a) {
  memcpy(dst, ALPHABET[a], ALPHABET_LENGTHS[a] + 1);
}

/* Sets `*index` to the index of platform `name` in `c`'s names, interning
 * it: the generators draw from small sets of names (at most
 * LCTX_CASE_MAX_NAMES distinct in any case they write). */
static void set_platform(lctx_case *c, uint8_t *index, const char *name) {
  if (!lctx_case_intern_cstr(c, name, index))
    *index = 0; /* never: the sets are small */
}

const char *lctx_domain_registry(size_t i, lctx_case *c) {
  lctx_case_init(c);
  return fill_registry(i, c);
}

/* lctx_domain_registry for a case the enumeration wrote before: only its
 * used parts are cleared (lctx_case_reset), not the whole (large) case. */
static const char *reuse_registry(size_t i, lctx_case *c) {
  lctx_case_reset(c);
  return fill_registry(i, c);
}

//===----------------------------------------------------------------------===//
// Enumeration
//===----------------------------------------------------------------------===//

/* A walk over a share of the domain: `count` cases passed so far (built
 * and visited, or skipped); `slot[a]` the index of alphabet name `a` in the
 * case's names once interned since its last reset (NO_SLOT: not yet). */
typedef struct walker {
  bool (*visit)(void *user, size_t index, const lctx_case *c);
  void *user;
  lctx_domain_share share;
  size_t count;
  size_t visited;
  bool stopped;
  lctx_case *c;
  uint8_t slot[ALPHABET_SIZE];
} walker;

#define NO_SLOT 0xff

/* Whether case `i` belongs to the walk's share. */
static bool in_share(const lctx_domain_share *s, size_t i) {
  return i >= s->from && i < s->to && (i / s->chunk) % s->parts == s->part;
}

/* Whether no case of the next `n` belongs to the share: then they are
 * counted as passed, unbuilt (the walk stops past its share's end). */
static bool skip(walker *w, size_t n) {
  const lctx_domain_share *s = &w->share;
  if (w->stopped)
    return true;
  size_t a = w->count > s->from ? w->count : s->from;
  size_t b = w->count + n < s->to ? w->count + n : s->to;
  bool none = a >= b;
  if (!none) {
    /* The first chunk of the share at or after `a`. */
    size_t k = a / s->chunk;
    size_t next = k + (s->part + s->parts - k % s->parts) % s->parts;
    none = next != k && next * s->chunk >= b;
  }
  if (!none)
    return false;
  w->count += n;
  if (w->count >= s->to)
    w->stopped = true;
  return true;
}

static bool emit(walker *w) {
  if (w->stopped)
    return false;
  size_t i = w->count++;
  if (in_share(&w->share, i)) {
    w->visited++;
    if (!w->visit(w->user, i, w->c))
      w->stopped = true;
  }
  if (w->count >= w->share.to)
    w->stopped = true;
  return !w->stopped;
}

static void clear_op(lctx_case_op *op, lctx_op_kind kind) {
  lctx_case_op_clear(op); /* every list is written up to its count only */
  op->kind = kind;
}

/* Alphabet indexes of the names the lowering part uses. */
enum { A_CPU = 0, A_CUDA = 1, A_ROCM = 2, A_TPU = 4, A_GPU = 5 };

/* set_platform of alphabet name `a`, interned once per reset of the case
 * (walk_registry): the same index set_platform would find. */
static void walk_platform(walker *w, uint8_t *index, size_t a) {
  if (w->slot[a] == NO_SLOT)
    set_platform(w->c, &w->slot[a], ALPHABET[a]);
  *index = w->slot[a];
}

/* reuse_registry of the walk's case, forgetting the names it interned. */
static const char *walk_registry(walker *w, size_t i) {
  memset(w->slot, NO_SLOT, sizeof w->slot);
  return reuse_registry(i, w->c);
}

/* How many cases each_op writes with lists up to `max_platforms` long. */
static size_t each_op_count(size_t max_platforms) {
  size_t n = 1 + ALPHABET_SIZE + (ALPHABET_SIZE + 1), lists = 1;
  for (size_t length = 0; length <= max_platforms; length++) {
    n += lists * (ALPHABET_SIZE + 1) * 2;
    lists *= ALPHABET_SIZE;
  }
  return n;
}

/* Every operation with module platform lists up to `max_platforms` long,
 * written at position `slot`. */
static void each_op(walker *w, size_t slot, size_t max_platforms) {
  if (skip(w, each_op_count(max_platforms)))
    return;
  lctx_case_op *op = &w->c->ops[slot];
  w->c->op_count = slot + 1;
  clear_op(op, LCTX_OP_BACKENDS);
  if (!emit(w))
    return;
  for (size_t a = 0; a < ALPHABET_SIZE; a++) {
    clear_op(op, LCTX_OP_CANONICALIZE);
    op->has_arg = true; /* canonicalize always has its argument */
    set_name(op->arg, a);
    if (!emit(w))
      return;
  }
  for (size_t a = 0; a <= ALPHABET_SIZE; a++) {
    clear_op(op, LCTX_OP_XLA_GET_BACKEND);
    op->has_arg = a < ALPHABET_SIZE;
    if (op->has_arg)
      set_name(op->arg, a);
    if (!emit(w))
      return;
  }
  /* Module platform lists: every list of length 0..max over the alphabet. */
  for (size_t length = 0; length <= max_platforms; length++) {
    size_t lists = 1;
    for (size_t k = 0; k < length; k++)
      lists *= ALPHABET_SIZE;
    for (size_t index = 0; index < lists; index++) {
      if (skip(w, (ALPHABET_SIZE + 1) * 2))
        continue;
      /* The operation is written once per platform list: the cases that
       * follow differ only in the pinned backend (written over the last,
       * whose bytes are cleared, so the operation is byte for byte the one
       * written afresh) and in `optional` (the visitor cannot change the
       * case). */
      clear_op(op, LCTX_OP_MODULE_GET_BACKEND);
      size_t rest = index;
      op->platform_count = length;
      for (size_t k = 0; k < length; k++) {
        walk_platform(w, &op->platform[k], rest % ALPHABET_SIZE);
        rest /= ALPHABET_SIZE;
      }
      for (size_t pinned = 0; pinned <= ALPHABET_SIZE; pinned++) {
        if (pinned > 0)
          memset(op->backend, 0, ALPHABET_LENGTHS[pinned - 1]);
        op->has_backend = pinned < ALPHABET_SIZE;
        if (op->has_backend)
          set_name(op->backend, pinned);
        for (int optional = 0; optional < 2; optional++) {
          op->optional = optional != 0;
          if (!emit(w))
            return;
        }
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// The lowering sub-domain
//===----------------------------------------------------------------------===//

/* Declares rule `name` with one action (or none when `kind` < 0). Only the
 * fields the action's kind uses are set (case.h: the others stay zero), so
 * the case prints and parses back to itself. */
static void add_rule(lctx_case *c, const char *name, int kind, bool optional,
                     const char *text, const char *compute) {
  lctx_case_rule *r = &c->rules[c->rule_count++];
  memset(r, 0, sizeof *r);
  set_text(r->name, sizeof r->name, name);
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
    set_text(a->text, sizeof a->text, text);
  if (kind == LCTX_ACTION_LOWER_FUN && compute) {
    a->has_compute_type = true;
    set_text(a->compute_type, sizeof a->compute_type, compute);
  }
}

static void add_register(lctx_case *c, const char *prim, const char *rule,
                         const char *platform) {
  lctx_case_op *op = &c->ops[c->op_count++];
  clear_op(op, LCTX_OP_REGISTER_LOWERING);
  set_text(op->primitive, sizeof op->primitive, prim);
  set_text(op->rule, sizeof op->rule, rule);
  op->has_arg = platform != NULL;
  set_text(op->arg, sizeof op->arg, platform ? platform : "");
}

static lctx_case_op *add_lower(lctx_case *c, const char *prim) {
  lctx_case_op *op = &c->ops[c->op_count++];
  clear_op(op, LCTX_OP_LOWER_PER_PLATFORM);
  set_text(op->primitive, sizeof op->primitive, prim);
  return op;
}

static void set_list(walker *w, uint8_t *dst, size_t *count,
                     const uint8_t *names, size_t n, size_t index) {
  *count = n;
  for (size_t k = 0; k < n; k++, index /= 3)
    walk_platform(w, &dst[k], names[index % 3]);
}

/* The body of A's default rule in the structural part. */
enum { BODY_MARKER, BODY_LOWER_FUN, BODY_LOWER_FUN_HOST, BODY_RAISE, BODIES };

/* The rules and registrations of one structure group over registry
 * configuration `registry` (the lowering after them is written per case). */
static void structure_group(walker *w, size_t registry, int regs, int body,
                            int bdef) {
  lctx_case *c = w->c;
  walk_registry(w, registry);
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
static void lowering_structure_with(walker *w, size_t registry,
                                    const char *outer) {
  static const uint8_t names[] = {A_CPU, A_TPU, A_CUDA};
  lctx_case *c = w->c;
  for (int regs = 0; regs < 8; regs++)
    for (int body = 0; body < BODIES; body++)
      for (int bdef = 0; bdef < 2; bdef++) {
        if (skip(w, STRUCTURE_GROUP_CASES))
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
                if (skip(w, 1))
                  continue;
                c->op_count = last;
                lctx_case_op *op = add_lower(c, "A");
                set_list(w, op->platform, &op->platform_count, names, length,
                         index);
                /* Narrowing: unset, [], [tpu], [cpu, tpu]. */
                op->has_narrow = narrow > 0;
                op->narrow_count = narrow < 2 ? 0 : (size_t)narrow - 1;
                if (narrow == 2)
                  walk_platform(w, &op->narrowed[0], A_TPU);
                if (narrow == 3) {
                  walk_platform(w, &op->narrowed[0], A_CPU);
                  walk_platform(w, &op->narrowed[1], A_TPU);
                }
                op->has_override = override != 0;
                if (override)
                  set_text(op->override, sizeof op->override, "A.tpu");
                op->has_compute_type = outer != NULL;
                if (outer)
                  set_text(op->compute_type, sizeof op->compute_type, outer);
                if (!emit(w))
                  return;
              }
        }
      }
}

/* The structure without a compute type, then under tpu_sparsecore: a
 * lower_fun's traced function inherits it, or (device_host) refuses the
 * nesting in the releases that check it. */
static void lowering_structure(walker *w, size_t registry) {
  lowering_structure_with(w, registry, NULL);
  lowering_structure_with(w, registry, "tpu_sparsecore");
}

/* register_lowering for every platform name (and None), then a lowering for
 * every one-platform list, so that what was stored (the gpu expansion, a
 * refused name) is observed. */
static void lowering_register(walker *w, size_t registry) {
  lctx_case *c = w->c;
  for (size_t a = 0; a <= ALPHABET_SIZE; a++) {
    if (skip(w, ALPHABET_SIZE))
      continue;
    /* The rule and registration once; each case rewrites its lowering. */
    walk_registry(w, registry);
    add_rule(c, "A.x", LCTX_ACTION_EMIT_MARKER, false, NULL, NULL);
    add_register(c, "A", "A.x", a < ALPHABET_SIZE ? ALPHABET[a] : NULL);
    for (size_t b = 0; b < ALPHABET_SIZE; b++) {
      if (skip(w, 1))
        continue;
      c->op_count = 1;
      lctx_case_op *op = add_lower(c, "A");
      op->platform_count = 1;
      walk_platform(w, &op->platform[0], b);
      if (!emit(w))
        return;
    }
  }
}

/* Rule bodies that read the backend, against the registry configuration:
 * each get_backend flavour in a default rule, called directly or below a
 * lower_fun, for every one- and two-platform list over (cpu, tpu, gpu,
 * cuda) and four pinned backends. */
static void lowering_backend(walker *w, size_t registry) {
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
        if (skip(w, (4 + 16) * 4))
          continue;
        walk_registry(w, registry);
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
              if (skip(w, 1))
                continue;
              c->op_count = last;
              lctx_case_op *op = add_lower(c, "A");
              op->platform_count = length;
              size_t rest = index;
              for (size_t k = 0; k < length; k++, rest /= 4)
                walk_platform(w, &op->platform[k], names[rest % 4]);
              op->has_backend = pins[pin] != NULL;
              set_text(op->backend, sizeof op->backend,
                       pins[pin] ? pins[pin] : "");
              if (!emit(w))
                return;
            }
      }
}

/* Walks the whole domain in its order, building and visiting the cases of
 * the walker's share. */
static void walk(walker *w) {
  lctx_case *c = w->c;
  for (size_t r = 0; r < REGISTRY_COUNT && !w->stopped; r++) {
    walk_registry(w, r);
    /* Single operations, platform lists up to length 3. */
    each_op(w, 0, 3);
    /* Two operations: a first one that initializes (backends) or one that
     * does not (canonicalize 'cpu'), then every operation with platform
     * lists up to length 1, so that what the first left behind (a partial
     * registry, recorded failures, a re-run initialization) is observed. */
    for (int first = 0; first < 2 && !w->stopped; first++) {
      if (skip(w, each_op_count(1)))
        continue;
      walk_registry(w, r);
      clear_op(&c->ops[0],
               first == 0 ? LCTX_OP_BACKENDS : LCTX_OP_CANONICALIZE);
      if (first == 1) {
        c->ops[0].has_arg = true;
        set_text(c->ops[0].arg, sizeof c->ops[0].arg, "cpu");
      }
      each_op(w, 1, 1);
    }
  }
  /* Lowering: structure over the first configuration; registrations and
   * backend-reading rule bodies over every configuration. */
  lowering_structure(w, 0);
  for (size_t r = 0; r < REGISTRY_COUNT && !w->stopped; r++) {
    lowering_register(w, r);
    lowering_backend(w, r);
  }
}

/* Walks `share` with `visit`; returns the walker's counts through `*w`.
 * False when there is no memory for the case. */
static bool walk_share(walker *w, const lctx_domain_share *share,
                       bool (*visit)(void *user, size_t index,
                                     const lctx_case *c),
                       void *user) {
  memset(w, 0, sizeof *w);
  if (share->chunk == 0 || share->parts == 0 || share->part >= share->parts)
    return false;
  w->c = malloc(sizeof *w->c); /* large for the stack */
  if (!w->c)
    return false;
  lctx_case_init(w->c); /* once: from here on only used parts are cleared */
  w->visit = visit;
  w->user = user;
  w->share = *share;
  w->stopped = share->from >= share->to;
  walk(w);
  free(w->c);
  return true;
}

size_t lctx_domain_enumerate_share(const lctx_domain_share *share,
                                   bool (*visit)(void *user, size_t index,
                                                 const lctx_case *c),
                                   void *user) {
  walker w;
  return walk_share(&w, share, visit, user) ? w.visited : 0;
}

/* lctx_domain_enumerate's visitor, called from a share's. */
typedef struct whole {
  bool (*visit)(void *user, const lctx_case *c);
  void *user;
} whole;

static bool visit_whole(void *user, size_t index, const lctx_case *c) {
  (void)index;
  whole *h = user;
  return h->visit(h->user, c);
}

size_t lctx_domain_enumerate(bool (*visit)(void *user, const lctx_case *c),
                             void *user) {
  static const lctx_domain_share all = {0, SIZE_MAX, 1, 0, 1};
  whole h = {visit, user};
  walker w;
  return walk_share(&w, &all, visit_whole, &h) ? w.count : 0;
}

//===----------------------------------------------------------------------===//
// Random cases
//===----------------------------------------------------------------------===//

static uint64_t next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static size_t below(uint64_t *s, size_t n) {
  return (size_t)(next(s) % n);
}

/* A name: mostly from the alphabet, sometimes odd printable bytes. */
static void random_name(uint64_t *s, char *out, size_t cap) {
  if (below(s, 8) != 0) {
    set_text(out, cap, ALPHABET[below(s, ALPHABET_SIZE)]);
    return;
  }
  static const char odd[] = "'\"\\ ,\t\x01\x7f";
  size_t n = 1 + below(s, 6);
  for (size_t i = 0; i < n && i + 1 < cap; i++) {
    out[i] = below(s, 3) == 0 ? odd[below(s, sizeof odd - 1)]
                              : (char)(0x21 + below(s, 0x5e));
    out[i + 1] = '\0';
  }
}

/* Draws the module of `op`: fewer than `platforms` random platform names,
 * then a random pinned backend one time in `backend_one_in`. */
static void random_module(uint64_t *state, lctx_case *c, lctx_case_op *op,
                          size_t platforms, size_t backend_one_in) {
  op->platform_count = below(state, platforms);
  for (size_t k = 0; k < op->platform_count; k++) {
    char name[8];
    random_name(state, name, sizeof name);
    set_platform(c, &op->platform[k], name);
  }
  op->has_backend = below(state, backend_one_in) == 0;
  if (op->has_backend)
    random_name(state, op->backend, sizeof op->backend);
}

/* Replaces the operations by a random lowering scenario: rules for A
 * (cpu, tpu, default) and B (tpu, cuda, default) whose bodies mark, read the
 * backend, refuse several platforms or lower B; random registrations
 * (platforms from the alphabet, sometimes None); then one or two
 * lowerings of A with random platform lists, pinned backend, narrowing,
 * compute type, override and x64. Kept only when it validates. */
static void random_lowering(uint64_t *state, lctx_case *c) {
  static const char *const rules[] = {"A.cpu", "A.tpu",  "A.def",
                                      "B.tpu", "B.cuda", "B.def"};
  lctx_case_op saved[LCTX_CASE_MAX_OPS];
  size_t saved_count = c->op_count;
  size_t saved_names = c->name_count;
  memcpy(saved, c->ops, saved_count * sizeof c->ops[0]);
  c->rule_count = 0;
  c->op_count = 0;
  for (size_t i = 0; i < 6; i++) {
    int kind = (int)below(state, 8) - 1; /* -1: empty body */
    bool a_rule = i < 3;
    if (kind == LCTX_ACTION_LOWER_FUN && !a_rule)
      kind = LCTX_ACTION_EMIT_MARKER; /* B lowers nothing: no cycle */
    add_rule(c, rules[i], kind > LCTX_ACTION_EMIT_MARKER ? -1 : kind,
             below(state, 2) == 0, kind == LCTX_ACTION_LOWER_FUN ? "B" : "no",
             kind == LCTX_ACTION_LOWER_FUN && below(state, 4) == 0
                 ? "device_host"
                 : NULL);
  }
  size_t regs = 2 + below(state, 4);
  for (size_t i = 0; i < regs; i++) {
    size_t r = below(state, 6);
    const char *platform =
        below(state, 4) == 0 ? NULL : ALPHABET[below(state, ALPHABET_SIZE)];
    add_register(c, r < 3 ? "A" : "B", rules[r], platform);
  }
  size_t lowers = 1 + below(state, 2);
  for (size_t i = 0; i < lowers; i++) {
    lctx_case_op *op = add_lower(c, "A");
    random_module(state, c, op, 4, 3);
    op->has_narrow = below(state, 4) == 0;
    if (op->has_narrow) {
      op->narrow_count = below(state, 3);
      for (size_t k = 0; k < op->narrow_count; k++) {
        char name[8];
        random_name(state, name, sizeof name);
        set_platform(c, &op->narrowed[k], name);
      }
    }
    op->has_compute_type = below(state, 8) == 0;
    if (op->has_compute_type)
      set_text(op->compute_type, sizeof op->compute_type,
               below(state, 2) ? "device_host" : "tpu_sparsecore");
    op->has_override = below(state, 8) == 0;
    if (op->has_override)
      set_text(op->override, sizeof op->override, rules[below(state, 3)]);
    op->x64 = below(state, 4) == 0;
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

static void random_case(uint64_t *state, lctx_case *c) {
  static const int priorities[] = {-2000, -1001, -1000, -999, -1,  0,
                                   1,     2,     100,   300,  400, 500};
  static const char *const platform_lists[] = {
      "",         "cpu",  "cpu,tpu", "tpu,cpu",  "gpu",   "cuda",
      "cpu, tpu", "cpu,", "cpu,cpu", "cuda,gpu", "METAL", "rocm,cuda"};
  size_t factories = below(state, 6);
  for (size_t i = 0; i < factories; i++) {
    lctx_case_factory *f = &c->factories[c->factory_count];
    random_name(state, f->name, sizeof f->name);
    bool duplicate = false;
    for (size_t k = 0; k < c->factory_count; k++)
      duplicate = duplicate || strcmp(c->factories[k].name, f->name) == 0;
    if (duplicate) {
      memset(f, 0, sizeof *f); /* nothing past the counts */
      continue;
    }
    f->priority =
        priorities[below(state, sizeof priorities / sizeof priorities[0])];
    f->fail_quietly = below(state, 2) == 0;
    size_t b = below(state, 8);
    f->behaviour =
        b < 5 ? LCTX_FACTORY_CLIENT : (lctx_factory_behaviour)(b - 4);
    if (f->behaviour == LCTX_FACTORY_RAISES)
      set_text(f->message, sizeof f->message,
               below(state, 3) == 0 ? "" : "init failed.");
    c->factory_count++;
  }
  if (below(state, 4) == 0)
    set_text(c->jax_platforms, sizeof c->jax_platforms,
             platform_lists[below(state, sizeof platform_lists /
                                             sizeof platform_lists[0])]);
  if (below(state, 6) == 0)
    random_name(state, c->jax_platform_name, sizeof c->jax_platform_name);
  if (below(state, 6) == 0)
    random_name(state, c->jax_xla_backend, sizeof c->jax_xla_backend);
  c->nvidia_gpu_visible = below(state, 2) == 0;
  c->op_count = 1 + below(state, 4);
  for (size_t i = 0; i < c->op_count; i++) {
    lctx_case_op *op = &c->ops[i];
    clear_op(op, (lctx_op_kind)below(state, LCTX_OP_MODULE_GET_BACKEND + 1));
    switch (op->kind) {
    case LCTX_OP_BACKENDS:
      break;
    case LCTX_OP_CANONICALIZE:
      op->has_arg = true;
      random_name(state, op->arg, sizeof op->arg);
      break;
    case LCTX_OP_XLA_GET_BACKEND:
      op->has_arg = below(state, 4) != 0;
      if (op->has_arg)
        random_name(state, op->arg, sizeof op->arg);
      break;
    case LCTX_OP_MODULE_GET_BACKEND:
      random_module(state, c, op, 5, 2);
      op->optional = below(state, 2) == 0;
      break;
    case LCTX_OP_REGISTER_LOWERING: /* drawn below */
    case LCTX_OP_LOWER_PER_PLATFORM:
      break;
    }
  }
  if (below(state, 3) == 0)
    random_lowering(state, c);
}

void lctx_domain_random_case(uint64_t *state, lctx_case *c) {
  lctx_case_init(c);
  random_case(state, c);
}

void lctx_domain_random_case_reuse(uint64_t *state, lctx_case *c) {
  lctx_case_reset(c);
  random_case(state, c);
}
