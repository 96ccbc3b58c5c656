/*
 * case_bytes.h - the byte form of a case: what fuzzers mutate.
 *
 * Owns the total decoder (every byte string, the empty one included, is a
 * valid case) and the encoder. Expectations are not part of the byte form.
 *
 * Properties:
 * - Total and deterministic: lctx_case_decode accepts any bytes and always
 *   gives a case that passes lctx_case_validate and keeps case.h's
 *   invariants (unused fields zero, has_arg set for canonicalize, a message
 *   only on a raising factory, no expectations).
 * - decode(encode(c)) == c (lctx_case_equal, with_expect false) for every
 *   valid case c.
 * - Linear: decoding reads each input byte at most once, front to back, and
 *   stops creating factories, operations and platforms once the input is
 *   used up, so it costs O(size) and at most LCTX_CASE_BYTES_MAX reads.
 * - Local (the prefix property): each decoded field is a function of the
 *   bytes read up to the end of that field. Changing the byte at offset p
 *   leaves unchanged every factory, the configuration and every operation
 *   whose bytes end at or before p (lctx_case_decode_spans reports where
 *   they end). A change inside a literal's content, a priority's explicit
 *   bytes or a flags byte changes that one field only; a change of a count,
 *   selector or length byte may re-read the bytes after it differently.
 *
 * The layout, front to back. A read past the end of the input gives 0.
 *
 *   Primitive fields
 *   BYTE     one byte.
 *   NAME     (names, at most LCTX_MAX_NAME = 63 bytes) a selector byte s:
 *              s < 192:  the dictionary entry s % 12 of
 *                        "", "cpu", "cuda", "rocm", "oneapi", "tpu", "gpu",
 *                        "METAL", "bogus", "CPU", "Cuda", "GPU";
 *              s >= 192: a literal: the next s - 192 (0..63) bytes.
 *   MESSAGE  (factory raise messages, at most 127 bytes) a selector byte s:
 *              s < 128:  the entry s % 8 of "", "TPU not found", "boom",
 *                        "Backend 'cuda' failed.", "no devices.", "x\n\ty",
 *                        "'\"\\", "FAILED_PRECONDITION: No visible device";
 *              s >= 128: a literal: the next s - 128 (0..127) bytes.
 *   PLATFORMS (the jax_platforms value, at most 255 bytes) a selector s:
 *              s < 192:  the entry s % 16 of "", "cpu", "tpu", "cuda",
 *                        "rocm", "gpu", "cpu,tpu", "tpu,cpu", "cpu,gpu",
 *                        "gpu,cpu", "cuda,rocm", "cpu,cpu", "cuda,gpu",
 *                        "cpu,", "cpu, tpu", ",";
 *              s >= 192: a length byte L (0..255), then L literal bytes.
 *   PRIORITY a selector byte s:
 *              s < 240:  the entry s % 16 of 0, 1, -1, 2, 300, 400, -1000,
 *                        -999, -1001, 100, 299, 301, 401, 3, INT_MIN,
 *                        INT_MAX;
 *              s >= 240: the next 4 bytes, a little-endian two's-complement
 *                        int32.
 *   Literal bytes map onto the name alphabet 0x01-0x7f: a byte 0x01-0x7f
 *   stands for itself (so fuzz-dictionary tokens such as `cuda` survive
 *   unchanged, and the encoder can write any name), 0x00 becomes `_`, and
 *   0x80-0xff become printable ASCII 0x20 + (b - 0x80) % 95.
 *
 *   The case
 *   BYTE     factory count n = b % 17; then n factories, stopping early at
 *            the end of the input. A factory is
 *              NAME name, PRIORITY priority,
 *              BYTE flags: bit 0 fail_quietly, bits 1-2 behaviour
 *                   (0 client, 1 raises, 2 none, 3 no_devices),
 *              MESSAGE message (kept only when the behaviour is raises).
 *            A factory whose name repeats an earlier factory's is dropped.
 *   BYTE     configuration flags: bit 0 nvidia_gpu_visible.
 *   PLATFORMS jax_platforms; NAME jax_platform_name; NAME jax_xla_backend.
 *   BYTE     operation count n = b % 9; then n operations, stopping early at
 *            the end of the input. Every operation has the same fields,
 *            whatever its kind, so that changing a kind changes only it:
 *              BYTE kind: bits 0-1 the kind (0 backends, 1 canonicalize,
 *                   2 get_backend, 3 module_get_backend); bit 2 has_arg
 *                   (get_backend); bit 3 has_backend and bit 4 optional
 *                   (module_get_backend);
 *              NAME arg (canonicalize; get_backend when has_arg);
 *              BYTE platform count m = b % 17, then m NAME platforms,
 *                   stopping early at the end of the input
 *                   (module_get_backend);
 *              NAME backend (module_get_backend when has_backend).
 *            Fields a kind does not use are read and ignored.
 *   Bytes after the last operation are ignored.
 *
 * The encoder writes the same layout, choosing the first dictionary entry
 * equal to a field and a literal otherwise, 0 for ignored bytes, and the
 * canonical flag bits.
 */
#ifndef LCTX_HARNESS_CASE_BYTES_H
#define LCTX_HARNESS_CASE_BYTES_H

#include <stdint.h>

#include "case.h"

/// Bytes of the longest encoding of a valid case, and the most bytes one
/// decode reads (a read past the end counts).
#define LCTX_CASE_BYTES_MAX                                                    \
  (1 +                                                                         \
   LCTX_MAX_FACTORIES *                                                        \
       ((1 + LCTX_MAX_NAME) + 5 + 1 + (1 + LCTX_MAX_MESSAGE)) +                \
   1 + (2 + LCTX_MAX_PLATFORMS_CONFIG) + 2 * (1 + LCTX_MAX_NAME) + 1 +         \
   LCTX_CASE_MAX_OPS * (1 + (1 + LCTX_MAX_NAME) + 1 +                          \
                        LCTX_MAX_MODULE_PLATFORMS * (1 + LCTX_MAX_NAME) +      \
                        (1 + LCTX_MAX_NAME)))

/// Where the parts of a decoded case end in the input: the offset just past
/// the last byte read for each (offsets past `size` mean zeros were read).
typedef struct lctx_case_byte_spans {
  /// factory_end[i]: the end of decoded factory i (dropped duplicates are
  /// not counted as factories).
  size_t factory_end[LCTX_MAX_FACTORIES];
  /// The end of the configuration (flags and the three jax_* values).
  size_t config_end;
  /// op_end[i]: the end of operation i.
  size_t op_end[LCTX_CASE_MAX_OPS];
} lctx_case_byte_spans;

/// Decodes `size` bytes at `data` (NULL allowed when size is 0) into `out`.
/// Total and deterministic; see the layout above.
void lctx_case_decode(const uint8_t *data, size_t size, lctx_case *out);

/// lctx_case_decode that also reports where each part ended.
void lctx_case_decode_spans(const uint8_t *data, size_t size, lctx_case *out,
                            lctx_case_byte_spans *spans);

/// Encodes `c` (its expectations are dropped). Returns the number of bytes
/// the encoding needs (at most LCTX_CASE_BYTES_MAX) and writes them to `out`
/// only if they fit in `capacity`; otherwise writes nothing.
size_t lctx_case_encode(const lctx_case *c, uint8_t *out, size_t capacity);

/// The name byte a literal input byte decodes to (always 0x01-0x7f).
char lctx_case_bytes_literal_char(uint8_t b);

#endif /* LCTX_HARNESS_CASE_BYTES_H */
