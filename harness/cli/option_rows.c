/*
 * option_rows.c - the constructors of option table rows (see options.h).
 */
#include "options.h"

/* A row without number limits or parse function. */
static lctx_option row(const char *name, lctx_option_kind kind, void *target,
                       const char *value_name, const char *help) {
  return (lctx_option){.name = name,
                       .kind = kind,
                       .target = target,
                       .value_name = value_name,
                       .help = help};
}

lctx_option lctx_options_flag(const char *name, bool *target,
                              const char *help) {
  return row(name, LCTX_OPTION_FLAG, target, NULL, help);
}

lctx_option lctx_options_string(const char *name, const char **target,
                                const char *value_name, const char *help) {
  return row(name, LCTX_OPTION_STRING, target, value_name, help);
}

/* A number row of `kind`. */
static lctx_option number(const char *name, lctx_option_kind kind, void *target,
                          const char *value_name, const char *help, double min,
                          double max, const char *number_noun) {
  lctx_option o = row(name, kind, target, value_name, help);
  o.min = min;
  o.max = max;
  o.number_noun = number_noun;
  return o;
}

lctx_option lctx_options_size(const char *name, size_t *target,
                              const char *value_name, const char *help,
                              double min, double max, const char *number_noun) {
  return number(name, LCTX_OPTION_SIZE, target, value_name, help, min, max,
                number_noun);
}

lctx_option lctx_options_u64(const char *name, unsigned long long *target,
                             const char *value_name, const char *help,
                             double min, double max, const char *number_noun) {
  return number(name, LCTX_OPTION_U64, target, value_name, help, min, max,
                number_noun);
}

lctx_option lctx_options_seconds(const char *name, double *target,
                                 const char *value_name, const char *help,
                                 double min, double max,
                                 const char *number_noun) {
  return number(name, LCTX_OPTION_SECONDS, target, value_name, help, min, max,
                number_noun);
}

/* A CUSTOM row; `optional`: its value may be left out. */
static lctx_option custom(const char *name, void *target,
                          const char *value_name, const char *help,
                          lctx_option_parse_fn parse, bool optional) {
  lctx_option o = row(name, LCTX_OPTION_CUSTOM, target, value_name, help);
  o.parse = parse;
  o.optional_value = optional;
  return o;
}

lctx_option lctx_options_custom(const char *name, void *target,
                                const char *value_name, const char *help,
                                lctx_option_parse_fn parse) {
  return custom(name, target, value_name, help, parse, false);
}

lctx_option lctx_options_optional(const char *name, void *target,
                                  const char *value_name, const char *help,
                                  lctx_option_parse_fn parse) {
  return custom(name, target, value_name, help, parse, true);
}
