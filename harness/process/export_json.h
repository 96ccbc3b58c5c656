/*
 * export_json.h - the JSON of the export extension of the process protocol
 * (conformance/PROTOCOL.md, "The export operation"): the catalogue a
 * program offers in its handshake, and its answers to export requests,
 * read into sweepjudge.h's model.
 *
 * Owns checking every field of what a program sent (types, sizes, counts;
 * text kept as sent, escaped only where it is shown) and the memory the
 * answers own. Everything read here is hostile input: a malformed field is
 * named in the message, never trusted.
 */
#ifndef LCTX_DRIVE_EXPORT_JSON_H
#define LCTX_DRIVE_EXPORT_JSON_H

#include "sweepjudge.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/// Limits on a catalogue.
#define LCTX_CATALOGUE_MAX_PROGRAMS 100000
#define LCTX_CATALOGUE_NAME_MAX 256
#define LCTX_CATALOGUE_MAX_PRIMITIVES 4096

/// The most platform lists a program of the catalogue declares.
#define LCTX_PROGRAM_MAX_LISTS 16

/// One program of the catalogue.
typedef struct lctx_program {
  char name[LCTX_CATALOGUE_NAME_MAX];
  char group[128];
  char kind[16];
  long size;
  /// The platform lists it declares ("platforms": a user's program,
  /// conformance/sweep/USER.md), each 2 to 4 distinct names of the hello's
  /// `platforms`, kept as their indices there; 0 lists: none declared
  /// (the sweep draws its lists).
  size_t list_count;
  unsigned char list_len[LCTX_PROGRAM_MAX_LISTS];
  unsigned char list[LCTX_PROGRAM_MAX_LISTS][4];
} lctx_program;

/// What the program offers: itself, its JAX, the platforms it exports
/// for, the primitives with lowering rules, and the catalogue.
typedef struct lctx_catalogue {
  char name[128], version[64];
  char jax_version[64], jaxlib_version[64], mutant[128];
  size_t platform_count;
  char platforms[LCTX_EXPORT_MAX_PLATFORMS][LCTX_EXPORT_PLATFORM_MAX];
  size_t primitive_count;
  char (*primitives)[64];
  size_t count;
  lctx_program *programs; ///< in the order sent
  /// The program format version it builds (`"generate"` in the hello;
  /// 0: it builds no generated programs).
  int generate;
} lctx_catalogue;

/// Reads the handshake line `text`. False with the field named in `why`
/// (the catalogue is then empty and owns nothing).
bool lctx_catalogue_parse(const char *text, lctx_catalogue *out, char *why,
                          size_t cap);
void lctx_catalogue_free(lctx_catalogue *c);

/// The index of program `name`, or -1.
long lctx_catalogue_find(const lctx_catalogue *c, const char *name);

/// Reads a list of 0 to 8 platform names (each 1 to 31 bytes) into `dst`
/// and its length into `*count`; returns NULL, or what is wrong with it.
const char *lctx_export_json_platforms(json_t *list,
                                       char (*dst)[LCTX_EXPORT_PLATFORM_MAX],
                                       size_t *count);

/// An answer with the memory it owns.
typedef struct lctx_export_store {
  lctx_export_answer answer;
  double *values;
  lctx_census_call *census;
  /// The primitives whose lowering rules ran.
  size_t primitive_count;
  char (*primitives)[64];
  double seconds;
  lctx_dispatch_event *dispatch;
  /// A standalone reproduction the program wrote when asked ("repro"), or
  /// NULL; kept as sent (at most LCTX_EXPORT_REPRO_MAX bytes).
  char *repro;
  /// A user or package program's facts ("user"), or NULL.
  lctx_user_facts *user;
} lctx_export_store;
#define LCTX_EXPORT_REPRO_MAX 200000
#define LCTX_EXPORT_MAX_DISPATCH 200

/// Reads one item of an answer's "results" into `out` (released first).
/// An item `{"error": "..."}` is a CRASH with its text; a malformed item is
/// a CRASH naming the field ("results[3].census[0].line: not an integer",
/// "results[3].user.rule.line: ..."): the optional `user` object and the
/// census entries' optional `rule` and `call_site` are checked as the
/// rest (texts of 1 to 500 bytes without NUL, lines from 1 to 10^7).
/// `item` is the item's index, for the message.
void lctx_export_store_read(json_t *j, size_t item, lctx_export_store *out);

/// Sets `out` (released first) to an answer lost as `status` with `why`.
void lctx_export_store_lose(lctx_export_store *out, lctx_export_status status,
                            const char *why);

/// The answer as JSON again (what a recorded case file holds), or NULL
/// when out of memory.
json_t *lctx_export_store_json(const lctx_export_store *s);

void lctx_export_store_release(lctx_export_store *s);

#endif /* LCTX_DRIVE_EXPORT_JSON_H */
