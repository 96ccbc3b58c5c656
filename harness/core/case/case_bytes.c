/*
 * case_bytes.c - the byte form of a case (see case_bytes.h for the layout
 * and its properties).
 *
 * Owns the total decoder and the encoder, and their dictionaries. Must stay
 * total (no input is rejected), deterministic and linear; never allocates.
 */
#include "case_bytes.h"
#include "case_ops.h"

#include <limits.h>
#include <stddef.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Dictionaries
//===----------------------------------------------------------------------===//

/* A dictionary entry and its length (no strlen per decoded field). */
typedef struct entry {
  const char *text;
  size_t length;
} entry;
#define E(s)                                                                   \
  { s, sizeof(s) - 1 }

#define NAME_LITERAL 192
static const entry NAMES[] = {E(""),       E("cpu"), E("cuda"), E("rocm"),
                              E("oneapi"), E("tpu"), E("gpu"),  E("METAL"),
                              E("bogus"),  E("CPU"), E("Cuda"), E("GPU")};
#define NAME_COUNT (sizeof NAMES / sizeof NAMES[0])

#define MESSAGE_LITERAL 128
static const entry MESSAGES[] = {E(""),
                                 E("TPU not found"),
                                 E("boom"),
                                 E("Backend 'cuda' failed."),
                                 E("no devices."),
                                 E("x\n\ty"),
                                 E("'\"\\"),
                                 E("FAILED_PRECONDITION: No visible device")};
#define MESSAGE_COUNT (sizeof MESSAGES / sizeof MESSAGES[0])

#define PLATFORMS_LITERAL 192
static const entry PLATFORMS[] = {
    E(""),         E("cpu"),     E("tpu"),       E("cuda"),
    E("rocm"),     E("gpu"),     E("cpu,tpu"),   E("tpu,cpu"),
    E("cpu,gpu"),  E("gpu,cpu"), E("cuda,rocm"), E("cpu,cpu"),
    E("cuda,gpu"), E("cpu,"),    E("cpu, tpu"),  E(",")};
#define PLATFORMS_COUNT (sizeof PLATFORMS / sizeof PLATFORMS[0])

/* The lowering parts: rule names, primitives, raise_if_multi messages and
 * compute types, each a selector below TEXT_LITERAL or a literal. */
#define TEXT_LITERAL 192
static const entry RULE_NAMES[] = {
    E("r0"),    E("r1"),    E("r2"),    E("r3"),       E("r4"),     E("r5"),
    E("r6"),    E("r7"),    E("P.cpu"), E("P.cuda"),   E("P.rocm"), E("P.tpu"),
    E("P.gpu"), E("Q.cpu"), E("Q.gpu"), E("P.default")};
#define RULE_NAME_COUNT (sizeof RULE_NAMES / sizeof RULE_NAMES[0])

static const entry PRIMITIVES[] = {E("P"), E("Q"), E("R"), E("S")};
#define PRIMITIVE_COUNT (sizeof PRIMITIVES / sizeof PRIMITIVES[0])

static const entry RAISE_MESSAGES[] = {
    E(""), E("boom"), E("multi-platform lowering is not supported"),
    E("'\"\\")};
#define RAISE_MESSAGE_COUNT (sizeof RAISE_MESSAGES / sizeof RAISE_MESSAGES[0])

static const entry COMPUTE_TYPES[] = {E(""), E("device_host"), E("device"),
                                      E("tpu_sparsecore")};
#define COMPUTE_TYPE_COUNT (sizeof COMPUTE_TYPES / sizeof COMPUTE_TYPES[0])

#define PRIORITY_EXPLICIT 240
static const int PRIORITIES[] = {
    0,     1,   -1,  2,   300, 400, -1000,   -999,
    -1001, 100, 299, 301, 401, 3,   INT_MIN, INT_MAX,
};
#define PRIORITY_COUNT (sizeof PRIORITIES / sizeof PRIORITIES[0])

_Static_assert(NAME_LITERAL % NAME_COUNT == 0, "uniform name selectors");
_Static_assert(MESSAGE_LITERAL % MESSAGE_COUNT == 0, "uniform messages");
_Static_assert(PLATFORMS_LITERAL % PLATFORMS_COUNT == 0, "uniform configs");
_Static_assert(PRIORITY_EXPLICIT % PRIORITY_COUNT == 0, "uniform priorities");
_Static_assert(TEXT_LITERAL % RULE_NAME_COUNT == 0, "uniform rule names");
_Static_assert(TEXT_LITERAL % PRIMITIVE_COUNT == 0, "uniform primitives");
_Static_assert(TEXT_LITERAL % RAISE_MESSAGE_COUNT == 0, "uniform raises");
_Static_assert(TEXT_LITERAL % COMPUTE_TYPE_COUNT == 0, "uniform types");
_Static_assert(256 - TEXT_LITERAL == LCTX_MAX_NAME + 1, "text lengths");
_Static_assert(256 - NAME_LITERAL == LCTX_MAX_NAME + 1, "name lengths");
_Static_assert(256 - MESSAGE_LITERAL == LCTX_MAX_MESSAGE + 1, "messages");
_Static_assert(LCTX_MAX_PLATFORMS_CONFIG == 255, "one length byte");

/* The character of each literal byte, computed by the compiler: the
 * decoder looks a byte up instead of branching on it (each branch of
 * instrumented code is a comparison libFuzzer traces). */
#define LITERAL_CHAR(b)                                                        \
  ((b) == 0 ? '_' : (b) < 0x80 ? (char)(b) : (char)(0x20 + ((b)-0x80) % 95))
#define LITERAL_4(b)                                                           \
  LITERAL_CHAR(b), LITERAL_CHAR((b) + 1), LITERAL_CHAR((b) + 2),               \
      LITERAL_CHAR((b) + 3)
#define LITERAL_16(b)                                                          \
  LITERAL_4(b), LITERAL_4((b) + 4), LITERAL_4((b) + 8), LITERAL_4((b) + 12)
#define LITERAL_64(b)                                                          \
  LITERAL_16(b), LITERAL_16((b) + 16), LITERAL_16((b) + 32),                   \
      LITERAL_16((b) + 48)
static const char LITERAL_CHARS[256] = {LITERAL_64(0), LITERAL_64(64),
                                        LITERAL_64(128), LITERAL_64(192)};

char lctx_case_bytes_literal_char(uint8_t b) {
  return LITERAL_CHARS[b];
}

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

typedef struct reader {
  const uint8_t *data;
  size_t size;
  size_t pos;
} reader;

/* A byte of the input, 0 past its end. Without a branch: `in` is all ones
 * while pos < size (pos - size wraps around to a number with its top bit
 * set; sizes stay far below 2^63) and 0 after, so that the read stays at
 * data[0] (an input of no byte reads a zero byte of its own) and gives 0.
 * A comparison here would be traced by libFuzzer for every byte. */
static uint8_t next(reader *r) {
  size_t in =
      (size_t)0 - ((r->pos - r->size) >> (sizeof(size_t) * CHAR_BIT - 1));
  uint8_t b = r->data[r->pos & in] & (uint8_t)in;
  r->pos++;
  return b;
}

static bool exhausted(const reader *r) {
  return r->pos >= r->size;
}

static void read_literal(reader *r, size_t n, char *dst) {
  for (size_t i = 0; i < n; i++)
    dst[i] = LITERAL_CHARS[next(r)];
  dst[n] = '\0';
}

static void read_from(reader *r, char *dst, const entry *dict, size_t count,
                      unsigned literal) {
  uint8_t s = next(r);
  if (s < literal) {
    const entry *e = &dict[s % count];
    memcpy(dst, e->text, e->length + 1);
    return;
  }
  read_literal(r, (size_t)(s - literal), dst);
}

static void read_name(reader *r, char *dst) {
  read_from(r, dst, NAMES, NAME_COUNT, NAME_LITERAL);
}

/* Whether two names the decoder wrote are the same. Each was read into a
 * zero slot (see decode_empty), so its bytes past the NUL are zero and the
 * whole arrays are equal exactly when the strings are: compared a word at
 * a time with one branch, not with strcmp (which libFuzzer hooks and
 * traces). */
typedef char decoded_name[LCTX_MAX_NAME + 1];
_Static_assert(sizeof(decoded_name) % 8 == 0, "names in words");

static bool same_name(const decoded_name a, const decoded_name b) {
  uint64_t diff = 0;
  for (size_t i = 0; i < sizeof(decoded_name); i += 8) {
    uint64_t x, y;
    memcpy(&x, a + i, 8);
    memcpy(&y, b + i, 8);
    diff |= x ^ y;
  }
  return diff == 0;
}

/* Reads a platform name and interns it in `c` as lctx_case_intern_cstr
 * does (the first equal name, else a new one while there is room),
 * storing its index at `list[*count]` and counting it; a name the full
 * table does not hold is read and left out. The names are zero-padded to
 * their slots (case.c), and so is the one read here, so they compare as
 * same_name does (memcmp and strcmp are hooked by libFuzzer). */
static void read_platform(reader *r, lctx_case *c, uint8_t *list,
                          size_t *count) {
  decoded_name name;
  memset(name, 0, sizeof name);
  read_name(r, name);
  size_t n =
      c->name_count < LCTX_CASE_MAX_NAMES ? c->name_count : LCTX_CASE_MAX_NAMES;
  for (size_t i = 0; i < n; i++) {
    if (same_name(c->names[i], name)) {
      list[(*count)++] = (uint8_t)i;
      return;
    }
  }
  if (n >= LCTX_CASE_MAX_NAMES)
    return;
  memcpy(c->names[n], name, sizeof name);
  c->name_count = n + 1;
  list[(*count)++] = (uint8_t)n;
}

/* Drops the names past the first `n` of `c` (those an operation left out
 * added). */
static void drop_names(lctx_case *c, size_t n) {
  if (c->name_count > n)
    memset(c->names[n], 0, (c->name_count - n) * sizeof c->names[0]);
  c->name_count = n;
}

static int read_priority(reader *r) {
  uint8_t s = next(r);
  if (s < PRIORITY_EXPLICIT)
    return PRIORITIES[s % PRIORITY_COUNT];
  uint32_t v = 0;
  for (int i = 0; i < 4; i++)
    v |= (uint32_t)next(r) << (8 * i);
  /* Two's complement without implementation-defined conversion. */
  return v <= (uint32_t)INT_MAX ? (int)v : (int)(v - 0x80000000u) + INT_MIN;
}

static void read_platforms_config(reader *r, char *dst) {
  uint8_t s = next(r);
  if (s < PLATFORMS_LITERAL) {
    const entry *e = &PLATFORMS[s % PLATFORMS_COUNT];
    memcpy(dst, e->text, e->length + 1);
    return;
  }
  read_literal(r, next(r), dst);
}

/* Every name, message and platforms config the decoder writes is valid by
 * construction: a dictionary entry, or a literal of bytes 0x01-0x7f
 * (lctx_case_bytes_literal_char) no longer than the field's limit. So only
 * the lowering parts can make a decoded case invalid, and checking them
 * alone gives lctx_case_validate's verdict (tests/test_case_bytes.c checks
 * that decoded cases validate). */
_Static_assert(255 - NAME_LITERAL <= LCTX_MAX_NAME, "literal names fit");
_Static_assert(255 - TEXT_LITERAL <= LCTX_MAX_NAME, "literal texts fit");
_Static_assert(255 - MESSAGE_LITERAL <= LCTX_MAX_MESSAGE, "messages fit");
_Static_assert(255 <= LCTX_MAX_PLATFORMS_CONFIG, "platform configs fit");

static bool valid(const lctx_case *c) {
  char storage[256];
  lctx_buf e;
  lctx_buf_init(&e, storage, sizeof storage);
  return lctx_case_validate_lowering(c, &e);
}

/* Reads an action into `a`, a zero slot (see decode_empty). */
static void read_action(reader *r, lctx_case_action *a) {
  uint8_t flags = next(r);
  a->kind = (lctx_lowering_action_kind)((flags & 7) % 7);
  bool raise = a->kind == LCTX_ACTION_RAISE_IF_MULTI;
  bool lower = a->kind == LCTX_ACTION_LOWER_FUN;
  read_from(r, a->text, raise ? RAISE_MESSAGES : PRIMITIVES,
            raise ? RAISE_MESSAGE_COUNT : PRIMITIVE_COUNT, TEXT_LITERAL);
  read_from(r, a->compute_type, COMPUTE_TYPES, COMPUTE_TYPE_COUNT,
            TEXT_LITERAL);
  a->optional = (a->kind == LCTX_ACTION_GET_BACKEND ||
                 a->kind == LCTX_ACTION_GUARDED_GET_BACKEND) &&
                ((flags >> 3) & 1);
  a->has_compute_type = lower && ((flags >> 4) & 1);
  if (!raise && !lower)
    memset(a->text, 0, sizeof a->text);
  if (!a->has_compute_type)
    memset(a->compute_type, 0, sizeof a->compute_type);
}

/* Reads rule `out->rule_count` and keeps it unless its name is empty or
 * repeated; lower_fun actions that break lctx_case_validate (a ninth
 * primitive name) become markers, the last first. */
static void read_rule(reader *r, lctx_case *out, lctx_case_byte_spans *spans) {
  lctx_case_rule *rule = &out->rules[out->rule_count]; /* zero (see decode) */
  read_from(r, rule->name, RULE_NAMES, RULE_NAME_COUNT, TEXT_LITERAL);
  size_t actions = next(r) % (LCTX_CASE_MAX_ACTIONS + 1);
  for (size_t k = 0; k < actions && !exhausted(r); k++)
    read_action(r, &rule->actions[rule->action_count++]);
  bool repeated = false;
  for (size_t i = 0; i < out->rule_count; i++)
    repeated |= same_name(out->rules[i].name, rule->name);
  if (rule->name[0] == '\0' || repeated) {
    memset(rule, 0, sizeof *rule);
    return;
  }
  out->rule_count++;
  /* Rules come before every operation: with none yet, the lowering
   * verdict of the case (valid before this rule) depends on the rules
   * alone, their names (non-empty and distinct, as kept here), action
   * counts and kinds (in range by construction) and their lower_fun
   * primitives (at most 8 distinct). A rule without lower_fun leaves it
   * valid; only one with lower_fun needs the check. */
  bool lowers = out->op_count > 0;
  for (size_t k = 0; k < rule->action_count && !lowers; k++)
    lowers = rule->actions[k].kind == LCTX_ACTION_LOWER_FUN;
  bool ok = !lowers || valid(out);
  for (size_t k = rule->action_count; !ok && k-- > 0;) {
    lctx_case_action *a = &rule->actions[k];
    if (a->kind == LCTX_ACTION_LOWER_FUN) {
      memset(a, 0, sizeof *a);
      a->kind = LCTX_ACTION_EMIT_MARKER;
      ok = valid(out); /* only a change can change the verdict */
    }
  }
  if (!ok) { /* not reached: no operation binds a rule yet */
    memset(rule, 0, sizeof *rule);
    out->rule_count--;
    return;
  }
  spans->rule_end[out->rule_count - 1] = r->pos;
}

/* The table entry the kind byte `b` selects: of the entries whose code
 * matches, the one with the most mask bits (the built-in ones cover every
 * byte). */
static const lctx_op_def *op_of_byte(uint8_t b) {
  const lctx_op_def *best = lctx_op_get(LCTX_OP_BACKENDS);
  int bits = -1;
  for (size_t k = 0; k < LCTX_OP_KIND_COUNT; k++) {
    const lctx_op_def *def = lctx_op_get((lctx_op_kind)k);
    int n = __builtin_popcount(def->byte_mask);
    if ((b & def->byte_mask) == def->byte_code && n > bits) {
      best = def;
      bits = n;
    }
  }
  return best;
}

#define FIELD(def, member)                                                     \
  lctx_op_field_at((def), offsetof(lctx_case_op, member))

/* Clears what the operation's kind does not use (case.h: unused fields are
 * zero) and binds its rule (`rule`: the selected rule's index, or -1).
 * False, the operation and the names it interned (past `names`) dropped,
 * when it needs a rule and the case declares none. */
static bool keep_fields(lctx_case *out, lctx_case_op *op,
                        const lctx_op_def *def, size_t names, int rule) {
  if (!op->has_arg)
    memset(op->arg, 0, sizeof op->arg);
  if (!FIELD(def, platform)) {
    memset(op->platform, 0, sizeof op->platform);
    op->platform_count = 0;
    drop_names(out, names);
  }
  if (!op->has_backend)
    memset(op->backend, 0, sizeof op->backend);
  if (!op->has_narrow) {
    memset(op->narrowed, 0, sizeof op->narrowed);
    op->narrow_count = 0;
  }
  if (!op->has_compute_type)
    memset(op->compute_type, 0, sizeof op->compute_type);
  bool needs_rule = FIELD(def, rule) != NULL;
  if (needs_rule && rule >= 0)
    memcpy(op->rule, out->rules[rule].name, sizeof op->rule);
  if (op->has_override)
    memcpy(op->override, out->rules[rule].name, sizeof op->override);
  if (needs_rule && rule < 0) {
    memset(op, 0, sizeof *op);
    drop_names(out, names);
    return false;
  }
  return true;
}

/* Makes the lowering operation `op`, the case's last, valid if it can:
 * drops its optional rule (override), then its optional lists (narrow),
 * then the platforms of its lists from the last. `ok` is the verdict of the
 * case as it stands; returns the last. */
static bool degrade(lctx_case *out, lctx_case_op *op, const lctx_op_def *def,
                    bool ok) {
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < def->field_count && !ok; i++) {
      const lctx_op_field *f = &def->fields[i];
      if (!f->optional ||
          f->kind != (pass == 0 ? LCTX_OP_FIELD_RULE : LCTX_OP_FIELD_LIST))
        continue;
      *lctx_op_has(op, f) = false;
      if (f->kind == LCTX_OP_FIELD_RULE) {
        memset(lctx_op_text(op, f), 0, LCTX_MAX_NAME + 1);
      } else {
        memset(lctx_op_text(op, f), 0, LCTX_MAX_MODULE_PLATFORMS);
        *lctx_op_count(op, f) = 0;
      }
      ok = valid(out);
    }
  }
  for (size_t i = 0; i < def->field_count && !ok; i++) {
    const lctx_op_field *f = &def->fields[i];
    if (f->optional || f->kind != LCTX_OP_FIELD_LIST)
      continue;
    size_t *count = lctx_op_count(op, f);
    uint8_t *list = (uint8_t *)lctx_op_text(op, f);
    while (!ok && *count > 0) {
      (*count)--;
      list[*count] = 0;
      ok = valid(out);
    }
  }
  return ok;
}

/* Reads operation `out->op_count`; keeps it unless it is a lowering
 * operation that cannot be made valid (see case_bytes.h). */
static void read_op(reader *r, lctx_case *out, lctx_case_byte_spans *spans) {
  lctx_case_op *op = &out->ops[out->op_count]; /* zero (see decode) */
  size_t names = out->name_count;
  uint8_t kind = next(r);
  const lctx_op_def *def = op_of_byte(kind);
  op->kind = def->kind;
  read_name(r, op->arg);
  size_t platforms = next(r) % (LCTX_MAX_MODULE_PLATFORMS + 1);
  for (size_t k = 0; k < platforms && !exhausted(r); k++)
    read_platform(r, out, op->platform, &op->platform_count);
  read_name(r, op->backend);
  int rule = -1;
  if (def->lowering) {
    read_from(r, op->primitive, PRIMITIVES, PRIMITIVE_COUNT, TEXT_LITERAL);
    uint8_t selector = next(r);
    if (out->rule_count > 0)
      rule = (int)(selector % out->rule_count);
    size_t narrow = next(r) % (LCTX_MAX_MODULE_PLATFORMS + 1);
    for (size_t k = 0; k < narrow && !exhausted(r); k++)
      read_platform(r, out, op->narrowed, &op->narrow_count);
    read_from(r, op->compute_type, COMPUTE_TYPES, COMPUTE_TYPE_COUNT,
              TEXT_LITERAL);
  }
  def->byte_flags(op, kind, rule >= 0);
  if (!keep_fields(out, op, def, names, rule))
    return;
  out->op_count++;
  /* `ok` is the verdict of the case as it stands: checked once per change
   * (lctx_case_validate_lowering is most of the decoding's work). */
  bool ok = !def->lowering || valid(out);
  if (!ok)
    ok = degrade(out, op, def, ok);
  if (!ok) {
    memset(op, 0, sizeof *op);
    out->op_count--;
    drop_names(out, names);
    return;
  }
  spans->op_end[out->op_count - 1] = r->pos;
}

/* Decodes into `out`, an empty case (lctx_case_init or lctx_case_reset):
 * every slot a part is read into is zero, since a dropped part is zeroed
 * again. */
static void decode_empty(const uint8_t *data, size_t size, lctx_case *out,
                         lctx_case_byte_spans *spans) {
  static const uint8_t no_byte = 0;
  reader r = {data && size ? data : &no_byte, data ? size : 0, 0};
  lctx_case_byte_spans local;
  if (!spans)
    spans = &local;
  memset(spans, 0, sizeof *spans);

  size_t factories = next(&r) % (LCTX_MAX_FACTORIES + 1);
  for (size_t i = 0; i < factories && !exhausted(&r); i++) {
    lctx_case_factory *f = &out->factories[out->factory_count];
    read_name(&r, f->name);
    f->priority = read_priority(&r);
    uint8_t flags = next(&r);
    f->fail_quietly = flags & 1;
    f->behaviour = (lctx_factory_behaviour)((flags >> 1) & 3);
    read_from(&r, f->message, MESSAGES, MESSAGE_COUNT, MESSAGE_LITERAL);
    if (f->behaviour != LCTX_FACTORY_RAISES)
      memset(f->message, 0, sizeof f->message);
    bool repeated = false;
    for (size_t j = 0; j < out->factory_count; j++)
      repeated |= same_name(out->factories[j].name, f->name);
    if (repeated) {
      memset(f, 0, sizeof *f);
      continue;
    }
    spans->factory_end[out->factory_count++] = r.pos;
  }

  uint8_t config = next(&r);
  out->nvidia_gpu_visible = config & 1;
  read_platforms_config(&r, out->jax_platforms);
  read_name(&r, out->jax_platform_name);
  read_name(&r, out->jax_xla_backend);
  spans->config_end = r.pos;

  size_t rules = (size_t)(config >> 1) % (LCTX_CASE_MAX_RULES + 1);
  for (size_t i = 0; i < rules && !exhausted(&r); i++)
    read_rule(&r, out, spans);
  spans->rules_end = r.pos;

  size_t ops = next(&r) % (LCTX_CASE_MAX_OPS + 1);
  for (size_t i = 0; i < ops && !exhausted(&r); i++)
    read_op(&r, out, spans);
  spans->end = r.pos;
}

void lctx_case_decode_spans(const uint8_t *data, size_t size, lctx_case *out,
                            lctx_case_byte_spans *spans) {
  lctx_case_init(out);
  decode_empty(data, size, out, spans);
}

void lctx_case_decode(const uint8_t *data, size_t size, lctx_case *out) {
  lctx_case_decode_spans(data, size, out, NULL);
}

void lctx_case_decode_reuse(const uint8_t *data, size_t size, lctx_case *out) {
  lctx_case_reset(out);
  decode_empty(data, size, out, NULL);
}

//===----------------------------------------------------------------------===//
// Encoding
//===----------------------------------------------------------------------===//

typedef struct writer {
  uint8_t *out; ///< NULL while measuring
  size_t n;
} writer;

static void put(writer *w, unsigned b) {
  if (w->out)
    w->out[w->n] = (uint8_t)b;
  w->n++;
}

/// Writes a dictionary selector or a literal of a field of capacity `cap`.
/// `explicit_length` says whether a literal has its own length byte.
static void put_text(writer *w, const char *s, size_t cap, size_t max,
                     const entry *dict, size_t count, unsigned literal,
                     bool explicit_length) {
  size_t n = strnlen(s, cap);
  if (n > max)
    n = max;
  for (size_t i = 0; i < count; i++) {
    if (dict[i].length == n && memcmp(dict[i].text, s, n) == 0) {
      put(w, (unsigned)i);
      return;
    }
  }
  if (explicit_length) {
    put(w, literal);
    put(w, (unsigned)n);
  } else {
    put(w, literal + (unsigned)n);
  }
  for (size_t i = 0; i < n; i++)
    put(w, (unsigned char)s[i]);
}

static void put_name(writer *w, const char *s) {
  put_text(w, s, LCTX_MAX_NAME + 1, LCTX_MAX_NAME, NAMES, NAME_COUNT,
           NAME_LITERAL, false);
}

static void put_priority(writer *w, int priority) {
  for (size_t i = 0; i < PRIORITY_COUNT; i++) {
    if (PRIORITIES[i] == priority) {
      put(w, (unsigned)i);
      return;
    }
  }
  put(w, PRIORITY_EXPLICIT);
  uint32_t v = (uint32_t)priority;
  for (int i = 0; i < 4; i++)
    put(w, (v >> (8 * i)) & 0xff);
}

/// Writes a lowering text field (rule name, primitive, raise message or
/// compute type) of capacity LCTX_MAX_NAME + 1.
static void put_lowering_text(writer *w, const char *s, const entry *dict,
                              size_t count) {
  put_text(w, s, LCTX_MAX_NAME + 1, LCTX_MAX_NAME, dict, count, TEXT_LITERAL,
           false);
}

/// Writes a rule selector: the index of the rule named `name`.
static void put_rule_ref(writer *w, const lctx_case *c, const char *name) {
  int i = lctx_case_rule_find(c, name);
  put(w, i < 0 ? 0u : (unsigned)i);
}

static void put_names(writer *w, const lctx_case *c, const uint8_t *list,
                      size_t count) {
  if (count > LCTX_MAX_MODULE_PLATFORMS)
    count = LCTX_MAX_MODULE_PLATFORMS;
  put(w, (unsigned)count);
  for (size_t k = 0; k < count; k++)
    put_name(w, lctx_case_name(c, list[k]));
}

static void encode_rule(writer *w, const lctx_case_rule *rule) {
  put_lowering_text(w, rule->name, RULE_NAMES, RULE_NAME_COUNT);
  size_t actions = rule->action_count < LCTX_CASE_MAX_ACTIONS
                       ? rule->action_count
                       : LCTX_CASE_MAX_ACTIONS;
  put(w, (unsigned)actions);
  for (size_t k = 0; k < actions; k++) {
    const lctx_case_action *a = &rule->actions[k];
    bool raise = a->kind == LCTX_ACTION_RAISE_IF_MULTI;
    bool lower = a->kind == LCTX_ACTION_LOWER_FUN;
    put(w, ((unsigned)a->kind % 7) | (a->optional ? 1u << 3 : 0) |
               (lower && a->has_compute_type ? 1u << 4 : 0));
    if (raise)
      put_lowering_text(w, a->text, RAISE_MESSAGES, RAISE_MESSAGE_COUNT);
    else if (lower)
      put_lowering_text(w, a->text, PRIMITIVES, PRIMITIVE_COUNT);
    else
      put(w, 0);
    if (lower && a->has_compute_type)
      put_lowering_text(w, a->compute_type, COMPUTE_TYPES, COMPUTE_TYPE_COUNT);
    else
      put(w, 0);
  }
}

/* An operation: the kind byte, then the fields every operation has (its
 * argument, platforms and pinned backend, zero where it has none), then a
 * lowering operation's slots. */
static void encode_op(writer *w, const lctx_case *c, const lctx_case_op *op) {
  const lctx_op_def *def = lctx_op_get(op->kind);
  if (!def)
    def = lctx_op_get(LCTX_OP_BACKENDS);
  put(w, def->byte_kind(op));
  const lctx_op_field *arg = FIELD(def, arg);
  if (arg && (arg->kind == LCTX_OP_FIELD_NAME || op->has_arg))
    put_name(w, op->arg);
  else
    put(w, 0);
  put_names(w, c, op->platform, FIELD(def, platform) ? op->platform_count : 0);
  if (FIELD(def, backend) && op->has_backend)
    put_name(w, op->backend);
  else
    put(w, 0);
  if (!def->lowering)
    return;
  put_lowering_text(w, op->primitive, PRIMITIVES, PRIMITIVE_COUNT);
  if (FIELD(def, rule))
    put_rule_ref(w, c, op->rule);
  else if (FIELD(def, override) && op->has_override)
    put_rule_ref(w, c, op->override);
  else
    put(w, 0);
  put_names(w, c, op->narrowed,
            FIELD(def, narrowed) && op->has_narrow ? op->narrow_count : 0);
  if (FIELD(def, compute_type) && op->has_compute_type)
    put_lowering_text(w, op->compute_type, COMPUTE_TYPES, COMPUTE_TYPE_COUNT);
  else
    put(w, 0);
}

static void encode(const lctx_case *c, writer *w) {
  size_t factories = c->factory_count < LCTX_MAX_FACTORIES ? c->factory_count
                                                           : LCTX_MAX_FACTORIES;
  put(w, (unsigned)factories);
  for (size_t i = 0; i < factories; i++) {
    const lctx_case_factory *f = &c->factories[i];
    put_name(w, f->name);
    put_priority(w, f->priority);
    put(w, (f->fail_quietly ? 1u : 0u) | (((unsigned)f->behaviour & 3) << 1));
    if (f->behaviour == LCTX_FACTORY_RAISES)
      put_text(w, f->message, sizeof f->message, LCTX_MAX_MESSAGE, MESSAGES,
               MESSAGE_COUNT, MESSAGE_LITERAL, false);
    else
      put(w, 0);
  }
  size_t rules =
      c->rule_count < LCTX_CASE_MAX_RULES ? c->rule_count : LCTX_CASE_MAX_RULES;
  put(w, (c->nvidia_gpu_visible ? 1u : 0u) | (unsigned)rules << 1);
  put_text(w, c->jax_platforms, sizeof c->jax_platforms,
           LCTX_MAX_PLATFORMS_CONFIG, PLATFORMS, PLATFORMS_COUNT,
           PLATFORMS_LITERAL, true);
  put_name(w, c->jax_platform_name);
  put_name(w, c->jax_xla_backend);
  for (size_t i = 0; i < rules; i++)
    encode_rule(w, &c->rules[i]);
  size_t ops =
      c->op_count < LCTX_CASE_MAX_OPS ? c->op_count : LCTX_CASE_MAX_OPS;
  put(w, (unsigned)ops);
  for (size_t i = 0; i < ops; i++)
    encode_op(w, c, &c->ops[i]);
}

/* `out` is written through a writer; clang-tidy cannot see it. */
// NOLINTNEXTLINE(readability-non-const-parameter)
size_t lctx_case_encode(const lctx_case *c, uint8_t *out, size_t capacity) {
  writer measure = {NULL, 0};
  encode(c, &measure);
  if (out && measure.n <= capacity) {
    writer w = {out, 0};
    encode(c, &w);
  }
  return measure.n;
}
