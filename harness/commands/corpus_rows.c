/*
 * corpus_rows.c - the spec rows a corpus hits (see corpus_rows.h).
 */
#include "corpus_rows.h"

#include "fuzzcheck.h"
#include "sys.h"

#include <stdio.h>
#include <string.h>

bool lctx_row_hits_of_target(const char *target) {
  return strcmp(target, "fuzz_model") == 0 ||
         strcmp(target, "fuzz_differential") == 0;
}

lctx_target_exercises lctx_target_exercises_of(const char *target) {
  const lctx_fuzz_target *t = lctx_fuzz_target_find(target);
  lctx_target_exercises e = {false, false};
  if (t) {
    e.operations = lctx_row_hits_of_target(t->name);
    e.modules = t->needs_mlir;
  }
  return e;
}

lctx_row_reach lctx_row_reach_of(const lctx_spec_row *row,
                                 lctx_target_exercises e) {
  if (row->sweep)
    return LCTX_ROW_NO_SWEEP;
  if (row->ir)
    return e.modules ? LCTX_ROW_REACHABLE : LCTX_ROW_NO_MODULE;
  if (!e.operations)
    return LCTX_ROW_NO_CASES;
  return row->absent ? LCTX_ROW_ABSENT : LCTX_ROW_REACHABLE;
}

const char *lctx_row_reach_why(lctx_row_reach reach) {
  switch (reach) {
  case LCTX_ROW_REACHABLE:
    return "";
  case LCTX_ROW_NO_MODULE:
    return "check = ir: judged on the MLIR module a lowering emits; the "
           "target emits no module and runs no IR checker";
  case LCTX_ROW_NO_SWEEP:
    return "check = sweep: judged on real JAX's export answers, which no "
           "fuzz target runs";
  case LCTX_ROW_NO_CASES:
    return "an operation row: the target judges no case's operations by "
           "the table";
  case LCTX_ROW_ABSENT:
    return "absent at the table's modelled commit, the one release the "
           "fuzz targets judge by: the operation does not exist there";
  }
  return "";
}

bool lctx_row_hits_init(lctx_row_hits *r, lctx_buf *error) {
  lctx_str spec = lctx_fuzz_embedded_spec();
  r->inputs = 0;
  bool parsed =
      lctx_spec_parse(spec.data, spec.length, "<spec>", &r->spec, error);
  lctx_oracle_init(&r->oracle, &r->spec, lctx_engine_reference());
  r->oracle.invariants = false;
  return parsed;
}

bool lctx_row_hits_decode(lctx_row_hits *r, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return false;
  size_t n = fread(r->head, 1, sizeof r->head, f);
  bool read = !ferror(f);
  fclose(f);
  if (read)
    lctx_case_decode(r->head, n, &r->scratch);
  return read;
}

bool lctx_row_hits_add(lctx_row_hits *r, const char *path) {
  if (!lctx_row_hits_decode(r, path))
    return false;
  lctx_oracle_check_case(&r->oracle, &r->scratch);
  r->inputs++;
  return true;
}

static void add_one(void *user, const char *path) {
  const char *base = strrchr(path, '/');
  if (strcmp(base ? base + 1 : path, "README.md") != 0)
    lctx_row_hits_add(user, path);
}

void lctx_row_hits_add_dir(lctx_row_hits *r, const char *dir) {
  lctx_sys_each_file(dir, add_one, r);
}

size_t lctx_row_hits_hit(const lctx_row_hits *r) {
  size_t n = 0;
  for (size_t i = 0; i < r->spec.row_count; i++)
    n += r->oracle.hits[i] > 0;
  return n;
}

size_t lctx_row_hits_hits_of(const lctx_row_hits *r, const char *id) {
  const lctx_spec_row *row = lctx_spec_find(&r->spec, id);
  return row ? r->oracle.hits[row - r->spec.rows] : 0;
}
