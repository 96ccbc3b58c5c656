/*
 * numbers.h - the strict numbers of the command line.
 *
 * Owns the one rule by which every `lctx` command reads a number it is
 * given (options.h's SIZE, U64 and SECONDS rows, and a command's own
 * CUSTOM rows such as --shard I/N or --fuzz-seconds): the whole string,
 * digits only, no sign, no space, not empty, range checked. ` -1`, `+1`,
 * `1 `, `0x10`, `1e3`, `inf` and a number past its type are refused.
 */
#ifndef LCTX_CLI_NUMBERS_H
#define LCTX_CLI_NUMBERS_H

#include <stdbool.h>
#include <stddef.h>

/// The strict number rule of every command line: `v` is a whole unsigned
/// decimal number, digits only (no sign, no space, not empty, no `0x`),
/// from `min` to `max`; stored in `*out`. False (and `*out` untouched)
/// otherwise, overflow included.
bool lctx_numbers_parse_uint(const char *v, unsigned long long min,
                             unsigned long long max, unsigned long long *out);

/// A decimal number of the command line (a number of seconds, a
/// percentage): digits with at most one '.', at least one digit (no sign,
/// no space, no exponent, no hexadecimal, inf or nan), finite; stored in
/// `*out`. False otherwise. The range is the caller's.
bool lctx_numbers_parse_decimal(const char *v, double *out);

/// `--shard I/N`: two lctx_numbers_parse_uint numbers around one '/', with
/// 1 <= I <= N <= UINT_MAX, stored in `*i` and `*n`. False with
/// `'V' is not I/N with 1 <= I <= N` in `why` (printed by the parser as
/// `lctx CMD: --shard: ...`), e.g. for `1/-1`, `0/2`, `3/2`, ` 1/2`, `1/2x`.
/// The body of a CUSTOM row's parse function.
bool lctx_numbers_parse_shard(const char *v, unsigned *i, unsigned *n,
                              char *why, size_t why_size);

/// The default of every `--jobs`: the machine's online cores, from 1 to
/// `max`.
size_t lctx_numbers_cores(size_t max);

#endif /* LCTX_CLI_NUMBERS_H */
