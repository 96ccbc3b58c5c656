/*
 * options.c - the declarative option parser (see options.h).
 */
#include "options.h"

#include "exit.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_OPTIONS = 64, HELP_INDEX = MAX_OPTIONS };

static bool parse_number(const lctx_option *o, const char *v, char *why,
                         size_t n) {
  const char *noun = o->number_noun ? o->number_noun : "a number";
  char *end = NULL;
  errno = 0;
  if (o->kind == LCTX_OPTION_SECONDS) {
    double d = strtod(v, &end);
    if (end == v || *end || errno || !isfinite(d) || !(d > o->min) ||
        d > o->max) {
      snprintf(why, n, "'%s' is not %s", v, noun);
      return false;
    }
    *(double *)o->target = d;
    return true;
  }
  unsigned long long u = strtoull(v, &end, 10);
  if (end == v || *end || errno || v[0] == '-' || v[0] == '+' ||
      (double)u < o->min || (double)u > o->max) {
    snprintf(why, n, "'%s' is not %s", v, noun);
    return false;
  }
  if (o->kind == LCTX_OPTION_SIZE)
    *(size_t *)o->target = (size_t)u;
  else
    *(unsigned long long *)o->target = u;
  return true;
}

static bool apply(const lctx_option *o, const char *value, char *why,
                  size_t n) {
  switch (o->kind) {
  case LCTX_OPTION_FLAG:
    *(bool *)o->target = true;
    return true;
  case LCTX_OPTION_STRING:
    *(const char **)o->target = value;
    return true;
  case LCTX_OPTION_SIZE:
  case LCTX_OPTION_U64:
  case LCTX_OPTION_SECONDS:
    return parse_number(o, value, why, n);
  case LCTX_OPTION_CUSTOM:
    return o->parse(value, o->target, why, n);
  }
  return false;
}

static void usage_error(const lctx_option_spec *spec, FILE *err) {
  if (spec->usage)
    fprintf(err, "%s", spec->usage);
}

lctx_options_result lctx_options_parse(const lctx_option_spec *spec, int argc,
                                       char **argv, int *first_operand,
                                       FILE *out, FILE *err) {
  struct option longs[MAX_OPTIONS + 2];
  size_t count = spec->count < MAX_OPTIONS ? spec->count : MAX_OPTIONS;
  for (size_t i = 0; i < count; i++) {
    const lctx_option *o = &spec->options[i];
    longs[i] = (struct option){
        o->name, o->kind == LCTX_OPTION_FLAG ? no_argument : required_argument,
        NULL, (int)i};
  }
  longs[count] = (struct option){"help", no_argument, NULL, HELP_INDEX};
  longs[count + 1] = (struct option){NULL, 0, NULL, 0};
  /* "+" would stop at the first operand; the default permutes, so operands
   * and options may mix. ":" reports a missing value as ':'. */
  optind = 0; /* GNU: a full reset, for a second parse in one process */
  opterr = 0;
  *first_operand = argc;
  for (;;) {
    int index = -1;
    int c = getopt_long(argc, argv, ":h", longs, &index);
    if (c == -1)
      break;
    const char *arg = argv[optind - 1];
    if (c == 'h' || c == HELP_INDEX) {
      lctx_options_help(spec, out);
      return LCTX_OPTIONS_HELP;
    }
    if (c == ':') {
      fprintf(err, "lctx %s: %s needs a value\n", spec->command, arg);
      usage_error(spec, err);
      return LCTX_OPTIONS_ERROR;
    }
    if (c == '?' || c < 0 || (size_t)c >= count) {
      const char *bad = arg;
      char shortname[3] = {'-', (char)optopt, '\0'};
      if (optopt && strncmp(arg, "--", 2) != 0)
        bad = shortname;
      fprintf(err, "lctx %s: unknown option '%s'\n", spec->command, bad);
      usage_error(spec, err);
      return LCTX_OPTIONS_ERROR;
    }
    const lctx_option *o = &spec->options[c];
    char why[512];
    if (!apply(o, optarg, why, sizeof why)) {
      fprintf(err, "lctx %s: --%s: %s\n", spec->command, o->name, why);
      return LCTX_OPTIONS_ERROR;
    }
  }
  *first_operand = optind;
  if (!spec->operands && optind < argc) {
    fprintf(err, "lctx %s: unexpected argument '%s'\n", spec->command,
            argv[optind]);
    usage_error(spec, err);
    return LCTX_OPTIONS_ERROR;
  }
  return LCTX_OPTIONS_OK;
}

void lctx_options_help(const lctx_option_spec *spec, FILE *f) {
  if (spec->usage)
    fprintf(f, "%s", spec->usage);
  if (spec->count)
    fprintf(f, "options:\n");
  for (size_t i = 0; i < spec->count; i++) {
    const lctx_option *o = &spec->options[i];
    char left[64];
    snprintf(left, sizeof left, "--%s%s%s", o->name, o->value_name ? " " : "",
             o->value_name ? o->value_name : "");
    fprintf(f, "  %-24s %s\n", left, o->help ? o->help : "");
  }
  fprintf(f, "  %-24s %s\n", "-h, --help", "print this help and exit");
}

int lctx_options_exit_code(lctx_options_result result) {
  return result == LCTX_OPTIONS_HELP ? LCTX_EXIT_OK : LCTX_EXIT_USAGE;
}
