/*
 * program_draw.h - generated programs drawn: from a seed (a PRNG) or from
 * a fuzz engine's bytes, a pure function of its source (the same seed or
 * bytes give the same program, on any thread), biased toward what lives
 * where features meet (a rule lowering a function that binds a primitive
 * with several rules; main using what is defined).
 */
#ifndef LCTX_HARNESS_PROGRAM_DRAW_H
#define LCTX_HARNESS_PROGRAM_DRAW_H

#include "program.h"

#include <stdint.h>

/// Where a generator draws from: a seed (a PRNG), or a fuzz engine's bytes
/// (read in order, then zeros: the engine's mutations steer the program).
typedef struct lctx_prog_source {
  const uint8_t *data;
  size_t n, pos;
  uint64_t state;
} lctx_prog_source;

void lctx_prog_source_seed(lctx_prog_source *s, uint64_t seed, uint64_t index);
void lctx_prog_source_bytes(lctx_prog_source *s, const uint8_t *data, size_t n);

/// Draws a program; always one lctx_program_check accepts.
void lctx_program_generate(lctx_prog_source *src, lctx_program_desc *p);

#endif /* LCTX_HARNESS_PROGRAM_DRAW_H */
