/*
 * options.c - the declarative option parser (see options.h).
 *
 * getopt_long reads the options; its optstring starts with "-", so that it
 * hands each operand back in order (whatever POSIXLY_CORRECT says) and the
 * operands are moved behind the options here, and with ":", so that a
 * missing value is told apart from an unknown option. getopt_long would
 * take an unambiguous prefix of a long name for the name; the typed name is
 * checked to be whole, so that adding an option never changes what an
 * existing command line means. Since the one short option, -h, ends the
 * parse, getopt_long never stops inside a cluster: each call reads the
 * argument at optind (and, for `--name value`, the next one).
 */
#include "options.h"

#include "escape.h"
#include "examples.h"
#include "exit.h"
#include "numbers.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* getopt_long returns OPERAND for an operand (optstring "-"), 'h', ':' and
 * '?' as characters, and FIRST_OPTION + i for spec->options[i] (beyond any
 * character), HELP_INDEX for --help. */
enum {
  MAX_OPTIONS = 64,
  OPERAND = 1,
  FIRST_OPTION = 256,
  HELP_INDEX = FIRST_OPTION + MAX_OPTIONS
};

/* The limits of an integer option: [min, max] clamped to [0, top]; both 0
 * means [0, top]. */
static void integer_limits(const lctx_option *o, unsigned long long top,
                           unsigned long long *lo, unsigned long long *hi) {
  *lo = 0;
  *hi = top;
  if (o->min == 0 && o->max == 0)
    return;
  if (o->min > 0)
    *lo = o->min >= (double)top ? top : (unsigned long long)o->min;
  if (o->max < (double)top)
    *hi = o->max < 0 ? 0 : (unsigned long long)o->max;
}

static bool parse_seconds(const lctx_option *o, const char *v) {
  double lo = o->min, hi = o->max, d;
  if (lo == 0 && hi == 0)
    hi = HUGE_VAL;
  if (!lctx_numbers_parse_decimal(v, &d) || !(d > lo) || d > hi)
    return false;
  *(double *)o->target = d;
  return true;
}

static bool parse_integer(const lctx_option *o, const char *v) {
  unsigned long long u, lo, hi;
  integer_limits(o, o->kind == LCTX_OPTION_SIZE ? SIZE_MAX : ULLONG_MAX, &lo,
                 &hi);
  if (!lctx_numbers_parse_uint(v, lo, hi, &u))
    return false;
  if (o->kind == LCTX_OPTION_SIZE)
    *(size_t *)o->target = (size_t)u;
  else
    *(unsigned long long *)o->target = u;
  return true;
}

/* Stores `value` (NULL for a flag) in the option's target; false with the
 * reason in `why`. */
static bool apply(const lctx_option *o, const char *value, char *why,
                  size_t n) {
  bool ok = true;
  switch (o->kind) {
  case LCTX_OPTION_FLAG:
    *(bool *)o->target = true;
    return true;
  case LCTX_OPTION_STRING:
    *(const char **)o->target = value;
    return true;
  case LCTX_OPTION_CUSTOM:
    return o->parse(value, o->target, why, n);
  case LCTX_OPTION_SIZE:
  case LCTX_OPTION_U64:
    ok = parse_integer(o, value);
    break;
  case LCTX_OPTION_SECONDS:
    ok = parse_seconds(o, value);
    break;
  }
  if (!ok)
    snprintf(why, n, "'%s' is not %s", value,
             o->number_noun ? o->number_noun : "a number");
  return ok;
}

static void print_usage(const lctx_option_spec *spec, FILE *f) {
  size_t n = spec->usage ? strlen(spec->usage) : 0;
  if (n)
    fprintf(f, "%s%s", spec->usage, spec->usage[n - 1] == '\n' ? "" : "\n");
}

/* Prints `lctx CMD: MESSAGE` and the usage to `err`; returns the error. */
__attribute__((format(printf, 3, 4))) static lctx_options_result
usage_error(const lctx_option_spec *spec, FILE *err, const char *format, ...) {
  va_list args;
  va_start(args, format);
  fprintf(err, "lctx %s: ", spec->command);
  vfprintf(err, format, args);
  fprintf(err, "\n");
  va_end(args);
  print_usage(spec, err);
  return LCTX_OPTIONS_ERROR;
}

/* Builds getopt_long's table; false when the spec has too many options. */
static bool long_options(const lctx_option_spec *spec, struct option *longs) {
  if (spec->count > MAX_OPTIONS)
    return false;
  for (size_t i = 0; i < spec->count; i++) {
    const lctx_option *o = &spec->options[i];
    longs[i] = (struct option){o->name,
                               o->kind == LCTX_OPTION_FLAG ? no_argument
                               : o->optional_value         ? optional_argument
                                                           : required_argument,
                               NULL, FIRST_OPTION + (int)i};
  }
  longs[spec->count] = (struct option){"help", no_argument, NULL, HELP_INDEX};
  longs[spec->count + 1] = (struct option){NULL, 0, NULL, 0};
  return true;
}

/* The index of the option called `name` (`--name`), or -1. */
static int find_option(const lctx_option_spec *spec, const char *name) {
  for (size_t i = 0; i < spec->count; i++)
    if (strncmp(name, "--", 2) == 0 &&
        strcmp(name + 2, spec->options[i].name) == 0)
      return (int)i;
  return -1;
}

/* An argument getopt_long did not accept: an unknown option, a flag given
 * a value (`--quiet=yes`), or (`missing`) an option without its value. */
static lctx_options_result rejected(const lctx_option_spec *spec,
                                    const char *arg, bool missing, FILE *err) {
  char name[128];
  lctx_escaped b;
  if (strncmp(arg, "--", 2) != 0) {
    snprintf(name, sizeof name, "-%c", arg[1]);
    return usage_error(spec, err, "unknown option '%s'", lctx_esc(&b, name));
  }
  snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
  int i = find_option(spec, name);
  if (i >= 0 && missing)
    return usage_error(spec, err, "%s needs a value", name);
  if (i >= 0 && spec->options[i].kind == LCTX_OPTION_FLAG)
    return usage_error(spec, err, "%s takes no value", name);
  return usage_error(spec, err, "unknown option '%s'", lctx_esc(&b, name));
}

/* Whether the row takes a comma-separated list: its value name is "LIST"
 * or holds a comma (e.g. "A,B"). */
static bool takes_list(const lctx_option *o) {
  return o->value_name &&
         (strcmp(o->value_name, "LIST") == 0 || strchr(o->value_name, ','));
}

/* A list value without empty or repeated items; else false with the
 * reason in `why`. */
static bool list_items_once(const char *value, char *why, size_t n) {
  for (const char *item = value;; item += strcspn(item, ",") + 1) {
    size_t len = strcspn(item, ",");
    if (len == 0) {
      snprintf(why, n, "'%s' has an empty item", value);
      return false;
    }
    for (const char *seen = value; seen < item; seen += strcspn(seen, ",") + 1)
      if (strcspn(seen, ",") == len && strncmp(seen, item, len) == 0) {
        snprintf(why, n, "'%.*s' is given twice in '%s'", (int)len, item,
                 value);
        return false;
      }
    if (!item[len])
      return true;
  }
}

/* The option getopt_long returned as `c` (FIRST_OPTION + i, or
 * HELP_INDEX), typed as `arg`, with getopt_long's `value`: applied, or the
 * error. An option with a value given before (`given`) is refused. */
static lctx_options_result one_option(const lctx_option_spec *spec, int c,
                                      const char *arg, const char *value,
                                      bool *given, FILE *out, FILE *err) {
  char name[128];
  lctx_escaped b;
  snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
  int i = c - FIRST_OPTION;
  if (c == HELP_INDEX ? strcmp(name, "--help") != 0
                      : find_option(spec, name) != i) /* a prefix */
    return usage_error(spec, err, "unknown option '%s'", lctx_esc(&b, name));
  if (c == HELP_INDEX) {
    lctx_options_help(spec, out);
    return LCTX_OPTIONS_HELP;
  }
  const lctx_option *o = &spec->options[i];
  if (o->kind != LCTX_OPTION_FLAG && o->kind != LCTX_OPTION_CUSTOM && !value[0])
    return usage_error(spec, err, "%s needs a value", name);
  if (o->kind != LCTX_OPTION_FLAG && given[i])
    return usage_error(spec, err, "%s is given more than once", name);
  given[i] = true;
  char why[512];
  if ((takes_list(o) && value && !list_items_once(value, why, sizeof why)) ||
      !apply(o, o->kind == LCTX_OPTION_FLAG ? NULL : value, why, sizeof why)) {
    fprintf(err, "lctx %s: --%s: %s\n", spec->command, o->name,
            lctx_esc(&b, why));
    return LCTX_OPTIONS_ERROR;
  }
  return LCTX_OPTIONS_OK;
}

/* Moves the operands (marked in `operand`) behind the other arguments,
 * each group in its order; returns the index of the first operand. */
static int operands_last(int argc, char **argv, const bool *operand,
                         char **scratch) {
  int n = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 1; i < argc; i++)
      if (operand[i] == (pass == 1))
        scratch[n++] = argv[i];
  int options = 0;
  for (int i = 1; i < argc; i++)
    options += !operand[i];
  memcpy(argv + 1, scratch, (size_t)n * sizeof *argv);
  return 1 + options;
}

/* Runs getopt_long over argv, marking the operands in `operand`. */
static lctx_options_result scan(const lctx_option_spec *spec, int argc,
                                char **argv, bool *operand, FILE *out,
                                FILE *err) {
  struct option longs[MAX_OPTIONS + 2];
  if (!long_options(spec, longs)) {
    fprintf(err, "lctx %s: more than %d options\n", spec->command, MAX_OPTIONS);
    return LCTX_OPTIONS_ERROR;
  }
  bool given[MAX_OPTIONS] = {false};
  optind = 0; /* a full reset (GNU), for another parse in one process */
  opterr = 0;
  for (;;) {
    int at = optind ? optind : 1;
    int c = getopt_long(argc, argv, "-:h", longs, NULL);
    if (c == -1)
      break;
    if (c == OPERAND) {
      operand[at] = true;
      continue;
    }
    if (c == 'h') {
      lctx_options_help(spec, out);
      return LCTX_OPTIONS_HELP;
    }
    if (c == ':' || c < FIRST_OPTION || c > HELP_INDEX) /* ':' or '?' */
      return rejected(spec, argv[at], c == ':', err);
    lctx_options_result r =
        one_option(spec, c, argv[at], optarg, given, out, err);
    if (r != LCTX_OPTIONS_OK)
      return r;
  }
  for (int i = optind; i < argc; i++) /* after `--` */
    operand[i] = true;
  return LCTX_OPTIONS_OK;
}

lctx_options_result lctx_options_parse(const lctx_option_spec *spec, int argc,
                                       char **argv, int *first_operand,
                                       FILE *out, FILE *err) {
  *first_operand = argc;
  bool *operand = calloc((size_t)argc + 1, sizeof *operand);
  char **scratch = malloc(((size_t)argc + 1) * sizeof *scratch);
  lctx_options_result r = LCTX_OPTIONS_ERROR;
  if (!operand || !scratch)
    fprintf(err, "lctx %s: out of memory\n", spec->command);
  else
    r = scan(spec, argc, argv, operand, out, err);
  if (r == LCTX_OPTIONS_OK) {
    *first_operand = operands_last(argc, argv, operand, scratch);
    lctx_escaped b;
    if (!spec->operands && *first_operand < argc)
      r = usage_error(spec, err, "unexpected argument '%s'",
                      lctx_esc(&b, argv[*first_operand]));
  }
  free(operand);
  free(scratch);
  return r;
}

int lctx_options_command(const lctx_option_spec *spec, int argc, char **argv,
                         int *first_operand, FILE *out, FILE *err) {
  lctx_options_result r =
      lctx_options_parse(spec, argc, argv, first_operand, out, err);
  return r == LCTX_OPTIONS_OK ? LCTX_OPTIONS_GO_ON : lctx_options_exit_code(r);
}

/* Prints a help text and a newline; each line after the first starts at
 * the column of the first (2 + 24 + 1: `  %-24s `). */
static void print_help_text(const char *help, FILE *f) {
  for (const char *c = help ? help : ""; *c; c++)
    if (*c == '\n')
      fprintf(f, "\n%27s", "");
    else
      fputc(*c, f);
  fputc('\n', f);
}

void lctx_options_help(const lctx_option_spec *spec, FILE *f) {
  print_usage(spec, f);
  fprintf(f, "options:\n");
  for (size_t i = 0; i < spec->count; i++) {
    const lctx_option *o = &spec->options[i];
    char left[64];
    snprintf(left, sizeof left, "--%s%s%s%s", o->name,
             o->value_name ? (o->optional_value ? "[=" : " ") : "",
             o->value_name ? o->value_name : "",
             o->value_name && o->optional_value ? "]" : "");
    fprintf(f, "  %-24s ", left);
    print_help_text(o->help, f);
  }
  fprintf(f, "  %-24s %s\n", "-h, --help", "print this help and exit");
  const char *example = lctx_cli_example(spec->command);
  if (example)
    fprintf(f, "example:\n  %s\n", example);
}

int lctx_options_exit_code(lctx_options_result result) {
  return result == LCTX_OPTIONS_HELP ? LCTX_EXIT_OK : LCTX_EXIT_USAGE;
}
