/*
 * spec.c - the spec table's queries (see spec.h): matching a row's
 * predicate against features, rendering and comparing its outcome
 * templates, and JAX's releases (the state of a row or fact at a release,
 * selecting the release the table judges as). The parser is spec_parse.c.
 */
#include "spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool lctx_spec_row_matches(const lctx_spec_row *row,
                           const lctx_features *features) {
  if (!(row->ops & (1u << features->op)))
    return false;
  for (size_t i = 0; i < row->clause_count; i++) {
    const lctx_spec_clause *cl = &row->clauses[i];
    bool in = (cl->values >> features->value[cl->feature]) & 1u;
    if (in == cl->negate)
      return false;
  }
  return true;
}

/* lctx_spec_match by scanning the operation's rows clause by clause: for
 * a feature value beyond the indexed ones. */
static size_t match_scan(const lctx_spec *spec, const lctx_features *features,
                         size_t *indices, size_t cap) {
  size_t n = 0;
  const uint8_t *rows = spec->op_rows[features->op];
  size_t count = spec->op_row_count[features->op];
  int key = spec->op_key[features->op];
  if (key >= 0 && features->value[key] >= 0 &&
      features->value[key] <= LCTX_FEATURE_MAX_VALUES) {
    rows = spec->key_rows[features->op][features->value[key]];
    count = spec->key_row_count[features->op][features->value[key]];
  }
  for (size_t k = 0; k < count; k++) {
    size_t i = rows[k];
    if (lctx_spec_row_matches(&spec->rows[i], features)) {
      if (n < cap)
        indices[n] = i;
      n++;
    }
  }
  return n;
}

size_t lctx_spec_match(const lctx_spec *spec, const lctx_features *features,
                       size_t *indices, size_t cap) {
  if ((unsigned)features->op >= LCTX_OP_KIND_COUNT)
    return 0;
  /* Every value indexed (in a pass of its own, without a branch a value)?
   * Then the rows are the intersection of the sets. */
  unsigned above = 0;
  for (size_t f = 0; f < LCTX_FEATURE_COUNT; f++)
    above |= (unsigned)features->value[f] > LCTX_FEATURE_MAX_VALUES;
  if (above)
    return match_scan(spec, features, indices, cap);
  uint64_t rows[LCTX_SPEC_ROW_WORDS];
  memcpy(rows, spec->op_set[features->op], sizeof rows);
  for (size_t f = 0; f < LCTX_FEATURE_COUNT; f++) {
    const uint64_t *admit = spec->admit_set[f][features->value[f]];
    for (size_t w = 0; w < LCTX_SPEC_ROW_WORDS; w++)
      rows[w] &= admit[w];
  }
  size_t n = 0;
  for (size_t w = 0; w < LCTX_SPEC_ROW_WORDS; w++) {
    for (uint64_t bits = rows[w]; bits != 0; bits &= bits - 1) {
      if (n < cap)
        indices[n] = w * 64 + (size_t)__builtin_ctzll(bits);
      n++;
    }
  }
  return n;
}

static bool render(const char *t, const lctx_features *features, lctx_buf *out,
                   lctx_buf *error) {
  for (const char *c = t; *c;) {
    /* Copy the literal run up to the next brace in one append. */
    size_t run = strcspn(c, "{}");
    if (run > 0) {
      lctx_buf_append(out, c, run);
      c += run;
      continue;
    }
    if ((c[0] == '{' && c[1] == '{') || (c[0] == '}' && c[1] == '}')) {
      lctx_buf_append_char(out, *c);
      c += 2;
      continue;
    }
    const char *close = c[0] == '{' ? strchr(c, '}') : NULL;
    lctx_placeholder ph;
    if (!close || !lctx_classify_placeholder_from_name(
                      lctx_str_make(c + 1, (size_t)(close - c - 1)), &ph))
      return false; /* rejected by the parser already */
    if (!features->has[ph]) {
      lctx_buf_append_cstr(error, "placeholder {");
      lctx_buf_append_cstr(error, lctx_classify_placeholder_name(ph));
      lctx_buf_append_cstr(error, "} does not apply to this operation");
      return false;
    }
    lctx_buf_append_str(out, lctx_classify_text(features, ph));
    c = close + 1;
  }
  return true;
}

/* Renders `allowed->text`: from its parts when it was compiled. */
static bool render_outcome_text(const lctx_spec_outcome *allowed,
                                const lctx_features *features, lctx_buf *out,
                                lctx_buf *error) {
  if (allowed->part_count > LCTX_SPEC_MAX_PARTS)
    return render(allowed->text, features, out, error);
  for (size_t i = 0; i < allowed->part_count; i++) {
    const lctx_spec_part *part = &allowed->parts[i];
    if (part->placeholder < 0) {
      lctx_buf_append(out, allowed->text + part->offset, part->length);
      continue;
    }
    if (!features->has[part->placeholder]) {
      lctx_buf_append_cstr(error, "placeholder {");
      lctx_buf_append_cstr(error, lctx_classify_placeholder_name(
                                      (lctx_placeholder)part->placeholder));
      lctx_buf_append_cstr(error, "} does not apply to this operation");
      return false;
    }
    lctx_buf_append_str(
        out, lctx_classify_text(features, (lctx_placeholder)part->placeholder));
  }
  return true;
}

/* The registration index of the registry client `allowed` stands for;
 * false (why in `error`) when it renders to no integer. */
static bool registration(const lctx_spec_outcome *allowed,
                         const lctx_features *features, int *value,
                         lctx_buf *error) {
  /* {client_reg} not rendered yet: the number it would render. */
  if (allowed->registration_part == LCTX_P_CLIENT_REG + 1 &&
      ((features->pending >> LCTX_P_CLIENT_REG) & 1u)) {
    *value = features->client_reg;
    return true;
  }
  char digits[32];
  lctx_buf d;
  lctx_buf_init(&d, digits, sizeof digits);
  if (!render(allowed->registration, features, &d, error))
    return false;
  char *endp;
  long v = strtol(digits, &endp, 10);
  if (d.length == 0 || *endp != '\0') {
    lctx_buf_append_cstr(error, "registration is not an integer");
    return false;
  }
  *value = (int)v;
  return true;
}

bool lctx_spec_render(const lctx_spec_outcome *allowed,
                      const lctx_features *features, lctx_outcome *out,
                      lctx_buf *error) {
  lctx_buf w;
  if (allowed->kind == LCTX_OUTCOME_RAISE)
    w = lctx_outcome_begin_raise(out, allowed->error);
  else
    w = lctx_outcome_begin(out, allowed->kind);
  if (allowed->kind == LCTX_OUTCOME_NONE) {
    lctx_outcome_set_none(out);
    return true;
  }
  if (!render_outcome_text(allowed, features, &w, error))
    return false;
  lctx_outcome_end(out, &w);
  if (allowed->kind == LCTX_OUTCOME_CLIENT) {
    out->origin = allowed->origin;
    out->registration = -1;
    if (allowed->origin == LCTX_CLIENT_REGISTRY &&
        !registration(allowed, features, &out->registration, error))
      return false;
  }
  return true;
}

uint32_t lctx_spec_features_mask(const lctx_features *features) {
  /* Eight flags (each byte 0 or 1) at a time: the multiply gathers byte k's
   * low bit into bit 56 + k. This runs for every operation judged. */
  uint32_t has = 0;
  unsigned i = 0;
  for (; i + 8 <= LCTX_PLACEHOLDER_COUNT; i += 8) {
    uint64_t w;
    memcpy(&w, &features->has[i], sizeof w);
    has |= (uint32_t)((w * 0x0102040810204080ULL) >> 56) << i;
  }
  for (; i < LCTX_PLACEHOLDER_COUNT; i++)
    has |= (uint32_t)features->has[i] << i;
  return has;
}

/* Compares `actual`'s text with the compiled `allowed->text` in place: 1
 * equal, 0 not, -1 when the rendered text would not fit an outcome (the
 * caller renders it then, to compare the cut text the same way). */
static int text_equals(const lctx_spec_outcome *allowed,
                       const lctx_features *features,
                       const lctx_outcome *actual) {
  size_t pos = 0;
  bool equal = true;
  for (size_t i = 0; i < allowed->part_count; i++) {
    const lctx_spec_part *part = &allowed->parts[i];
    const char *bytes = allowed->text + part->offset;
    size_t n = part->length;
    if (part->placeholder >= 0) {
      lctx_str t =
          lctx_classify_text(features, (lctx_placeholder)part->placeholder);
      bytes = t.data;
      n = t.length;
    }
    if (n >= sizeof actual->text - pos)
      return -1;
    if (equal && (pos + n > actual->length ||
                  (n > 0 && memcmp(actual->text + pos, bytes, n) != 0)))
      equal = false;
    pos += n;
  }
  return equal && pos == actual->length && !actual->truncated;
}

/* lctx_spec_allows by rendering `allowed` and comparing: apart, so that the
 * outcome it renders into (8 KB) is not in the frame of every call (under
 * AddressSanitizer a frame's size costs on each call). */
__attribute__((noinline)) static int
allows_rendered(const lctx_spec_outcome *allowed, const lctx_features *features,
                const lctx_outcome *actual) {
  lctx_outcome rendered;
  char why[256];
  lctx_buf wb;
  lctx_buf_init(&wb, why, sizeof why);
  if (!lctx_spec_render(allowed, features, &rendered, &wb))
    return -1;
  return lctx_outcome_equal(&rendered, actual);
}

/* Compares `actual` with the client `allowed` stands for in place, as
 * lctx_spec_render and lctx_outcome_equal would: 1 equal, 0 not, -1 when
 * it is to be rendered (a registration other than {client_reg} not yet
 * rendered, which might not render; a text that might not fit). Apart,
 * so that the other outcomes' calls do not pay for its frame. */
__attribute__((noinline)) static int
client_equals(const lctx_spec_outcome *allowed, const lctx_features *features,
              const lctx_outcome *actual) {
  if (allowed->part_count > LCTX_SPEC_MAX_PARTS)
    return -1;
  int reg = -1;
  if (allowed->origin == LCTX_CLIENT_REGISTRY) {
    if (allowed->registration_part != LCTX_P_CLIENT_REG + 1 ||
        !((features->pending >> LCTX_P_CLIENT_REG) & 1u))
      return -1;
    reg = features->client_reg;
  }
  if (actual->kind != LCTX_OUTCOME_CLIENT ||
      actual->origin != allowed->origin || actual->registration != reg)
    return 0;
  return text_equals(allowed, features, actual);
}

int lctx_spec_allows(const lctx_spec_outcome *allowed,
                     const lctx_features *features, uint32_t has,
                     const lctx_outcome *actual, bool strict) {
  if (allowed->uses & ~has)
    return -1;
  if (allowed->kind == LCTX_OUTCOME_NONE)
    return actual->kind == LCTX_OUTCOME_NONE;
  if (allowed->kind == LCTX_OUTCOME_RAISE && !strict)
    return actual->kind == LCTX_OUTCOME_RAISE &&
           actual->error == allowed->error;
  if (allowed->kind == LCTX_OUTCOME_CLIENT) {
    int equal = client_equals(allowed, features, actual);
    if (equal >= 0)
      return equal;
  } else if (allowed->part_count <= LCTX_SPEC_MAX_PARTS) {
    if (actual->kind != allowed->kind || (allowed->kind == LCTX_OUTCOME_RAISE &&
                                          actual->error != allowed->error))
      return 0;
    int equal = text_equals(allowed, features, actual);
    if (equal >= 0)
      return equal;
  }
  return allows_rendered(allowed, features, actual);
}

const lctx_spec_row *lctx_spec_find(const lctx_spec *spec, const char *id) {
  for (size_t i = 0; i < spec->row_count; i++) {
    if (strcmp(spec->rows[i].id, id) == 0)
      return &spec->rows[i];
  }
  return NULL;
}

//===----------------------------------------------------------------------===//
// Releases
//===----------------------------------------------------------------------===//

int lctx_spec_release_index(const lctx_spec *spec, const char *name) {
  if (!name || strcmp(name, LCTX_SPEC_MODELLED) == 0)
    return (int)spec->modelled;
  for (size_t i = 0; i <= spec->release_count; i++) {
    if (i != spec->modelled && strcmp(spec->releases[i], name) == 0)
      return (int)i;
  }
  return -1;
}

const char *lctx_spec_release_name(const lctx_spec *spec, size_t index) {
  return index <= spec->release_count && index != spec->modelled
             ? spec->releases[index]
             : LCTX_SPEC_MODELLED;
}

bool lctx_spec_same_at(const lctx_spec *spec, size_t a, size_t b) {
  lctx_facts fa, fb;
  lctx_spec_facts_at(spec, a, &fa);
  lctx_spec_facts_at(spec, b, &fb);
  for (int f = 0; f < LCTX_FACT_COUNT; f++)
    if (!lctx_classify_fact_equal(&fa, &fb, (lctx_fact)f))
      return false;
  for (size_t i = 0; i < spec->row_count; i++)
    if (lctx_spec_row_at(spec, i, a) != lctx_spec_row_at(spec, i, b))
      return false;
  return true;
}

bool lctx_spec_selected_modelled(const lctx_spec *spec) {
  return spec->selected == spec->modelled;
}

void lctx_spec_format_releases(const lctx_spec *spec, lctx_buf *out) {
  for (size_t i = 0; i <= spec->release_count; i++) {
    if (i > 0)
      lctx_buf_append_cstr(out, ", ");
    lctx_buf_append_cstr(out, lctx_spec_release_name(spec, i));
  }
}

/* Of the states `first` .. `first + count` (the current one, then `was`
 * lines in descending release order), the one that holds at `release`:
 * the `was` line with the smallest boundary after `release`, else the
 * current one (so at every release after the modelled commit, whose was
 * lines all lie before it). */
static const lctx_spec_was *state_at(const lctx_spec *spec, size_t first,
                                     size_t count, size_t release) {
  for (size_t k = count; k-- > 1;) {
    const lctx_spec_was *w = &spec->was[first + k];
    if (w->boundary > (int)release)
      return w;
  }
  return &spec->was[first];
}

const lctx_spec_was *lctx_spec_row_at(const lctx_spec *spec, size_t row,
                                      size_t release) {
  const lctx_spec_row *r = &spec->rows[row];
  if (r->was_count == 0)
    return NULL;
  return state_at(spec, r->first_was, r->was_count, release);
}

const lctx_spec_outcome *lctx_spec_outcomes_at(const lctx_spec *spec,
                                               size_t row, size_t release,
                                               size_t *count, bool *absent) {
  const lctx_spec_was *w = lctx_spec_row_at(spec, row, release);
  if (!w) {
    *count = spec->rows[row].outcome_count;
    *absent = false;
    return spec->rows[row].outcomes;
  }
  *count = w->absent ? 0 : w->outcome_count;
  *absent = w->absent;
  return &spec->was_outcomes[w->first_outcome];
}

const lctx_spec_was *lctx_spec_fact_at(const lctx_spec *spec, lctx_fact f,
                                       size_t release) {
  const lctx_spec_fact *fact = &spec->fact[f];
  if (!fact->stated)
    return NULL;
  const lctx_spec_was *w =
      state_at(spec, fact->first_was, fact->was_count, release);
  return w == &spec->was[fact->first_was] ? NULL : w;
}

void lctx_spec_facts_at(const lctx_spec *spec, size_t release,
                        lctx_facts *out) {
  *out = *lctx_classify_modelled_facts();
  for (int f = 0; f < LCTX_FACT_COUNT; f++) {
    const lctx_spec_fact *fact = &spec->fact[f];
    if (!fact->stated)
      continue;
    const lctx_spec_was *w =
        state_at(spec, fact->first_was, fact->was_count, release);
    out->count[f] = w->name_count;
    memcpy(out->names[f], w->names, sizeof out->names[f]);
  }
}

const lctx_facts *lctx_spec_facts(const lctx_spec *spec) {
  return &spec->facts;
}

bool lctx_spec_select(lctx_spec *spec, const char *name, lctx_buf *error) {
  int index = lctx_spec_release_index(spec, name);
  if (index < 0) {
    lctx_buf_append_cstr(error, "unknown JAX release '");
    lctx_buf_append_cstr(error, name);
    lctx_buf_append_cstr(error, "' (the table knows: ");
    lctx_spec_format_releases(spec, error);
    lctx_buf_append_char(error, ')');
    return false;
  }
  spec->selected = (size_t)index;
  snprintf(spec->selected_name, sizeof spec->selected_name, "%s",
           lctx_spec_release_name(spec, (size_t)index));
  lctx_spec_facts_at(spec, (size_t)index, &spec->facts);
  for (size_t i = 0; i < spec->row_count; i++) {
    lctx_spec_row *row = &spec->rows[i];
    const lctx_spec_was *w = lctx_spec_row_at(spec, i, (size_t)index);
    row->absent = w && w->absent;
    if (!w)
      continue;
    row->outcome_count = row->absent ? 0 : w->outcome_count;
    for (size_t k = 0; k < row->outcome_count; k++)
      row->outcomes[k] = spec->was_outcomes[w->first_outcome + k];
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Facts not read
//===----------------------------------------------------------------------===//

/* The names fact `f` takes at any release, each once, in first order. */
static size_t fact_names(const lctx_spec *spec, lctx_fact f,
                         char names[][LCTX_FACT_NAME_MAX], size_t cap) {
  const lctx_spec_fact *fact = &spec->fact[f];
  size_t n = 0;
  for (size_t k = 0; k < fact->was_count; k++) {
    const lctx_spec_was *w = &spec->was[fact->first_was + k];
    for (size_t i = 0; i < w->name_count; i++) {
      bool seen = false;
      for (size_t j = 0; j < n && !seen; j++)
        seen = strcmp(names[j], w->names[i]) == 0;
      if (!seen && n < cap)
        memcpy(names[n++], w->names[i], LCTX_FACT_NAME_MAX);
    }
  }
  return n;
}

int lctx_spec_depends_unread(const lctx_spec *spec, const lctx_case *c,
                             size_t index, lctx_features *scratch) {
  return lctx_spec_depends_unread_at(spec, spec->selected, c, index, scratch);
}

int lctx_spec_depends_unread_at(const lctx_spec *spec, size_t release,
                                const lctx_case *c, size_t index,
                                lctx_features *scratch) {
  lctx_facts base;
  bool have_base = false;
  for (int f = 0; f < LCTX_FACT_COUNT; f++) {
    const lctx_spec_fact *fact = &spec->fact[f];
    if (!fact->stated || release >= 32 || !(fact->unread & (1u << release)))
      continue;
    if (!have_base) {
      lctx_spec_facts_at(spec, release, &base);
      have_base = true;
    }
    lctx_facts facts = base;
    char names[LCTX_FACT_MAX_NAMES][LCTX_FACT_NAME_MAX] = {{0}};
    size_t n;
    bool flag = lctx_classify_fact_is_flag((lctx_fact)f);
    if (flag) {
      memcpy(names[0], "yes", 4);
      memcpy(names[1], "no", 3);
      n = 2;
    } else {
      n = fact_names(spec, (lctx_fact)f, names, LCTX_FACT_MAX_NAMES);
    }
    /* Every value: a flag's two, or each subset of the names in order. */
    size_t values = flag ? 2 : (n < 8 ? (size_t)1 << n : 256);
    size_t ops = index < LCTX_CASE_MAX_OPS ? index + 1 : LCTX_CASE_MAX_OPS;
    uint64_t first[LCTX_CASE_MAX_OPS] = {0}, sig[LCTX_CASE_MAX_OPS] = {0};
    for (size_t v = 0; v < values; v++) {
      facts.count[f] = 0;
      for (size_t i = 0; i < n; i++) {
        if (flag ? i == v : ((v >> i) & 1u))
          memcpy(facts.names[f][facts.count[f]++], names[i],
                 LCTX_FACT_NAME_MAX);
      }
      lctx_classify_signature(c, index, &facts, scratch, v ? sig : first);
      if (v > 0 && memcmp(first, sig, ops * sizeof sig[0]) != 0)
        return f;
    }
  }
  return -1;
}
