/*
 * irmemo.c - verdicts on modules kept by what decides them (see irmemo.h).
 */
#include "irmemo.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct slot {
  uint64_t hash;
  size_t length; /* 0: empty */
  uint8_t *key;
  lctx_ir_verdict verdict;
} slot;

struct lctx_ir_memo {
  size_t hits;
  size_t length;                     /* of the key being built */
  bool overflow;                     /* it is longer than the maximum */
  uint8_t key[LCTX_IR_MEMO_KEY_MAX]; /* the key being built */
  slot slots[LCTX_IR_MEMO_SLOTS];
};

lctx_ir_memo *lctx_ir_memo_new(void) {
  return calloc(1, sizeof(lctx_ir_memo));
}

void lctx_ir_memo_free(lctx_ir_memo *m) {
  if (!m)
    return;
  for (size_t i = 0; i < LCTX_IR_MEMO_SLOTS; i++)
    free(m->slots[i].key);
  free(m);
}

size_t lctx_ir_memo_hits(const lctx_ir_memo *m) {
  return m->hits;
}

static void put(lctx_ir_memo *m, const void *p, size_t n) {
  if (m->overflow || n > LCTX_IR_MEMO_KEY_MAX - m->length) {
    m->overflow = true;
    return;
  }
  memcpy(m->key + m->length, p, n);
  m->length += n;
}

static void put_size(lctx_ir_memo *m, size_t v) {
  put(m, &v, sizeof v);
}

/* A name with its length, so that no two lists of names run together. */
static void put_name(lctx_ir_memo *m, const char *s) {
  size_t n = s ? strlen(s) : SIZE_MAX;
  put_size(m, n);
  if (s)
    put(m, s, n);
}

static void put_rules(lctx_ir_memo *m, const lctx_ir_rules *r) {
  size_t n = r->count < LCTX_IR_MAX_RULES ? r->count : LCTX_IR_MAX_RULES;
  put_size(m, r->count);
  for (size_t k = 0; k < n; k++)
    put_name(m, r->names[k]);
}

/* The key: every field of the expectation the judgement reads, by value,
 * then the module text. */
static void build_key(lctx_ir_memo *m, const lctx_ir_expect_store *store,
                      lctx_str mlir) {
  const lctx_ir_expectation *e = &store->expect;
  m->length = 0;
  m->overflow = false;
  size_t platforms = e->platform_count < LCTX_IR_MAX_PLATFORMS
                         ? e->platform_count
                         : LCTX_IR_MAX_PLATFORMS;
  size_t dispatches = e->dispatch_count < LCTX_IR_MAX_DISPATCHES
                          ? e->dispatch_count
                          : LCTX_IR_MAX_DISPATCHES;
  put_size(m, e->platform_count);
  put(m, &e->x64, sizeof e->x64);
  put(m, &store->any_defect, sizeof store->any_defect);
  put_size(m, e->dispatch_count);
  for (size_t i = 0; i < dispatches; i++) {
    put_size(m, e->dispatches[i].entry_count);
    put_size(m, e->dispatches[i].kept_count);
  }
  for (size_t i = 0; i < platforms; i++) {
    put_name(m, e->platforms[i]);
    put_rules(m, &e->intended[i]);
    put(m, &e->has_jax_actual[i], sizeof e->has_jax_actual[i]);
    if (e->has_jax_actual[i])
      put_rules(m, &e->jax_actual[i]);
    put(m, &store->defect[i], sizeof store->defect[i]);
  }
  put_size(m, mlir.length);
  put(m, mlir.data, mlir.length);
}

static uint64_t hash(const uint8_t *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325u;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x100000001b3u;
    h ^= h >> 29;
  }
  for (; i < n; i++)
    h = (h ^ p[i]) * 0x100000001b3u;
  return h ^ (h >> 32);
}

bool lctx_ir_memo_judge(lctx_ir_memo *m, lctx_ircheck *ck, lctx_str mlir_text,
                        const lctx_ir_expect_store *store,
                        lctx_ir_report *report, lctx_ir_verdict *verdict) {
  build_key(m, store, mlir_text);
  if (m->overflow)
    return lctx_ir_judge(ck, mlir_text, store, report, verdict);
  uint64_t h = hash(m->key, m->length);
  slot *s = &m->slots[h % LCTX_IR_MEMO_SLOTS];
  if (s->length == m->length && s->hash == h &&
      memcmp(s->key, m->key, m->length) == 0) {
    m->hits++;
    *verdict = s->verdict;
    memset(report, 0, sizeof *report);
    report->parse_ok = report->verified = true;
    return verdict->ok;
  }
  bool ok = lctx_ir_judge(ck, mlir_text, store, report, verdict);
  uint8_t *key = s->length >= m->length ? s->key : realloc(s->key, m->length);
  if (key) {
    memcpy(key, m->key, m->length);
    s->key = key;
    s->length = m->length;
    s->hash = h;
    s->verdict = *verdict;
  }
  return ok;
}
