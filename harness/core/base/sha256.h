/*
 * sha256.h - SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), streaming.
 *
 * Owns the one digest lctx computes itself: the content hashes that name
 * an implementation's files, spec table and known defects in a sweep's
 * identity, and the keyed seal over the results lctx writes (seal.h). No
 * state outside the contexts; libc only.
 */
#ifndef LCTX_CORE_SHA256_H
#define LCTX_CORE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define LCTX_SHA256_SIZE 32
#define LCTX_SHA256_BLOCK 64
/// The digest as lowercase hex, with its NUL.
#define LCTX_SHA256_HEX (2 * LCTX_SHA256_SIZE + 1)

/// A running SHA-256.
typedef struct lctx_sha256 {
  uint32_t h[8];
  uint64_t length; ///< bytes taken
  uint8_t block[LCTX_SHA256_BLOCK];
  size_t used; ///< bytes of `block` filled
} lctx_sha256;

void lctx_sha256_init(lctx_sha256 *c);
void lctx_sha256_update(lctx_sha256 *c, const void *data, size_t n);
/// The digest of what was taken; `c` is spent (init it again to reuse).
void lctx_sha256_final(lctx_sha256 *c, uint8_t out[LCTX_SHA256_SIZE]);
/// The digest of `n` bytes at once.
void lctx_sha256_of(const void *data, size_t n, uint8_t out[LCTX_SHA256_SIZE]);

/// A running HMAC-SHA256 under one key.
typedef struct lctx_hmac256 {
  lctx_sha256 inner;
  uint8_t outer_key[LCTX_SHA256_BLOCK]; ///< the key XOR opad
} lctx_hmac256;

void lctx_hmac256_init(lctx_hmac256 *c, const void *key, size_t key_n);
void lctx_hmac256_update(lctx_hmac256 *c, const void *data, size_t n);
/// The MAC of what was taken so far; `c` goes on (a copy is finished).
void lctx_hmac256_peek(const lctx_hmac256 *c, uint8_t out[LCTX_SHA256_SIZE]);

/// `n` bytes as lowercase hex into `dst` (2n + 1 bytes).
void lctx_sha256_hex(const uint8_t *bytes, size_t n, char *dst);

#endif /* LCTX_CORE_SHA256_H */
