/*
 * oracle_drift.c - how a failing operation fares as other releases behave
 * (see oracle_drift.h): judged by each release's facts and rows, and the
 * facts and row lines that differ, said with their commits.
 */
#include "oracle_drift.h"

#include <string.h>

//===----------------------------------------------------------------------===//
// Drift: how a failing operation fares as other releases behave
//===----------------------------------------------------------------------===//

/* Judges operation `index` of `c` with outcome `actual` as release
 * `release` behaves: classified by its facts, judged by its rows' outcomes.
 * True when it passes; `*row` the row that judged it (SIZE_MAX: none, or
 * the case uses an operation the release does not have). */
static bool passes_at(const lctx_spec *spec, const lctx_case *c, size_t index,
                      const lctx_outcome *actual, bool exact, size_t release,
                      lctx_features *f, size_t *row) {
  *row = (size_t)-1;
  /* Where the case depends on a fact not read, nothing is claimed. */
  if (lctx_spec_depends_unread_at(spec, release, c, index, f) >= 0)
    return false;
  lctx_facts facts;
  lctx_spec_facts_at(spec, release, &facts);
  lctx_feature_state state;
  lctx_classify_init_at(&state, c, &facts);
  for (size_t k = 0; k <= index && k < c->op_count; k++) {
    lctx_classify_op(&state, k, f);
    size_t m[2], count;
    bool absent;
    if (lctx_spec_match(spec, f, m, 2) != 1)
      return false;
    const lctx_spec_outcome *o =
        lctx_spec_outcomes_at(spec, m[0], release, &count, &absent);
    if (absent)
      return false; /* the case does not exist there */
    if (k < index)
      continue;
    *row = m[0];
    uint32_t has = lctx_spec_features_mask(f);
    bool strict = spec->rows[m[0]].exact && exact;
    for (size_t i = 0; i < count; i++) {
      if (lctx_spec_allows(&o[i], f, has, actual, strict) == 1)
        return true;
    }
  }
  return false;
}

/* Appends the runs of the releases in `mask` ("<=0.10.2", "0.5.3..0.7.2",
 * ">=0.11.0", "modelled"), separated by ", ". */
static void format_runs(const lctx_spec *spec, uint32_t mask, lctx_buf *out) {
  size_t last = spec->release_count;
  bool first = true;
  for (size_t a = 0; a <= last; a++) {
    if (!((mask >> a) & 1u))
      continue;
    size_t b = a;
    while (b < last && ((mask >> (b + 1)) & 1u))
      b++;
    if (!first)
      lctx_buf_append_cstr(out, ", ");
    first = false;
    if (a == b) {
      lctx_buf_append_cstr(out, lctx_spec_release_name(spec, a));
    } else if (a == 0) {
      lctx_buf_append_cstr(out, "<=");
      lctx_buf_append_cstr(out, lctx_spec_release_name(spec, b));
    } else if (b == last) {
      lctx_buf_append_cstr(out, ">=");
      lctx_buf_append_cstr(out, lctx_spec_release_name(spec, a));
    } else {
      lctx_buf_append_cstr(out, lctx_spec_release_name(spec, a));
      lctx_buf_append_cstr(out, "..");
      lctx_buf_append_cstr(out, lctx_spec_release_name(spec, b));
    }
    a = b;
  }
}

/* The changes the explanation lists, each once. */
typedef struct changes {
  lctx_buf *out;
  size_t count;
  const lctx_spec_was *seen[LCTX_SPEC_MAX_WAS];
  size_t seen_count;
} changes;

/* Appends "WHAT changed in COMMIT (RELEASE)" for every state of
 * `first .. first + n` (its `was` lines) whose boundary lies in (lo, hi]. */
static void add_changes(changes *ch, const lctx_spec *spec, const char *what,
                        size_t first, size_t n, size_t lo, size_t hi) {
  for (size_t k = 1; k < n; k++) {
    const lctx_spec_was *w = &spec->was[first + k];
    bool seen = false;
    for (size_t i = 0; i < ch->seen_count && !seen; i++)
      seen = ch->seen[i] == w;
    if (seen || w->boundary <= (int)lo || w->boundary > (int)hi)
      continue;
    ch->seen[ch->seen_count++] = w;
    lctx_buf_append_cstr(ch->out, ch->count++ ? "; " : ": ");
    lctx_buf_append_cstr(ch->out, what);
    lctx_buf_append_cstr(ch->out, " changed in ");
    lctx_buf_append_cstr(ch->out, w->commit);
    lctx_buf_append_cstr(ch->out, " (");
    lctx_buf_append_cstr(ch->out, spec->releases[w->boundary]);
    lctx_buf_append_char(ch->out, ')');
  }
}

/* Where the case is classified: the operation, and the features to
 * classify into. */
typedef struct drift_case {
  const lctx_case *c;
  size_t index;
  lctx_features *f;
} drift_case;

/* Whether fact `f` changes how the case is classified: with `base`'s facts
 * (whose signature `base_sig` is) but `f` as `other` has it. */
static bool fact_matters(const drift_case *d, const lctx_facts *base,
                         const uint64_t *base_sig, const lctx_facts *other,
                         lctx_fact f) {
  uint64_t sig[LCTX_CASE_MAX_OPS];
  lctx_facts mixed = *base;
  mixed.count[f] = other->count[f];
  memcpy(mixed.names[f], other->names[f], sizeof mixed.names[f]);
  lctx_classify_signature(d->c, d->index, &mixed, d->f, sig);
  size_t n = d->index < LCTX_CASE_MAX_OPS ? d->index + 1 : LCTX_CASE_MAX_OPS;
  return memcmp(base_sig, sig, n * sizeof sig[0]) != 0;
}

/* The facts and the rows' `was` lines that differ between the selected
 * release and release `other`, where the operation is judged by `row`
 * (and by `selected_row` at the selected release). A fact is named only
 * when it matters: the case is classified otherwise with it alone as
 * `other` has it, or with every fact as `other` has them but it. */
static void explain_between(changes *ch, const lctx_spec *spec,
                            const drift_case *d, size_t other,
                            size_t selected_row, size_t row) {
  size_t r = spec->selected;
  size_t lo = r < other ? r : other, hi = r < other ? other : r;
  lctx_facts there;
  lctx_spec_facts_at(spec, other, &there);
  uint64_t here_sig[LCTX_CASE_MAX_OPS], there_sig[LCTX_CASE_MAX_OPS];
  lctx_classify_signature(d->c, d->index, &spec->facts, d->f, here_sig);
  lctx_classify_signature(d->c, d->index, &there, d->f, there_sig);
  for (int f = 0; f < LCTX_FACT_COUNT; f++) {
    const lctx_spec_fact *fact = &spec->fact[f];
    if (!fact->stated ||
        lctx_classify_fact_equal(&spec->facts, &there, (lctx_fact)f) ||
        (!fact_matters(d, &spec->facts, here_sig, &there, (lctx_fact)f) &&
         !fact_matters(d, &there, there_sig, &spec->facts, (lctx_fact)f)))
      continue;
    char what[64];
    snprintf(what, sizeof what, "fact %s",
             lctx_classify_fact_name((lctx_fact)f));
    add_changes(ch, spec, what, fact->first_was, fact->was_count, lo, hi);
  }
  size_t rows[2] = {selected_row, row};
  for (size_t i = 0; i < 2; i++) {
    if (rows[i] >= spec->row_count || (i == 1 && rows[1] == rows[0]))
      continue;
    const lctx_spec_row *sr = &spec->rows[rows[i]];
    char what[64];
    snprintf(what, sizeof what, "row %s", sr->id);
    if (lctx_spec_row_at(spec, rows[i], r) !=
        lctx_spec_row_at(spec, rows[i], other))
      add_changes(ch, spec, what, sr->first_was, sr->was_count, lo, hi);
  }
}

/* The nearest release in `mask` on each side of the selected one: what
 * changed between it and the selected one explains the difference. `rows`
 * (per release, the row judging the operation there) or NULL: only facts
 * are named. */
static size_t explain_nearest(const lctx_spec *spec, const drift_case *d,
                              uint32_t mask, const size_t *rows, lctx_buf *out,
                              size_t nearest_out[2]) {
  changes ch = {out, 0, {0}, 0};
  size_t sel = spec->selected, none = spec->row_count;
  size_t nearest[2] = {SIZE_MAX, SIZE_MAX};
  for (size_t k = sel; k-- > 0 && nearest[0] == SIZE_MAX;)
    if ((mask >> k) & 1u)
      nearest[0] = k;
  for (size_t k = sel + 1; k <= spec->release_count && nearest[1] == SIZE_MAX;
       k++)
    if ((mask >> k) & 1u)
      nearest[1] = k;
  for (size_t i = 0; i < 2; i++) {
    size_t k = nearest[i];
    if (k != SIZE_MAX)
      explain_between(&ch, spec, d, k, rows ? rows[sel] : none,
                      rows ? rows[k] : none);
    nearest_out[i] = k;
  }
  return ch.count;
}

/* "LEAD<releases> behaves: <changes>" for the releases in `mask` (none:
 * nothing is said); returns `mask`. */
static uint32_t say_drift(const lctx_spec *spec, const drift_case *d,
                          uint32_t mask, const size_t *rows, const char *lead,
                          lctx_buf *out) {
  if (!mask)
    return 0;
  lctx_buf_append_cstr(out, lead);
  format_runs(spec, mask, out);
  lctx_buf_append_cstr(out, " behaves");
  size_t nearest[2];
  if (explain_nearest(spec, d, mask, rows, out, nearest) == 0 && !rows) {
    /* A module: where the table's facts say nothing, the reference model's
     * own release facts tell what makes it expect this module there. */
    const lctx_release *here =
        lctx_release_find(lctx_spec_release_name(spec, spec->selected));
    for (size_t i = 0; i < 2; i++)
      if (nearest[i] != SIZE_MAX && here)
        lctx_release_describe_changes(
            here, lctx_release_find(lctx_spec_release_name(spec, nearest[i])),
            out);
  }
  return mask;
}

uint32_t lctx_oracle_drift(const lctx_spec *spec, const lctx_case *c,
                           size_t index, const lctx_outcome *actual, bool exact,
                           lctx_features *scratch, lctx_buf *out) {
  uint32_t mask = 0;
  size_t rows[LCTX_SPEC_MAX_RELEASES + 1];
  for (size_t r = 0; r <= spec->release_count; r++) {
    bool pass = passes_at(spec, c, index, actual, exact, r, scratch, &rows[r]);
    if (pass && r != spec->selected)
      mask |= 1u << r;
  }
  drift_case d = {c, index, scratch};
  return say_drift(spec, &d, mask, rows, "passes as JAX ", out);
}

uint32_t lctx_oracle_drift_ir(const lctx_spec *spec, const lctx_case *c,
                              size_t index, uint32_t passes,
                              lctx_features *scratch, lctx_buf *out) {
  passes &= ~(1u << spec->selected);
  for (size_t r = 0; r <= spec->release_count && r < 32; r++)
    if (((passes >> r) & 1u) &&
        lctx_spec_depends_unread_at(spec, r, c, index, scratch) >= 0)
      passes &= ~(1u << r);
  drift_case d = {c, index, scratch};
  return say_drift(spec, &d, passes, NULL, "passes as JAX ", out);
}

void lctx_oracle_drift_new(const lctx_spec *spec, size_t row, lctx_buf *out) {
  if (lctx_spec_selected_modelled(spec)) {
    lctx_buf_append_cstr(out, "new at the modelled commit ");
    lctx_buf_append_cstr(out, spec->jax_commit);
  } else {
    lctx_buf_append_cstr(out, "new at JAX ");
    lctx_buf_append_cstr(out, lctx_spec_release_name(spec, spec->selected));
  }
  lctx_buf_append_cstr(out, ": no release lctx knows behaves so");
  if (row < spec->row_count && spec->rows[row].source[0]) {
    lctx_buf_append_cstr(out, "; the row cites ");
    lctx_buf_append_cstr(out, spec->rows[row].source);
    lctx_buf_append_cstr(out, " at ");
    lctx_buf_append_cstr(out, spec->jax_commit);
    lctx_buf_append_cstr(out, " (tools/jax_release.py VERSION shows how those "
                              "lines differ in an installed release)");
  }
}
