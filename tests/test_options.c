/*
 * tests/test_options.c - pins the option parser of every `lctx` command
 * (harness/cli/options.h): each kind of option in both spellings (`--opt
 * value`, `--opt=value`), `--`, `-h`/`--help`, operands before, between and
 * after options, number limits, and every error with its exact message; and
 * that a second parse in one process starts afresh. Through lctx_cli_main:
 * every command built on it answers -h, --help and `lctx help CMD`, and
 * takes `--opt=value`; an option with a value given twice (`--impl a
 * --impl b`) and a list with an empty or repeated item (`--ops a,,a`) are
 * refused naming the option; `lctx fuzz` and `lctx corpus` show what was
 * typed escaped, never a raw control byte.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "exit.h"
#include "numbers.h"
#include "options.h"

//===----------------------------------------------------------------------===//
// A command with one option of each kind
//===----------------------------------------------------------------------===//

typedef struct values {
  bool quiet;
  const char *spec;
  size_t jobs, limit;
  unsigned long long seed;
  double time;
  unsigned shard_k, shard_n;
} values;

/* K/N with 1 <= K <= N, by the one shard parser (numbers.h). */
static bool parse_shard(const char *value, void *target, char *why, size_t n) {
  values *v = target;
  return lctx_numbers_parse_shard(value, &v->shard_k, &v->shard_n, why, n);
}

#define USAGE "usage: lctx t [--quiet] [--spec FILE] ... ARG...\n"

/* Parses "t" + args (NULL-terminated) by the table; `*shown` receives the
 * values, operands and outputs, rendered. */
static lctx_options_result parse(const char *const *args, bool operands,
                                 char *shown, size_t size) {
  values v = {.time = 30};
  const lctx_option options[] = {
      lctx_options_flag("quiet", &v.quiet, "say less"),
      lctx_options_string("spec", &v.spec, "FILE", "the spec table"),
      lctx_options_size("jobs", &v.jobs, "N", "workers", 1, 64,
                        "a count from 1 to 64"),
      lctx_options_size("limit", &v.limit, "N", "at most N", 0, 0, NULL),
      lctx_options_u64("seed", &v.seed, "S", "the seed", 0, 0, NULL),
      lctx_options_seconds("time", &v.time, "SECONDS", "how long", 0, 86400,
                           "a number of seconds"),
      lctx_options_custom("shard", &v, "K/N", "one shard", parse_shard),
  };
  const lctx_option_spec spec =
      LCTX_OPTIONS_SPEC("t", USAGE, options, operands);
  char *argv[32] = {"t"};
  int argc = 1;
  for (; args[argc - 1]; argc++)
    argv[argc] = (char *)args[argc - 1];
  char *out_text = NULL, *err_text = NULL;
  size_t out_size = 0, err_size = 0;
  FILE *out = open_memstream(&out_text, &out_size);
  FILE *err = open_memstream(&err_text, &err_size);
  assert_non_null(out);
  assert_non_null(err);
  int first = -1;
  lctx_options_result r =
      lctx_options_parse(&spec, argc, argv, &first, out, err);
  fclose(out);
  fclose(err);
  int n = snprintf(shown, size,
                   "quiet=%d spec=%s jobs=%zu limit=%zu seed=%llu time=%g "
                   "shard=%u/%u operands=",
                   v.quiet, v.spec ? v.spec : "-", v.jobs, v.limit, v.seed,
                   v.time, v.shard_k, v.shard_n);
  for (int i = first; r == LCTX_OPTIONS_OK && i < argc; i++)
    n += snprintf(shown + n, size - (size_t)n, "%s%s", argv[i],
                  i + 1 < argc ? "," : "");
  snprintf(shown + n, size - (size_t)n, "|%s|%s", out_text, err_text);
  free(out_text);
  free(err_text);
  return r;
}

#define DEFAULTS "spec=- jobs=0 limit=0 seed=0 time=30 shard=0/0"

typedef struct parse_case {
  const char *args[12];
  lctx_options_result result;
  /* Values, then `operands=`, then `|stdout|stderr`. */
  const char *shown;
} parse_case;

static void check_cases(const parse_case *cases, size_t count, bool operands) {
  for (size_t i = 0; i < count; i++) {
    char shown[4096];
    lctx_options_result r = parse(cases[i].args, operands, shown, sizeof shown);
    if (strcmp(shown, cases[i].shown) != 0 || r != cases[i].result)
      fail_msg("case %zu (%s ...): result %d, want %d\n  got:  %s\n  want: %s",
               i, cases[i].args[0] ? cases[i].args[0] : "(none)", (int)r,
               (int)cases[i].result, shown, cases[i].shown);
  }
}

#define OK LCTX_OPTIONS_OK
#define ERROR LCTX_OPTIONS_ERROR

//===----------------------------------------------------------------------===//
// Values of each kind, in both spellings
//===----------------------------------------------------------------------===//

static void test_each_kind_both_spellings(void **state) {
  (void)state;
  static const parse_case cases[] = {
      {{NULL}, OK, "quiet=0 " DEFAULTS " operands=||"},
      {{"--quiet", NULL}, OK, "quiet=1 " DEFAULTS " operands=||"},
      {{"--spec", "a.lspec", NULL},
       OK,
       "quiet=0 spec=a.lspec jobs=0 limit=0 seed=0 time=30 shard=0/0 "
       "operands=||"},
      {{"--spec=a.lspec", NULL},
       OK,
       "quiet=0 spec=a.lspec jobs=0 limit=0 seed=0 time=30 shard=0/0 "
       "operands=||"},
      {{"--spec=x=y", NULL},
       OK,
       "quiet=0 spec=x=y jobs=0 limit=0 seed=0 time=30 shard=0/0 "
       "operands=||"},
      {{"--jobs", "64", "--limit=18446744073709551615", NULL},
       OK,
       "quiet=0 spec=- jobs=64 limit=18446744073709551615 seed=0 time=30 "
       "shard=0/0 operands=||"},
      {{"--seed=18446744073709551615", "--time", "0.5", NULL},
       OK,
       "quiet=0 spec=- jobs=0 limit=0 seed=18446744073709551615 time=0.5 "
       "shard=0/0 operands=||"},
      {{"--time=86400", "--shard", "2/3", NULL},
       OK,
       "quiet=0 spec=- jobs=0 limit=0 seed=0 time=86400 shard=2/3 "
       "operands=||"},
      {{"--spec", "a", "--spec", "b", NULL},
       ERROR,
       "quiet=0 spec=a jobs=0 limit=0 seed=0 time=30 shard=0/0 operands=||"
       "lctx t: --spec is given more than once\n" USAGE},
      {{"--jobs=2", "--quiet", "--jobs", "2", NULL},
       ERROR,
       "quiet=1 spec=- jobs=2 limit=0 seed=0 time=30 shard=0/0 operands=||"
       "lctx t: --jobs is given more than once\n" USAGE},
      /* A flag may be repeated. */
      {{"--quiet", "--quiet", NULL}, OK, "quiet=1 " DEFAULTS " operands=||"},
      /* A value that looks like an option is a value. */
      {{"--spec", "--quiet", NULL},
       OK,
       "quiet=0 spec=--quiet jobs=0 limit=0 seed=0 time=30 shard=0/0 "
       "operands=||"},
  };
  check_cases(cases, sizeof cases / sizeof cases[0], true);
}

//===----------------------------------------------------------------------===//
// Operands and --
//===----------------------------------------------------------------------===//

static void test_operands_keep_their_order_around_options(void **state) {
  (void)state;
  static const parse_case cases[] = {
      {{"a", "--quiet", "b", "--spec", "s", "c", NULL},
       OK,
       "quiet=1 spec=s jobs=0 limit=0 seed=0 time=30 shard=0/0 "
       "operands=a,b,c||"},
      {{"-", NULL}, OK, "quiet=0 " DEFAULTS " operands=-||"},
      {{"--", "--quiet", "-h", "x", NULL},
       OK,
       "quiet=0 " DEFAULTS " operands=--quiet,-h,x||"},
      {{"a", "--", "--", NULL}, OK, "quiet=0 " DEFAULTS " operands=a,--||"},
      {{"--quiet", "--", NULL}, OK, "quiet=1 " DEFAULTS " operands=||"},
  };
  check_cases(cases, sizeof cases / sizeof cases[0], true);
}

static void test_operands_refused_when_none_allowed(void **state) {
  (void)state;
  static const parse_case cases[] = {
      {{"--quiet", "x", NULL},
       ERROR,
       "quiet=1 " DEFAULTS
       " operands=||lctx t: unexpected argument 'x'\n" USAGE},
      {{"--", "-x", NULL},
       ERROR,
       "quiet=0 " DEFAULTS
       " operands=||lctx t: unexpected argument '-x'\n" USAGE},
      {{"--quiet", "--", NULL}, OK, "quiet=1 " DEFAULTS " operands=||"},
  };
  check_cases(cases, sizeof cases / sizeof cases[0], false);
}

/* POSIXLY_CORRECT would make getopt_long stop at the first operand. */
static void test_operands_mix_under_posixly_correct(void **state) {
  (void)state;
  setenv("POSIXLY_CORRECT", "1", 1);
  static const parse_case cases[] = {
      {{"a", "--quiet", "b", NULL}, OK, "quiet=1 " DEFAULTS " operands=a,b||"},
  };
  check_cases(cases, sizeof cases / sizeof cases[0], true);
  unsetenv("POSIXLY_CORRECT");
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

static void test_unknown_options(void **state) {
  (void)state;
  static const parse_case cases[] = {
      {{"--frobnicate", NULL},
       ERROR,
       "quiet=0 " DEFAULTS " operands=||lctx t: unknown option "
       "'--frobnicate'\n" USAGE},
      {{"--frob=1", NULL},
       ERROR,
       "quiet=0 " DEFAULTS
       " operands=||lctx t: unknown option '--frob'\n" USAGE},
      {{"-x", NULL},
       ERROR,
       "quiet=0 " DEFAULTS " operands=||lctx t: unknown option '-x'\n" USAGE},
      {{"--quiet", "-qh", NULL},
       ERROR,
       "quiet=1 " DEFAULTS " operands=||lctx t: unknown option '-q'\n" USAGE},
      /* Prefixes of long names are not the names. */
      {{"--qui", NULL},
       ERROR,
       "quiet=0 " DEFAULTS
       " operands=||lctx t: unknown option '--qui'\n" USAGE},
      {{"--sp", "x", NULL},
       ERROR,
       "quiet=0 " DEFAULTS " operands=||lctx t: unknown option '--sp'\n" USAGE},
      {{"--sp", NULL},
       ERROR,
       "quiet=0 " DEFAULTS " operands=||lctx t: unknown option '--sp'\n" USAGE},
      {{"--se=1", NULL},
       ERROR,
       "quiet=0 " DEFAULTS " operands=||lctx t: unknown option '--se'\n" USAGE},
      {{"--he", NULL},
       ERROR,
       "quiet=0 " DEFAULTS " operands=||lctx t: unknown option '--he'\n" USAGE},
      {{"--quiet=yes", NULL},
       ERROR,
       "quiet=0 " DEFAULTS
       " operands=||lctx t: --quiet takes no value\n" USAGE},
  };
  check_cases(cases, sizeof cases / sizeof cases[0], true);
}

static void test_missing_and_empty_values(void **state) {
  (void)state;
  static const parse_case cases[] = {
      {{"--spec", NULL},
       ERROR,
       "quiet=0 " DEFAULTS " operands=||lctx t: --spec needs a value\n" USAGE},
      {{"--spec=", NULL},
       ERROR,
       "quiet=0 " DEFAULTS " operands=||lctx t: --spec needs a value\n" USAGE},
      {{"--spec", "", NULL},
       ERROR,
       "quiet=0 " DEFAULTS " operands=||lctx t: --spec needs a value\n" USAGE},
      {{"--jobs=", NULL},
       ERROR,
       "quiet=0 " DEFAULTS " operands=||lctx t: --jobs needs a value\n" USAGE},
      /* A custom option judges an empty value itself. */
      {{"--shard=", NULL},
       ERROR,
       "quiet=0 " DEFAULTS
       " operands=||lctx t: --shard: '' is not I/N with 1 <= I <= N\n"},
  };
  check_cases(cases, sizeof cases / sizeof cases[0], true);
}

/* Gives `option` each of `values` (NULL-terminated); each is refused with
 * `lctx t: OPTION: 'VALUE' is not NOUN`. */
static void check_bad_values(const char *option, const char *noun,
                             const char *const *values) {
  for (; *values; values++) {
    char shown[512];
    snprintf(shown, sizeof shown,
             "quiet=0 " DEFAULTS " operands=||lctx t: %s: '%s' is not %s\n",
             option, *values, noun);
    const parse_case c = {{option, *values, NULL}, ERROR, shown};
    check_cases(&c, 1, true);
  }
}

static void test_bad_numbers(void **state) {
  (void)state;
  check_bad_values(
      "--jobs", "a count from 1 to 64",
      (const char *const[]){"0", "65", "x", "4x", "-1", "+1", " 1", NULL});
  check_bad_values("--limit", "a number",
                   (const char *const[]){"18446744073709551616", NULL});
  check_bad_values("--seed", "a number",
                   (const char *const[]){"-0", "0x10", NULL});
  check_bad_values("--time", "a number of seconds",
                   (const char *const[]){"0", "86400.5", "-1", "nan", "inf",
                                         "0x10", "1s", NULL});
  check_bad_values("--shard", "I/N with 1 <= I <= N",
                   (const char *const[]){"3/2", NULL});
}

/* The whole string, digits only, range checked: a sign, a space before or
 * after, an empty string, an exponent or a number past its type is
 * refused, with the value quoted as given. */
static void test_strict_numbers(void **state) {
  (void)state;
  check_bad_values("--seed", "a number",
                   (const char *const[]){
                       " -1", "-1", "+1", "1 ", " 1", "99999999999999999999999",
                       "18446744073709551616", "1e3", "1.0", "１", NULL});
  check_bad_values("--limit", "a number",
                   (const char *const[]){"-0", "00x1", NULL});
  check_bad_values("--time", "a number of seconds",
                   (const char *const[]){" 1", "1 ", "+1", "1e3", ".", "1.2.3",
                                         "1,5", "0x1p3", NULL});
  check_bad_values("--shard", "I/N with 1 <= I <= N",
                   (const char *const[]){"1/-1", "-1/2", "+1/2", "0/1", "1/0",
                                         "/1", "1/", "1", "1/2/3", "1//2",
                                         " 1/2", "1/2 ", "1 /2",
                                         "4294967296/4294967296",
                                         "99999999999999999999/1", NULL});
  /* an empty value of a number option needs a value */
  static const parse_case empty[] = {
      {{"--seed", "", NULL},
       ERROR,
       "quiet=0 " DEFAULTS " operands=||lctx t: --seed needs a value\n" USAGE},
      {{"--time=", NULL},
       ERROR,
       "quiet=0 " DEFAULTS " operands=||lctx t: --time needs a value\n" USAGE},
  };
  check_cases(empty, sizeof empty / sizeof empty[0], true);
  /* the edges that are numbers */
  static const parse_case good[] = {
      {{"--seed", "007", "--shard", "4294967295/4294967295", "--time", ".5",
        NULL},
       OK,
       "quiet=0 spec=- jobs=0 limit=0 seed=7 time=0.5 "
       "shard=4294967295/4294967295 operands=||"},
      {{"--time", "2.", "--shard=1/1", NULL},
       OK,
       "quiet=0 spec=- jobs=0 limit=0 seed=0 time=2 shard=1/1 operands=||"},
  };
  check_cases(good, sizeof good / sizeof good[0], true);
}

/* The parsers of numbers.h on their own: ranges, overflow, out untouched
 * on a refusal. */
static void test_number_parsers(void **state) {
  (void)state;
  unsigned long long u = 42;
  assert_true(lctx_numbers_parse_uint("0", 0, 0, &u) && u == 0);
  assert_true(
      lctx_numbers_parse_uint("18446744073709551615", 0, ULLONG_MAX, &u) &&
      u == ULLONG_MAX);
  u = 42;
  assert_false(
      lctx_numbers_parse_uint("18446744073709551616", 0, ULLONG_MAX, &u));
  assert_false(lctx_numbers_parse_uint("", 0, 10, &u));
  assert_false(lctx_numbers_parse_uint("11", 0, 10, &u));
  assert_false(lctx_numbers_parse_uint("4", 5, 10, &u));
  assert_int_equal(u, 42);
  double d = 3;
  assert_true(lctx_numbers_parse_decimal("0.25", &d) && d == 0.25);
  assert_false(lctx_numbers_parse_decimal("-0.25", &d));
  assert_false(lctx_numbers_parse_decimal("", &d));
  assert_false(lctx_numbers_parse_decimal(
      "1"
      "000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000",
      &d)); /* past DBL_MAX */
  assert_true(d == 0.25);
  unsigned i = 9, n = 9;
  char why[64] = "";
  assert_false(lctx_numbers_parse_shard("1/-1", &i, &n, why, sizeof why));
  assert_string_equal(why, "'1/-1' is not I/N with 1 <= I <= N");
  assert_true(i == 9 && n == 9);
  assert_true(lctx_numbers_parse_shard("2/3", &i, &n, why, sizeof why));
  assert_true(i == 2 && n == 3);
}

/* What the command line gave is shown escaped: an option name or value
 * with control bytes cannot write to the terminal. */
static void test_errors_escape_what_was_typed(void **state) {
  (void)state;
  static const parse_case cases[] = {
      {{"--\x1b[2J", NULL},
       ERROR,
       "quiet=0 " DEFAULTS
       " operands=||lctx t: unknown option '--\\x1b[2J'\n" USAGE},
      {{"--jobs", "1\nresult: PASS", NULL},
       ERROR,
       "quiet=0 " DEFAULTS " operands=||lctx t: --jobs: '1\\x0aresult: PASS' "
       "is not a count from 1 to 64\n"},
      {{"--shard",
        "\xc2\x9b"
        "2/1",
        NULL},
       ERROR,
       "quiet=0 " DEFAULTS " operands=||lctx t: --shard: '\\xc2\\x9b2/1' "
       "is not I/N with 1 <= I <= N\n"},
  };
  check_cases(cases, sizeof cases / sizeof cases[0], true);
  static const parse_case no_operands[] = {
      {{"\x1b]0;title\x07", NULL},
       ERROR,
       "quiet=0 " DEFAULTS " operands=||lctx t: unexpected argument "
       "'\\x1b]0;title\\x07'\n" USAGE},
  };
  check_cases(no_operands, 1, false);
}

//===----------------------------------------------------------------------===//
// Help
//===----------------------------------------------------------------------===//

#define HELP_TEXT                                                              \
  USAGE                                                                        \
  "options:\n"                                                                 \
  "  --quiet                  say less\n"                                      \
  "  --spec FILE              the spec table\n"                                \
  "  --jobs N                 workers\n"                                       \
  "  --limit N                at most N\n"                                     \
  "  --seed S                 the seed\n"                                      \
  "  --time SECONDS           how long\n"                                      \
  "  --shard K/N              one shard\n"                                     \
  "  -h, --help               print this help and exit\n"

static void test_help(void **state) {
  (void)state;
  static const parse_case cases[] = {
      {{"-h", NULL},
       LCTX_OPTIONS_HELP,
       "quiet=0 " DEFAULTS " operands=|" HELP_TEXT "|"},
      {{"--help", NULL},
       LCTX_OPTIONS_HELP,
       "quiet=0 " DEFAULTS " operands=|" HELP_TEXT "|"},
      /* Help wins over what follows it, not over what comes before. */
      {{"a", "--quiet", "--help", "--frob", NULL},
       LCTX_OPTIONS_HELP,
       "quiet=1 " DEFAULTS " operands=|" HELP_TEXT "|"},
      {{"-hx", NULL},
       LCTX_OPTIONS_HELP,
       "quiet=0 " DEFAULTS " operands=|" HELP_TEXT "|"},
      {{"--frob", "--help", NULL},
       ERROR,
       "quiet=0 " DEFAULTS
       " operands=||lctx t: unknown option '--frob'\n" USAGE},
      {{"--help=1", NULL},
       ERROR,
       "quiet=0 " DEFAULTS
       " operands=||lctx t: unknown option '--help'\n" USAGE},
  };
  check_cases(cases, sizeof cases / sizeof cases[0], true);
  assert_int_equal(lctx_options_exit_code(LCTX_OPTIONS_HELP), LCTX_EXIT_OK);
  assert_int_equal(lctx_options_exit_code(LCTX_OPTIONS_ERROR), LCTX_EXIT_USAGE);
}

//===----------------------------------------------------------------------===//
// One process, many parses
//===----------------------------------------------------------------------===//

/* Each parse starts afresh, wherever the one before stopped: inside a
 * cluster of short options, at an error, at help, or at the end. */
static void test_parses_do_not_leak_into_each_other(void **state) {
  (void)state;
  static const parse_case cases[] = {
      {{"-x", "--quiet", NULL},
       ERROR,
       "quiet=0 " DEFAULTS " operands=||lctx t: unknown option '-x'\n" USAGE},
      {{"a", "--quiet", NULL}, OK, "quiet=1 " DEFAULTS " operands=a||"},
      {{"-hq", NULL},
       LCTX_OPTIONS_HELP,
       "quiet=0 " DEFAULTS " operands=|" HELP_TEXT "|"},
      {{"b", NULL}, OK, "quiet=0 " DEFAULTS " operands=b||"},
      {{"--spec", NULL},
       ERROR,
       "quiet=0 " DEFAULTS " operands=||lctx t: --spec needs a value\n" USAGE},
      {{"--", "c", NULL}, OK, "quiet=0 " DEFAULTS " operands=c||"},
      {{"d", "--quiet", NULL}, OK, "quiet=1 " DEFAULTS " operands=d||"},
  };
  for (int round = 0; round < 3; round++)
    check_cases(cases, sizeof cases / sizeof cases[0], true);
}

/* A table longer than the parser takes is refused, not cut short. */
static void test_too_many_options(void **state) {
  (void)state;
  bool flag = false;
  lctx_option options[65];
  char names[65][8];
  for (int i = 0; i < 65; i++) {
    snprintf(names[i], sizeof names[i], "o%d", i);
    options[i] = lctx_options_flag(names[i], &flag, NULL);
  }
  const lctx_option_spec spec = {"t", USAGE, options, 65, true};
  char *argv[] = {"t", "--o64", NULL};
  char *err_text = NULL;
  size_t err_size = 0;
  FILE *err = open_memstream(&err_text, &err_size);
  int first;
  assert_int_equal(lctx_options_parse(&spec, 2, argv, &first, stdout, err),
                   LCTX_OPTIONS_ERROR);
  fclose(err);
  assert_string_equal(err_text, "lctx t: more than 64 options\n");
  free(err_text);
  assert_false(flag);
}

//===----------------------------------------------------------------------===//
// The commands
//===----------------------------------------------------------------------===//

/* Runs `lctx ARGS...` (NULL-terminated) in this process; returns the exit
 * code, with stdout in `out_text` (freed by the caller). */
static int run_lctx(char **out_text, const char *const *args) {
  char *argv[16] = {"lctx"};
  int argc = 1;
  for (; args[argc - 1]; argc++)
    argv[argc] = (char *)args[argc - 1];
  size_t out_size = 0, err_size = 0;
  char *err_text = NULL;
  FILE *out = open_memstream(out_text, &out_size);
  FILE *err = open_memstream(&err_text, &err_size);
  int code = lctx_cli_main(argc, argv, out, err);
  fclose(out);
  fclose(err);
  free(err_text);
  return code;
}

static void test_every_command_answers_help(void **state) {
  (void)state;
  static const char *const commands[] = {"check-spec", "eval",   "explain",
                                         "encode",     "decode", "enumerate",
                                         "lint",       "run"};
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    char want[64];
    snprintf(want, sizeof want, "usage: lctx %s", commands[i]);
    const char *const lines[][4] = {{commands[i], "-h", NULL},
                                    {commands[i], "--help", NULL},
                                    {"help", commands[i], NULL},
                                    {commands[i], "x", "--help", NULL}};
    for (size_t k = 0; k < 4; k++) {
      char *out = NULL;
      assert_int_equal(run_lctx(&out, lines[k]), LCTX_EXIT_OK);
      if (strncmp(out, want, strlen(want)) != 0 || !strstr(out, "--help"))
        fail_msg("lctx %s %s printed:\n%s", lines[k][0], lines[k][1], out);
      free(out);
    }
  }
}

static void test_commands_take_option_equals_value(void **state) {
  (void)state;
  for (int round = 0; round < 2; round++) {
    char *out = NULL;
    assert_int_equal(
        run_lctx(&out, (const char *const[]){"enumerate", "--limit=2", NULL}),
        LCTX_EXIT_OK);
    assert_non_null(strstr(out, "# case 1\n"));
    assert_null(strstr(out, "# case 2\n"));
    free(out);
    assert_int_equal(
        run_lctx(&out, (const char *const[]){"enumerate", "--limit=x", NULL}),
        LCTX_EXIT_USAGE);
    free(out);
  }
}

/* Runs `lctx ARGS...` (NULL-terminated) in this process; returns the exit
 * code, with stdout and stderr together in `*text` (freed by the caller). */
static int run_lctx_both(char **text, const char *const *args) {
  char *argv[16] = {"lctx"};
  int argc = 1;
  for (; args[argc - 1]; argc++)
    argv[argc] = (char *)args[argc - 1];
  size_t size = 0;
  FILE *both = open_memstream(text, &size);
  assert_non_null(both);
  int code = lctx_cli_main(argc, argv, both, both);
  fclose(both);
  return code;
}

/* An option with a value, given twice, and a list with an empty or a
 * repeated item: refused, naming the option, before anything runs. */
static void test_repeated_options_and_list_items(void **state) {
  (void)state;
  static const struct {
    const char *args[10];
    const char *want;
  } cases[] = {
      {{"conform", "--impl", "a.so", "--impl", "b.so", NULL},
       "lctx conform: --impl is given more than once\n"},
      {{"conform", "--cmd", "true", "--ops", "get_backend,,get_backend", NULL},
       "lctx conform: --ops: 'get_backend,,get_backend' has an empty item\n"},
      {{"conform", "--cmd", "true", "--ops=backends,get_backend,backends",
        NULL},
       "lctx conform: --ops: 'backends' is given twice in "
       "'backends,get_backend,backends'\n"},
      {{"conform", "--cmd", "true", "--ops", ",backends", NULL},
       "lctx conform: --ops: ',backends' has an empty item\n"},
      {{"conform", "--cmd", "true", "--ops", "backends,", NULL},
       "lctx conform: --ops: 'backends,' has an empty item\n"},
      {{"mutants", "--only", "a,b,a", NULL},
       "lctx mutants: --only: 'a' is given twice in 'a,b,a'\n"},
      {{"fuzz", "--time", "1", "--time", "2", NULL},
       "lctx fuzz: --time is given more than once\n"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *text = NULL;
    int code = run_lctx_both(&text, cases[i].args);
    if (code != LCTX_EXIT_USAGE ||
        strncmp(text, cases[i].want, strlen(cases[i].want)) != 0)
      fail_msg("lctx %s ... (case %zu): exit %d, printed:\n%s\nwant:\n%s",
               cases[i].args[0], i, code, text, cases[i].want);
    free(text);
  }
}

/* K7: what `lctx fuzz` and `lctx corpus` print of an argument holding an
 * escape sequence and a newline is escaped: no raw control byte. */
static void test_fuzz_and_corpus_escape_what_was_typed(void **state) {
  (void)state;
  const char *bad = "x\033[2J\ny";
  const char *shown = "x\\x1b[2J\\x0ay";
  const char *const lines[][12] = {
      {"fuzz", "--engine", "libfuzzer", "--target", bad, "--time", "1", NULL},
      {"fuzz", "--engine", "libfuzzer", "--target", "fuzz_model", "--time", "1",
       "--out", bad, NULL},
      {"fuzz", "--engine", "libfuzzer", "--target", "fuzz_model", "--time", "1",
       "--corpus", bad, NULL},
      {"fuzz", "--engine", "libfuzzer", "--target", "fuzz_model", "--time", "1",
       "--binary", bad, NULL},
      {"fuzz", "--engine", bad, "--target", "fuzz_model", "--time", "1", NULL},
      {"corpus", "rows", "--target", bad, ".", NULL},
      {"corpus", "rows", "--target", "fuzz_model", bad, NULL},
      {"corpus", "minimize", "--target", "fuzz_model", bad, NULL},
      {"corpus", "minimize", "--target", bad, ".", NULL},
      {"corpus", "minimize", "--target", "fuzz_model", "--out", bad, ".", NULL},
      {"corpus", "minimize", "--engine", bad, "--target", "fuzz_model", ".",
       NULL},
      {"corpus", bad, NULL},
  };
  for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
    char *text = NULL;
    int code = run_lctx_both(&text, lines[i]);
    bool raw = false;
    for (const char *c = text; *c; c++)
      raw = raw || ((unsigned char)*c < 0x20 && *c != '\n') || *c == 0x7f;
    if (code != LCTX_EXIT_USAGE || raw || strstr(text, "\033") ||
        !strstr(text, shown))
      fail_msg("lctx %s (line %zu): exit %d, printed:\n%s", lines[i][0], i,
               code, text);
    free(text);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_each_kind_both_spellings),
      cmocka_unit_test(test_operands_keep_their_order_around_options),
      cmocka_unit_test(test_operands_refused_when_none_allowed),
      cmocka_unit_test(test_operands_mix_under_posixly_correct),
      cmocka_unit_test(test_unknown_options),
      cmocka_unit_test(test_missing_and_empty_values),
      cmocka_unit_test(test_bad_numbers),
      cmocka_unit_test(test_strict_numbers),
      cmocka_unit_test(test_number_parsers),
      cmocka_unit_test(test_errors_escape_what_was_typed),
      cmocka_unit_test(test_help),
      cmocka_unit_test(test_parses_do_not_leak_into_each_other),
      cmocka_unit_test(test_too_many_options),
      cmocka_unit_test(test_every_command_answers_help),
      cmocka_unit_test(test_commands_take_option_equals_value),
      cmocka_unit_test(test_repeated_options_and_list_items),
      cmocka_unit_test(test_fuzz_and_corpus_escape_what_was_typed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
