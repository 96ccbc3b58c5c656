/*
 * program.h - generated programs: the program description format of
 * conformance/sweep/PROGRAMS.md (version 1). Its text is program_text.h's,
 * its drawing program_draw.h's, its reductions program_reduce.h's.
 *
 * Owns the data model of a program (its argument, custom primitives with
 * per-platform rules, functions of statements), the format's tables
 * (platforms, statements, JAX operations, callbacks, collectives), the
 * look-ups the other modules share, the node count, the check that a
 * program is one the format allows, and the features a program uses.
 * Builds nothing in JAX and judges nothing: the exporter builds
 * (conformance/adapters/jax_program.py) and the sweep rows judge. libc
 * only.
 */
#ifndef LCTX_HARNESS_PROGRAM_H
#define LCTX_HARNESS_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// Limits of one program.
#define LCTX_PROG_NAME_MAX 32
#define LCTX_PROG_MAX_PRIMS 8
#define LCTX_PROG_MAX_RULES 6
#define LCTX_PROG_MAX_FUNS 12
#define LCTX_PROG_MAX_STMTS 16
#define LCTX_PROG_MAX_BRANCHES 6
#define LCTX_PROG_MAX_DIMS 3
#define LCTX_PROG_MAX_DIM 16
#define LCTX_PROG_MAX_CONST 1000000
/// The longest text of a program the printer writes.
#define LCTX_PROG_TEXT_MAX 16384

/// The platforms a rule or a `platform` branch may name; the last is
/// `default`.
enum { LCTX_PROG_PLATFORM_COUNT = 6, LCTX_PROG_DEFAULT = 5 };
extern const char *const lctx_prog_platforms[LCTX_PROG_PLATFORM_COUNT];

typedef enum lctx_prog_kind {
  LCTX_PS_PRIM,
  LCTX_PS_CALL,
  LCTX_PS_JAX,
  LCTX_PS_COND,
  LCTX_PS_SWITCH,
  LCTX_PS_WHILE,
  LCTX_PS_SCAN,
  LCTX_PS_PLATFORM,
  LCTX_PS_PRINT,
  LCTX_PS_CALLBACK,
  LCTX_PS_EXPORT,
  LCTX_PS_SHARD,
  LCTX_PS_KIND_COUNT
} lctx_prog_kind;

/// The statement keywords, by kind.
extern const char *const lctx_prog_kind_names[LCTX_PS_KIND_COUNT];

/// A value: -1 is the argument `x`, k >= 0 the value of statement k.
typedef int lctx_prog_value;

typedef struct lctx_prog_stmt {
  lctx_prog_kind kind;
  /// PRIM: the primitive; JAX: the operation (lctx_prog_op_name);
  /// CALLBACK: the callback kind; SHARD: the collective.
  int what;
  lctx_prog_value a, b; ///< operands (b: only a binary JAX operation)
  /// CALL, COND, SWITCH, WHILE, SCAN, EXPORT, PLATFORM: the functions;
  /// PLATFORM: the platform of each branch.
  int fn[LCTX_PROG_MAX_BRANCHES];
  int plat[LCTX_PROG_MAX_BRANCHES];
  size_t nfn;
} lctx_prog_stmt;

typedef struct lctx_prog_fun {
  char name[LCTX_PROG_NAME_MAX];
  bool jit;
  lctx_prog_stmt st[LCTX_PROG_MAX_STMTS];
  size_t n;
  lctx_prog_value ret;
  int order; ///< position among the definitions (prims and functions)
} lctx_prog_fun;

typedef enum {
  LCTX_PROG_READ_NONE,
  LCTX_PROG_READ_GET,
  LCTX_PROG_READ_OPTIONAL,
  LCTX_PROG_READ_ATTR,
  LCTX_PROG_READ_HOST,
  LCTX_PROG_READ_COUNT
} lctx_prog_read;
typedef enum {
  LCTX_PROG_EFFECT_NONE,
  LCTX_PROG_EFFECT_ORDERED,
  LCTX_PROG_EFFECT_UNORDERED,
  LCTX_PROG_EFFECT_COUNT
} lctx_prog_effect;

typedef struct lctx_prog_rule {
  int platform; ///< index in lctx_prog_platforms
  bool is_fun;  ///< `fun F` (else `add C`)
  long c;
  int fun;
  lctx_prog_read read;
} lctx_prog_rule;

typedef struct lctx_prog_prim {
  char name[LCTX_PROG_NAME_MAX];
  lctx_prog_effect effect;
  bool cache;
  lctx_prog_rule r[LCTX_PROG_MAX_RULES];
  size_t nr;
  int order;
} lctx_prog_prim;

typedef struct lctx_program_desc {
  bool int32; ///< the argument's dtype (else float32)
  size_t ndims;
  int dims[LCTX_PROG_MAX_DIMS];
  int symbolic; ///< the symbolic dimension, or -1
  lctx_prog_prim prim[LCTX_PROG_MAX_PRIMS];
  size_t nprim;
  lctx_prog_fun fun[LCTX_PROG_MAX_FUNS]; ///< the last is main
  size_t nfun;
} lctx_program_desc;

/// JAX operations (`jax OP`): their count, names and arities.
size_t lctx_prog_op_count(void);
const char *lctx_prog_op_name(int op);
int lctx_prog_op_arity(int op);
/// Callback kinds and collectives.
enum { LCTX_PROG_CALLBACK_COUNT = 4, LCTX_PROG_COLL_COUNT = 9 };
extern const char *const lctx_prog_callbacks[LCTX_PROG_CALLBACK_COUNT];
extern const char *const lctx_prog_collectives[LCTX_PROG_COLL_COUNT];

/// Look-ups: the index of `w` among `n` names (or -1); of a JAX operation;
/// of a primitive of `p`; of a function of `p` among the first `upto`.
int lctx_prog_find_text(const char *const *names, int n, const char *w);
int lctx_prog_op_find(const char *w);
int lctx_prog_prim_find(const lctx_program_desc *p, const char *w);
int lctx_prog_fun_find(const lctx_program_desc *p, const char *w, size_t upto);
/// Whether a statement is a binary JAX operation (it has a second value).
bool lctx_prog_stmt_binary(const lctx_prog_stmt *s);

/// The node count: statements and rules.
size_t lctx_program_size(const lctx_program_desc *p);

/// Which features and JAX operations a program uses, for a campaign's
/// coverage: `features` (LCTX_PROG_FEATURE_COUNT flags) and `ops`
/// (lctx_prog_op_count flags).
enum { LCTX_PROG_FEATURE_COUNT = 32 };
extern const char *const lctx_prog_feature_names[LCTX_PROG_FEATURE_COUNT];
void lctx_program_features(const lctx_program_desc *p, bool *features,
                           bool *ops);

#endif /* LCTX_HARNESS_PROGRAM_H */
