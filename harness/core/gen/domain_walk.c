/*
 * domain_walk.c - the building blocks of the bounded domain (see
 * domain_walk.h): the alphabet, the registry configurations, the walk over
 * a share of the domain, and the random draws.
 */
#include "domain_walk.h"

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

_Static_assert(ALPHABET_SIZE <= sizeof((lctx_domain_walk *)0)->slot,
               "a walk keeps a slot per alphabet name");

size_t lctx_domain_alphabet_size(void) {
  return ALPHABET_SIZE;
}

const char *lctx_domain_alphabet(size_t a) {
  return ALPHABET[a];
}

size_t lctx_domain_name_length(size_t a) {
  return ALPHABET_LENGTHS[a];
}

size_t lctx_domain_registry_count(void) {
  return REGISTRY_COUNT;
}

void lctx_domain_set_text(char *dst, size_t cap, const char *src) {
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
    lctx_domain_set_text(f->name, sizeof f->name, r->factories[k].name);
    f->priority = r->factories[k].priority;
    f->fail_quietly = r->factories[k].quiet;
    f->behaviour = r->factories[k].behaviour;
    lctx_domain_set_text(f->message, sizeof f->message,
                         r->factories[k].message);
  }
  lctx_domain_set_text(c->jax_platforms, sizeof c->jax_platforms,
                       r->jax_platforms);
  lctx_domain_set_text(c->jax_platform_name, sizeof c->jax_platform_name,
                       r->jax_platform_name);
  lctx_domain_set_text(c->jax_xla_backend, sizeof c->jax_xla_backend,
                       r->jax_xla_backend);
  c->nvidia_gpu_visible = r->gpu_visible;
  return r->description;
}

void lctx_domain_set_name(char *dst, size_t a) {
  memcpy(dst, ALPHABET[a], ALPHABET_LENGTHS[a] + 1);
}

void lctx_domain_intern(lctx_case *c, uint8_t *index, const char *name) {
  if (!lctx_case_intern_cstr(c, name, index))
    *index = 0; /* never: the sets are small */
}

const char *lctx_domain_registry(size_t i, lctx_case *c) {
  lctx_case_init(c);
  return fill_registry(i, c);
}

//===----------------------------------------------------------------------===//
// The walk
//===----------------------------------------------------------------------===//

/* Whether case `i` belongs to the walk's share. */
static bool in_share(const lctx_domain_share *s, size_t i) {
  return i >= s->from && i < s->to && (i / s->chunk) % s->parts == s->part;
}

/* Whether no case of the next `n` belongs to the share: then they are
 * counted as passed, unbuilt (the walk stops past its share's end). */
bool lctx_domain_skip(lctx_domain_walk *w, size_t n) {
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

bool lctx_domain_emit(lctx_domain_walk *w) {
  if (w->stopped)
    return false;
  size_t i = w->count++;
  if (in_share(&w->share, i)) {
    w->visited++;
    if (!w->visit(w->user, i, w->registry, w->c))
      w->stopped = true;
  }
  if (w->count >= w->share.to)
    w->stopped = true;
  return !w->stopped;
}

void lctx_domain_clear_op(lctx_case_op *op, lctx_op_kind kind) {
  lctx_case_op_clear(op); /* every list is written up to its count only */
  op->kind = kind;
}

/* set_platform of alphabet name `a`, interned once per reset of the case
 * (walk_registry): the same index set_platform would find. */
void lctx_domain_set_platform(lctx_domain_walk *w, uint8_t *index, size_t a) {
  if (w->slot[a] == NO_SLOT)
    lctx_domain_intern(w->c, &w->slot[a], ALPHABET[a]);
  *index = w->slot[a];
}

/* reuse_registry of the walk's case, forgetting the names it interned. */
const char *lctx_domain_walk_registry(lctx_domain_walk *w, size_t i) {
  w->registry = w->generations ? ++*w->generations : 0;
  memset(w->slot, NO_SLOT, sizeof w->slot);
  lctx_case_reset(w->c);
  return fill_registry(i, w->c);
}

//===----------------------------------------------------------------------===//
// Random draws
//===----------------------------------------------------------------------===//

static uint64_t domain_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

size_t lctx_domain_below(uint64_t *s, size_t n) {
  return (size_t)(domain_next(s) % n);
}

/* A name: mostly from the alphabet, sometimes odd printable bytes. */
void lctx_domain_random_name(uint64_t *s, char *out, size_t cap) {
  if (lctx_domain_below(s, 8) != 0) {
    lctx_domain_set_text(out, cap,
                         ALPHABET[lctx_domain_below(s, ALPHABET_SIZE)]);
    return;
  }
  static const char odd[] = "'\"\\ ,\t\x01\x7f";
  size_t n = 1 + lctx_domain_below(s, 6);
  for (size_t i = 0; i < n && i + 1 < cap; i++) {
    out[i] = lctx_domain_below(s, 3) == 0
                 ? odd[lctx_domain_below(s, sizeof odd - 1)]
                 : (char)(0x21 + lctx_domain_below(s, 0x5e));
    out[i + 1] = '\0';
  }
}

/* Draws the module of `op`: fewer than `platforms` random platform names,
 * then a random pinned backend one time in `backend_one_in`. */
void lctx_domain_random_module(uint64_t *state, lctx_case *c, lctx_case_op *op,
                               size_t platforms, size_t backend_one_in) {
  op->platform_count = lctx_domain_below(state, platforms);
  for (size_t k = 0; k < op->platform_count; k++) {
    char name[8];
    lctx_domain_random_name(state, name, sizeof name);
    lctx_domain_intern(c, &op->platform[k], name);
  }
  op->has_backend = lctx_domain_below(state, backend_one_in) == 0;
  if (op->has_backend)
    lctx_domain_random_name(state, op->backend, sizeof op->backend);
}
