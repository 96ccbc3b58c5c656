/*
 * options.h - one declarative option parser for every `lctx` command.
 *
 * Owns turning a command's argv into the fields of its options struct, by a
 * table that names each option, its kind, where its value goes, its limits
 * and its help line. Built on getopt_long, so `--opt value`, `--opt=value`,
 * `-h`, `--help` and `--` work alike everywhere. Long names must be typed
 * whole (getopt_long's prefix matching is refused). Every error names the
 * command, the option and the value:
 *   lctx CMD: unknown option '--x'          (then the usage)
 *   lctx CMD: --seed needs a value          (missing or empty; the usage)
 *   lctx CMD: --quiet takes no value        (`--quiet=yes`; the usage)
 *   lctx CMD: unexpected argument 'x'       (an operand where none is
 *                                            allowed; the usage)
 *   lctx CMD: --seed: 'x' is not a number   (a bad value)
 *   lctx CMD: --impl is given more than once (an option with a value, given
 *                                            again; the usage)
 *   lctx CMD: --ops: 'a,,b' has an empty item
 *   lctx CMD: --ops: 'a' is given twice in 'a,b,a'
 *                                           (a list: a row whose value name
 *                                            is "LIST" or holds a comma)
 * A flag may be repeated; an option with a value may be given once.
 */
#ifndef LCTX_CLI_OPTIONS_H
#define LCTX_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/// What an option carries.
typedef enum lctx_option_kind {
  /// No value; sets `*(bool *)target` to true.
  LCTX_OPTION_FLAG,
  /// A non-empty string; `*(const char **)target` points into argv.
  LCTX_OPTION_STRING,
  /// An unsigned decimal number (digits only) from `min` to `max`;
  /// `*(size_t *)target`.
  LCTX_OPTION_SIZE,
  /// An unsigned 64-bit decimal number (digits only) from `min` to `max`;
  /// `*(unsigned long long *)target`.
  LCTX_OPTION_U64,
  /// A finite decimal number (no sign, no hexadecimal) with `min` < value
  /// <= `max`; `*(double *)target`.
  LCTX_OPTION_SECONDS,
  /// A value, possibly empty, handed to `parse(value, target, error_text,
  /// error_size)`, which returns false with the reason in `error_text`
  /// (printed as `lctx CMD: --NAME: REASON`).
  LCTX_OPTION_CUSTOM,
} lctx_option_kind;

/// A CUSTOM row's parser: stores `value` in `target`, or returns false
/// with the reason in `error_text`.
typedef bool (*lctx_option_parse_fn)(const char *value, void *target,
                                     char *error_text, size_t error_size);

/// One row of a command's option table.
typedef struct lctx_option {
  /// The long name without `--`, e.g. "report-dir".
  const char *name;
  lctx_option_kind kind;
  void *target;
  /// The value's name in the help, e.g. "FILE" (NULL for a flag). "LIST",
  /// or a name holding a comma ("A,B"), makes the value a comma-separated
  /// list: one with an empty or a repeated item is refused before it is
  /// stored or parsed.
  const char *value_name;
  /// The help: one line, or several, each after the first started with
  /// '\n' (printed indented under the first).
  const char *help;
  /// Number limits (SIZE, U64: min <= v <= max; SECONDS: min < v <= max).
  /// Both 0 (a row that leaves them out): any value of the target's type
  /// (SECONDS: any positive number).
  double min, max;
  /// What a bad number is not, e.g. "a count from 1 to 4096" (SIZE, U64,
  /// SECONDS); default "a number".
  const char *number_noun;
  lctx_option_parse_fn parse;
  /// CUSTOM only: the value is optional, given only as `--NAME=VALUE`
  /// (`parse` gets NULL for a bare `--NAME`).
  bool optional_value;
} lctx_option;

/// A FLAG row: `--NAME` sets `*target`.
lctx_option lctx_options_flag(const char *name, bool *target, const char *help);

/// A STRING row: `--NAME VALUE_NAME` points `*target` at the value.
lctx_option lctx_options_string(const char *name, const char **target,
                                const char *value_name, const char *help);

/// A SIZE row: `--NAME VALUE_NAME` stores a number from `min` to `max` in
/// `*target`; a bad one is not `number_noun` (NULL: "a number").
lctx_option lctx_options_size(const char *name, size_t *target,
                              const char *value_name, const char *help,
                              double min, double max, const char *number_noun);

/// A U64 row, as lctx_options_size for an unsigned long long.
lctx_option lctx_options_u64(const char *name, unsigned long long *target,
                             const char *value_name, const char *help,
                             double min, double max, const char *number_noun);

/// A SECONDS row: `--NAME VALUE_NAME` stores a number with `min` < value
/// <= `max` in `*target`; a bad one is not `number_noun` (NULL: "a
/// number").
lctx_option lctx_options_seconds(const char *name, double *target,
                                 const char *value_name, const char *help,
                                 double min, double max,
                                 const char *number_noun);

/// A CUSTOM row: `--NAME VALUE_NAME` hands the value to `parse` with
/// `target`.
lctx_option lctx_options_custom(const char *name, void *target,
                                const char *value_name, const char *help,
                                lctx_option_parse_fn parse);

/// A CUSTOM row whose value is optional: `--NAME` hands NULL to `parse`,
/// `--NAME=VALUE` the value.
lctx_option lctx_options_optional(const char *name, void *target,
                                  const char *value_name, const char *help,
                                  lctx_option_parse_fn parse);

/// What lctx_options_parse found.
typedef enum lctx_options_result {
  /// The options were parsed; operands start at `*first_operand`.
  LCTX_OPTIONS_OK,
  /// `--help` or `-h` was given; the help was printed to `out`.
  LCTX_OPTIONS_HELP,
  /// A bad option or value; a message naming it was printed to `err`.
  LCTX_OPTIONS_ERROR,
} lctx_options_result;

/// A command's options: the table and the usage text printed by --help
/// (before the table's own lines) and after a usage error.
typedef struct lctx_option_spec {
  /// The command's name as typed, e.g. "conform".
  const char *command;
  /// The usage lines, e.g. "usage: lctx conform (--impl LIB.so | --cmd ...)"
  /// (a missing final newline is added when printed).
  const char *usage;
  const lctx_option *options;
  /// How many rows `options` has (at most 64).
  size_t count;
  /// Operands allowed? When false, an operand is an error.
  bool operands;
} lctx_option_spec;

/// Parses argv[1..argc) (argv[0] is the command's name) by `spec`.
/// Operands may come before, between and after options (`-` is an operand);
/// `--` ends the options. The parse stops at the first error or help. On
/// LCTX_OPTIONS_OK the operands are argv[*first_operand..argc): argv is
/// reordered, options first, then operands, each in their order. Each call
/// starts afresh (getopt's state is reset), so a process may parse many
/// command lines.
lctx_options_result lctx_options_parse(const lctx_option_spec *spec, int argc,
                                       char **argv, int *first_operand,
                                       FILE *out, FILE *err);

/// What lctx_options_command returns when the command goes on.
#define LCTX_OPTIONS_GO_ON (-1)

/// The number of rows of an option table (an array).
#define LCTX_OPTIONS_COUNT(table) (sizeof(table) / sizeof((table)[0]))

/// The spec (a compound literal) of the command `command` (its name as
/// typed) with the usage text `usage` and the option table `table` (an
/// array); `operands`: operands allowed.
#define LCTX_OPTIONS_SPEC(command, usage, table, operands)                     \
  ((lctx_option_spec){(command), (usage), (table), LCTX_OPTIONS_COUNT(table),  \
                      (operands)})

/// A command's first step: lctx_options_parse, then LCTX_OPTIONS_GO_ON
/// when the command goes on (its operands at argv[*first_operand..argc)),
/// else the exit code it returns (lctx_options_exit_code).
int lctx_options_command(const lctx_option_spec *spec, int argc, char **argv,
                         int *first_operand, FILE *out, FILE *err);

/// A command's first step, as a statement in a function that returns an
/// exit code: lctx_options_command by `*spec`, then, unless the command goes
/// on (its operands at argv[*first_operand..argc)), `return` of the exit
/// code from that function.
#define LCTX_OPTIONS_PARSE_OR_RETURN(spec, argc, argv, first_operand, out,     \
                                     err)                                      \
  do {                                                                         \
    int lctx_options_code_ =                                                   \
        lctx_options_command(spec, argc, argv, first_operand, out, err);       \
    if (lctx_options_code_ != LCTX_OPTIONS_GO_ON)                              \
      return lctx_options_code_;                                               \
  } while (0)

/// Prints the usage text and the help of each option to `f`.
void lctx_options_help(const lctx_option_spec *spec, FILE *f);

/// The exit code for a result that is not LCTX_OPTIONS_OK: 0 after help,
/// 2 after an error.
int lctx_options_exit_code(lctx_options_result result);

#endif /* LCTX_CLI_OPTIONS_H */
