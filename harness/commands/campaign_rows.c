/*
 * campaign_rows.c - the spec rows a campaign's corpus hits and those its
 * target cannot reach (see campaign_rows.h).
 */
#include "campaign_rows.h"

#include "sys.h"

#include <string.h>

static void visit(void *user, const char *path) {
  lctx_campaign_rows *r = user;
  if (lctx_seen_add(&r->seen, path))
    lctx_row_hits_add(&r->counted, path);
}

void lctx_campaign_rows_start(lctx_campaign_rows *r, const char *target,
                              const char *seeds) {
  r->target = target;
  r->enabled = lctx_row_hits_of_target(target);
  if (!r->enabled)
    return;
  char e[256];
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  r->enabled = lctx_row_hits_init(&r->counted, &eb);
  if (!r->enabled)
    return;
  lctx_target_exercises ex = lctx_target_exercises_of(target);
  for (size_t i = 0; i < r->counted.spec.row_count; i++)
    r->reach[i] = (uint8_t)lctx_row_reach_of(&r->counted.spec.rows[i], ex);
  lctx_sys_each_file(seeds, visit, r);
}

void lctx_campaign_rows_scan(lctx_campaign_rows *r, const char *dir) {
  if (r->enabled)
    lctx_sys_each_file(dir, visit, r);
}

/* Whether row `i` was hit. */
static bool hit(const lctx_campaign_rows *r, size_t i) {
  return r->counted.oracle.hits[i] > 0;
}

size_t lctx_campaign_rows_hit(const lctx_campaign_rows *r) {
  return lctx_row_hits_hit(&r->counted);
}

size_t lctx_campaign_rows_reachable(const lctx_campaign_rows *r) {
  size_t n = 0;
  for (size_t i = 0; i < r->counted.spec.row_count; i++)
    n += r->reach[i] == LCTX_ROW_REACHABLE || hit(r, i);
  return n;
}

/* Prints " ID" for every row not hit whose reach is `reach`; returns how
 * many. */
static size_t print_ids(const lctx_campaign_rows *r, lctx_row_reach reach,
                        FILE *w) {
  size_t n = 0;
  for (size_t i = 0; i < r->counted.spec.row_count; i++) {
    if (!hit(r, i) && r->reach[i] == (uint8_t)reach) {
      fprintf(w, " %s", r->counted.spec.rows[i].id);
      n++;
    }
  }
  return n;
}

/* How many rows not hit have the reach `reach`. */
static size_t count_ids(const lctx_campaign_rows *r, lctx_row_reach reach) {
  size_t n = 0;
  for (size_t i = 0; i < r->counted.spec.row_count; i++)
    n += !hit(r, i) && r->reach[i] == (uint8_t)reach;
  return n;
}

void lctx_campaign_rows_print_missed(const lctx_campaign_rows *r, FILE *w) {
  if (!r->enabled || count_ids(r, LCTX_ROW_REACHABLE) == 0)
    return;
  fprintf(w, "  spec rows missed (%s can reach them):", r->target);
  print_ids(r, LCTX_ROW_REACHABLE, w);
  fputc('\n', w);
}

/* The reasons a row is out of reach, in the order the summary gives them. */
static const lctx_row_reach OUT_OF_REACH[] = {
    LCTX_ROW_NO_MODULE, LCTX_ROW_ABSENT, LCTX_ROW_NO_SWEEP, LCTX_ROW_NO_CASES};
#define OUT_OF_REACH_COUNT (sizeof OUT_OF_REACH / sizeof OUT_OF_REACH[0])

void lctx_campaign_rows_summary(const lctx_campaign_rows *r, FILE *w) {
  if (!r->enabled)
    return;
  fprintf(w,
          "  spec rows hit by the corpus: %zu of the %zu %s can reach (%zu in "
          "the table); missed:",
          lctx_campaign_rows_hit(r), lctx_campaign_rows_reachable(r), r->target,
          r->counted.spec.row_count);
  if (print_ids(r, LCTX_ROW_REACHABLE, w) == 0)
    fputs(" none", w);
  fputc('\n', w);
  bool first = true;
  for (size_t k = 0; k < OUT_OF_REACH_COUNT; k++) {
    if (count_ids(r, OUT_OF_REACH[k]) == 0)
      continue;
    if (first)
      fprintf(w, "  spec rows %s cannot reach:", r->target);
    else
      fputc(';', w);
    print_ids(r, OUT_OF_REACH[k], w);
    fprintf(w, " (%s)", lctx_row_reach_why(OUT_OF_REACH[k]));
    first = false;
  }
  if (!first)
    fputc('\n', w);
}

void lctx_campaign_rows_json(const lctx_campaign_rows *r, json_t *state) {
  if (!r->enabled)
    return;
  const lctx_spec *spec = &r->counted.spec;
  json_t *missed = json_array(), *out = json_array();
  for (size_t i = 0; i < spec->row_count; i++) {
    if (hit(r, i))
      continue;
    if (r->reach[i] == LCTX_ROW_REACHABLE) {
      json_array_append_new(missed, json_string(spec->rows[i].id));
      continue;
    }
    json_t *row = json_object();
    json_object_set_new(row, "id", json_string(spec->rows[i].id));
    json_object_set_new(
        row, "why",
        json_string(lctx_row_reach_why((lctx_row_reach)r->reach[i])));
    json_array_append_new(out, row);
  }
  json_object_set_new(state, "rows_in_table",
                      json_integer((json_int_t)spec->row_count));
  json_object_set_new(
      state, "rows_reachable",
      json_integer((json_int_t)lctx_campaign_rows_reachable(r)));
  json_object_set_new(state, "rows_hit",
                      json_integer((json_int_t)lctx_campaign_rows_hit(r)));
  json_object_set_new(state, "rows_missed", missed);
  json_object_set_new(state, "rows_not_reachable", out);
}

void lctx_campaign_rows_free(lctx_campaign_rows *r) {
  lctx_seen_free(&r->seen);
}
