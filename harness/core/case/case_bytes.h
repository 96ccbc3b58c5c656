/*
 * case_bytes.h - the byte form of a case: what fuzzers mutate.
 *
 * Owns the total decoder (every byte string, the empty one included, is a
 * valid case) and the encoder. Expectations are not part of the byte form.
 *
 * Properties:
 * - Total and deterministic: lctx_case_decode accepts any bytes and always
 *   gives a case that passes lctx_case_validate and keeps case.h's
 *   invariants (unused fields zero, for operations and rule actions alike,
 *   has_arg set for canonicalize, a message only on a raising factory, no
 *   expectations).
 * - decode(encode(c)) == c (lctx_case_equal, with_expect false) for every
 *   valid case c that keeps those invariants: the encoder has no exception
 *   (every part of a valid case fits its field, and the degradations below
 *   never apply to it, since every prefix of a valid case is valid).
 * - Linear: decoding reads each input byte at most once, front to back, and
 *   stops creating factories, rules, actions, operations and platforms once
 *   the input is used up, so it costs O(size) and at most
 *   LCTX_CASE_BYTES_MAX reads (plus a bounded number of lctx_case_validate
 *   calls per rule and lowering operation).
 * - Local (the prefix property): each decoded field is a function of the
 *   bytes read up to the end of that field. Changing the byte at offset p
 *   leaves unchanged every factory, the configuration, every rule and every
 *   operation whose bytes end at or before p (lctx_case_decode_spans
 *   reports where they end). A change inside a literal's content, a
 *   priority's explicit bytes or a flags byte changes that one field only
 *   (a lowering operation's flags may also change whether it is degraded);
 *   a change of a count, selector, length or kind byte may re-read the bytes
 *   after it differently.
 * - Compatible: the lowering parts sit in bits and bytes that the encoder
 *   of the forms before them wrote as zero (configuration flags bits 1-7,
 *   operation kind bit 5), so the encoding of a case without lowering is
 *   unchanged and decodes as before.
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
 *   RULE     (rule names, at most 63 bytes) a selector byte s:
 *              s < 192:  the entry s % 16 of "r0", ..., "r7", "P.cpu",
 *                        "P.cuda", "P.rocm", "P.tpu", "P.gpu", "Q.cpu",
 *                        "Q.gpu", "P.default";
 *              s >= 192: a literal: the next s - 192 (0..63) bytes.
 *   PRIMITIVE (primitives) as RULE, the entries s % 4 of "P", "Q", "R", "S".
 *   RAISE    (raise_if_multi messages) as RULE, the entries s % 4 of "",
 *            "boom", "multi-platform lowering is not supported", "'\"\\".
 *   COMPUTE  (compute types) as RULE, the entries s % 4 of "",
 *            "device_host", "device", "tpu_sparsecore".
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
 *   BYTE     configuration flags: bit 0 nvidia_gpu_visible; bits 1-7 the
 *            rule count r = (b >> 1) % 9.
 *   PLATFORMS jax_platforms; NAME jax_platform_name; NAME jax_xla_backend.
 *   r rules, stopping early at the end of the input. A rule is
 *              RULE name,
 *              BYTE action count a = b % 5, then a actions, stopping early
 *                   at the end of the input. An action is
 *                BYTE flags: bits 0-2 the kind, (b & 7) % 7 in the
 *                     numbering of lctx_lowering_action_kind (0
 *                     get_backend, 1 guarded_get_backend, 2
 *                     try_fallback_get_backend, 3 raise_if_multi, 4
 *                     read_client_platform, 5 lower_fun, 6 marker; 7 reads
 *                     as 0); bit 3 optional (the two get_backend kinds);
 *                     bit 4 has_compute_type (lower_fun);
 *                RAISE message (raise_if_multi) or PRIMITIVE (lower_fun):
 *                     one selector field, read whatever the kind;
 *                COMPUTE compute type (lower_fun when has_compute_type).
 *            A rule whose name is empty or repeats an earlier rule's is
 *            dropped. A lower_fun action that would make the case fail
 *            lctx_case_validate (a ninth primitive name) becomes a marker,
 *            the rule's last such action first.
 *   BYTE     operation count n = b % 9; then n operations, stopping early at
 *            the end of the input. Every operation starts with the same
 *            fields, whatever its kind:
 *              BYTE kind: bit 5 clear: bits 0-1 the kind (0 backends,
 *                   1 canonicalize, 2 get_backend, 3 module_get_backend);
 *                   bit 2 has_arg (get_backend); bit 3 has_backend and bit
 *                   4 optional (module_get_backend).
 *                   Bit 5 set, a lowering operation: bit 0 the kind (0
 *                   register_lowering, 1 lower_per_platform); bit 2 has_arg
 *                   (register_lowering's platform is not None); bit 1
 *                   has_compute_type, bit 3 has_backend, bit 4 x64, bit 6
 *                   has_narrow, bit 7 has_override (lower_per_platform);
 *              NAME arg (canonicalize; get_backend and register_lowering
 *                   when has_arg);
 *              BYTE platform count m = b % 17, then m NAME platforms,
 *                   stopping early at the end of the input
 *                   (module_get_backend, lower_per_platform);
 *              NAME backend (module_get_backend, lower_per_platform when
 *                   has_backend);
 *            and a lowering operation (bit 5 set) goes on with
 *              PRIMITIVE primitive;
 *              BYTE rule selector k: the case's rule k % c, c the number
 *                   of rules kept (register_lowering's rule;
 *                   lower_per_platform's override when has_override);
 *              BYTE narrow count m = b % 17, then m NAME platforms,
 *                   stopping early at the end of the input
 *                   (lower_per_platform when has_narrow);
 *              COMPUTE compute type (lower_per_platform when
 *                   has_compute_type).
 *            Fields a kind does not use are read and ignored. A platform
 *            name (module or narrowed) that would be a distinct name past
 *            the case's LCTX_CASE_MAX_NAMES is read and left out of its
 *            list; the names only a dropped operation used are dropped.
 *            A lowering operation is then made valid: with no rule kept, a
 *            register_lowering is dropped and an override cleared; if the
 *            case with the operation fails lctx_case_validate (a lower_fun
 *            cycle or nesting past 4 through a rule bound to a primitive,
 *            a ninth primitive name, a lowering able to record more than
 *            128 events), a lower_per_platform loses its override, then
 *            its narrow list, then its platforms, last first, one at a
 *            time, until it passes; a register_lowering, or a
 *            lower_per_platform that still fails, is dropped.
 *   Bytes after the last operation are ignored.
 *
 * The encoder writes the same layout, choosing the first dictionary entry
 * equal to a field and a literal otherwise, 0 for ignored bytes, the
 * canonical flag bits (the rule count r as r << 1), and for a rule name the
 * index of that rule.
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
   1 + (2 + LCTX_MAX_PLATFORMS_CONFIG) + 2 * (1 + LCTX_MAX_NAME) +             \
   LCTX_CASE_MAX_RULES *                                                       \
       ((1 + LCTX_MAX_NAME) + 1 +                                              \
        LCTX_CASE_MAX_ACTIONS * (1 + 2 * (1 + LCTX_MAX_NAME))) +               \
   1 +                                                                         \
   LCTX_CASE_MAX_OPS * (1 + (1 + LCTX_MAX_NAME) + 1 +                          \
                        LCTX_MAX_MODULE_PLATFORMS * (1 + LCTX_MAX_NAME) +      \
                        (1 + LCTX_MAX_NAME) + (1 + LCTX_MAX_NAME) + 1 + 1 +    \
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
  /// rule_end[i]: the end of decoded rule i (dropped rules are not
  /// counted); rules_end: the end of the rule section.
  size_t rule_end[LCTX_CASE_MAX_RULES];
  size_t rules_end;
  /// op_end[i]: the end of operation i (dropped operations are not
  /// counted).
  size_t op_end[LCTX_CASE_MAX_OPS];
  /// The end of the last byte read: the last operation read, kept or
  /// dropped (or the operation count). Bytes from here on are ignored.
  size_t end;
} lctx_case_byte_spans;

/// Decodes `size` bytes at `data` (NULL allowed when size is 0) into `out`.
/// Total and deterministic; see the layout above.
void lctx_case_decode(const uint8_t *data, size_t size, lctx_case *out);

/// lctx_case_decode into a case that keeps the invariants of a decoded one
/// (see lctx_case_reset), such as the last case decoded into `out`: only its
/// used parts are cleared first, so decoding many inputs into one case costs
/// what they use, not the size of the case. Same result as lctx_case_decode.
void lctx_case_decode_reuse(const uint8_t *data, size_t size, lctx_case *out);

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
