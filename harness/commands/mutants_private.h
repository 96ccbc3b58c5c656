/*
 * mutants_private.h - what mutants.c, mutants_list.c and mutants_report.c
 * share: the run's state (the mutant list, the kill cells of conform and the
 * fuzz runs), the list of mutants_list.c and the reports of mutants_report.c
 * (the matrix printed, mutants.json, mutants.md). Private to the kill matrix
 * (mutants.h is its interface).
 */
#ifndef LCTX_DRIVE_MUTANTS_PRIVATE_H
#define LCTX_DRIVE_MUTANTS_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "conform.h"
#include "corpus_rows.h"
#include "mutants.h"

#define MAX_MUTANTS 256
#define MAX_EXPECTED 24
#define PATH_CAP 4096

/* The two corpora a fuzz run can start from. */
enum { START_SEEDS = 0, START_EMPTY = 1, START_COUNT = 2 };
static const char *const START_NAMES[START_COUNT] = {"seeds", "empty"};
static const char *const START_TITLES[START_COUNT] = {"fuzz from seeds",
                                                      "fuzz from empty corpus"};

typedef struct mutant {
  char name[64];
  char description[512];
  char note[512]; /* optional: why a fuzzer may miss it */
  char expected[MAX_EXPECTED][LCTX_SPEC_MAX_ID];
  size_t expected_count;
  int line;
  char library[PATH_CAP];
} mutant;

typedef enum kill_status {
  K_NOT_RUN = 0,
  K_KILLED,
  K_LIVED,
  K_ERROR
} kill_status;

static const char *const STATUS_NAMES[] = {"not run", "killed", "lived",
                                           "error"};

typedef struct kill_cell {
  kill_status status;
  double seconds;             /* to the kill, or the whole run */
  double wall;                /* conform: the whole command */
  char row[LCTX_SPEC_MAX_ID]; /* the first row that caught it, or "" */
  bool row_expected;          /* the row is one the list expects */
  char detail[1024];          /* conform: the failure; fuzz: the key */
  bool by_seed;               /* fuzz: while running the start corpus */
  unsigned long long execs;   /* fuzz: inputs run */
  char reached[1024];         /* fuzz, lived: expected rows the corpus hit */
  char reproduce[8192];       /* killed: the line that shows it again */
} kill_cell;

/* One run: everything lctx_mutants_run works with, passed down to every
 * step (heap-allocated: the mutants and their cells are large). */
typedef struct state {
  lctx_mutants_options o;
  bool starts[START_COUNT]; /* the fuzz runs' starting corpora */
  lctx_spec spec;
  mutant mutants[MAX_MUTANTS];
  size_t count;
  kill_cell conform[MAX_MUTANTS];
  kill_cell fuzz[MAX_MUTANTS][START_COUNT];
  kill_cell control_conform;
  kill_cell control_fuzz[START_COUNT];
  char fuzz_options[PATH_CAP + 16]; /* <fuzzer>.options */
  char seeds_dir[PATH_CAP];
  lctx_report report;    /* of the last conform run */
  lctx_row_hits reached; /* what a corpus reaches */
} state;

typedef struct tally {
  size_t killed, total, slow;
  double slowest;
} tally;

/* The list (mutants_list.c). The first `n` bytes of `s` into `dst`
 * (`cap` bytes, cut, NUL-terminated). */
void lctx_mutants_copy_field(char *dst, size_t cap, const char *s, size_t n);

/* Reads and checks conformance/mutants/MUTANTS into st->mutants; false
 * (said on `err`) when it cannot be read or a line is wrong. */
bool lctx_mutants_load_list(state *st, FILE *err);

/* Keeps only the mutants named in --only (comma-separated); false (said)
 * when one is not listed. */
bool lctx_mutants_select_only(state *st, FILE *err);

/* Finds each mutant's library; false (said) when one is missing. */
bool lctx_mutants_find_libraries(state *st, FILE *err);

/* Whether `row` is one of the rows mutant `m` is expected to break. */
bool lctx_mutants_expected_row(const mutant *m, const char *row);

/* A cell of the matrix as text. */
void lctx_mutants_cell(const kill_cell *k, bool fuzz, char *out, size_t cap);

/* The kills of conform (`which` -1) or of the fuzz runs from start `which`. */
tally lctx_mutants_tally(const state *st, int which);

/* The share of the mutants killed, in percent. */
double lctx_mutants_percent(tally t);

/* Prints the kill matrix. */
void lctx_mutants_print_matrix(const state *st, FILE *out);

/* Writes mutants.json and mutants.md; false when the file cannot be
 * written. */
bool lctx_mutants_write_json(const state *st, const char *path);
bool lctx_mutants_write_markdown(const state *st, const char *path);

#endif /* LCTX_DRIVE_MUTANTS_PRIVATE_H */
