/*
 * mlir_emit.c - lowering results as MLIR (see lctx/mlir_emit.h).
 *
 * Owns the text of the module and its round trip through the MLIR C API.
 * Must not decide anything about lowering: it only walks the recorded event
 * tree of lctx_lowering_result.
 */
#include "lctx/mlir_emit.h"

#include <mlir-c/Diagnostics.h>
#include <mlir-c/Dialect/Arith.h>
#include <mlir-c/Dialect/Func.h>
#include <mlir-c/Dialect/SCF.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct emitter {
  const lctx_lowering_registry *registry;
  const lctx_lowering_result *result;
  const char *index_type; /* "i32" or "i64" */
  bool has_index;
  int next_value;
  lctx_buf *out;
  lctx_buf *error;
  bool ok;
} emitter;

static void indent(emitter *e, int depth) {
  for (int i = 0; i < depth; i++)
    lctx_buf_append(e->out, "  ", 2);
}

/* An MLIR string literal: `"` ... `"`, with `\` and `"` escaped and other
 * bytes outside printable ASCII as `\XX`. */
static void literal(lctx_buf *out, lctx_str s) {
  static const char hex[] = "0123456789ABCDEF";
  lctx_buf_append_char(out, '"');
  for (size_t i = 0; i < s.length; i++) {
    unsigned char c = (unsigned char)s.data[i];
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7f) {
      char esc[3] = {'\\', hex[c >> 4], hex[c & 0xf]};
      lctx_buf_append(out, esc, 3);
    } else {
      lctx_buf_append_char(out, (char)c);
    }
  }
  lctx_buf_append_char(out, '"');
}

static void emit_event(emitter *e, int index, int depth);

/* Emits every child of `parent` in order. */
static void emit_children(emitter *e, int parent, int depth) {
  for (size_t i = (size_t)parent + 1; i < e->result->event_count; i++) {
    if (e->result->events[i].parent == parent)
      emit_event(e, (int)i, depth);
  }
}

static void emit_marker(emitter *e, const lctx_lowering_event *ev, int depth) {
  indent(e, depth);
  lctx_buf_append_cstr(e->out, "\"lctx.marker\"() {platforms = [");
  for (size_t k = 0; k < ev->platform_count; k++) {
    if (k > 0)
      lctx_buf_append(e->out, ", ", 2);
    literal(e->out, ev->platforms[k]);
  }
  lctx_buf_append_cstr(e->out, "], primitive = ");
  /* The primitive is the enclosing equation's (its description for a
   * direct lower_per_platform). */
  const lctx_lowering_event *eqn = ev;
  while (eqn->kind != LCTX_EVENT_EQN && eqn->parent >= 0)
    eqn = &e->result->events[eqn->parent];
  literal(e->out, eqn->primitive >= 0 ? lctx_lowering_primitive_name(
                                            e->registry, eqn->primitive)
                                      : eqn->description);
  lctx_buf_append_cstr(e->out, ", rule = ");
  literal(e->out, lctx_lowering_rule_name(e->registry, ev->rule));
  lctx_buf_append_cstr(e->out, "} : () -> ()\n");
}

/* Emits one line at `depth`: the printf-style text (which ends in "\n"). */
__attribute__((format(printf, 3, 4))) static void
emit_line(emitter *e, int depth, const char *format, ...) {
  char text[256];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof text, format, args);
  va_end(args);
  indent(e, depth);
  lctx_buf_append_cstr(e->out, text);
}

/* Opens case `k` of a switch of `count` regions: the last is `default`. */
static void open_case(emitter *e, int depth, size_t k, size_t count) {
  if (k + 1 < count)
    emit_line(e, depth, "case %zu {\n", k);
  else
    emit_line(e, depth, "default {\n");
}

/* A dispatch: the first switch over the entries yields the slot, the second
 * switch over the slot runs the kept rule's branch. */
static void emit_dispatch(emitter *e, int index, int depth) {
  const lctx_lowering_event *d = &e->result->events[index];
  if (!e->has_index) {
    lctx_buf_append_cstr(e->error, "a dispatch in a module without a "
                                   "platform index");
    e->ok = false;
    return;
  }
  int idx = e->next_value++, slot = e->next_value++, sidx = e->next_value++;
  emit_line(e, depth, "%%v%d = arith.index_cast %%arg0 : %s to index\n", idx,
            e->index_type);
  emit_line(e, depth, "%%v%d = scf.index_switch %%v%d -> i32\n", slot, idx);
  for (size_t k = 0; k < d->platform_count; k++) {
    int c = e->next_value++;
    open_case(e, depth, k, d->platform_count);
    emit_line(e, depth + 1, "%%v%d = arith.constant %d : i32\n", c,
              d->slots[k]);
    emit_line(e, depth + 1, "scf.yield %%v%d : i32\n", c);
    emit_line(e, depth, "}\n");
  }
  emit_line(e, depth, "%%v%d = arith.index_cast %%v%d : i32 to index\n", sidx,
            slot);
  emit_line(e, depth, "scf.index_switch %%v%d\n", sidx);
  /* The branches are the BRANCH children, in slot order. */
  size_t branch = 0;
  for (size_t i = (size_t)index + 1; i < e->result->event_count; i++) {
    const lctx_lowering_event *b = &e->result->events[i];
    if (b->parent != index || b->kind != LCTX_EVENT_BRANCH)
      continue;
    open_case(e, depth, branch, d->kept_count);
    emit_children(e, (int)i, depth + 1);
    emit_line(e, depth + 1, "scf.yield\n");
    emit_line(e, depth, "}\n");
    branch++;
  }
  if (branch != d->kept_count) {
    lctx_buf_append_cstr(e->error, "a dispatch whose branches do not match "
                                   "its kept rules");
    e->ok = false;
  }
}

static void emit_event(emitter *e, int index, int depth) {
  const lctx_lowering_event *ev = &e->result->events[index];
  switch (ev->kind) {
  case LCTX_EVENT_EQN:
  case LCTX_EVENT_CALL:
  case LCTX_EVENT_BRANCH:
    emit_children(e, index, depth);
    break;
  case LCTX_EVENT_DISPATCH:
    emit_dispatch(e, index, depth);
    break;
  case LCTX_EVENT_MARKER:
    emit_marker(e, ev, depth);
    break;
  case LCTX_EVENT_BACKEND:
  case LCTX_EVENT_RAISE:
    break; /* no IR */
  }
}

bool lctx_mlir_emit_text(const lctx_lowering_registry *registry,
                         const lctx_lowering_result *result, bool x64,
                         lctx_buf *out, lctx_buf *error) {
  if (result->outcome.kind == LCTX_OUTCOME_RAISE ||
      result->limit != LCTX_LOWERING_LIMIT_NONE || result->event_count == 0) {
    lctx_buf_append_cstr(error, "the lowering did not succeed: no module");
    return false;
  }
  emitter e = {registry, result, x64 ? "i64" : "i32", false, 0, out,
               error,    true};
  const lctx_lowering_event *top = &result->events[0];
  e.has_index = top->module_platform_count > 1;
  lctx_buf_append_cstr(out, "module {\n  func.func @main(");
  if (e.has_index) {
    lctx_buf_append_cstr(out, "%arg0: ");
    lctx_buf_append_cstr(out, e.index_type);
    lctx_buf_append_cstr(out, " {jax.global_constant = \"_platform_index\"}");
  }
  lctx_buf_append_cstr(out, ") {\n");
  emit_event(&e, 0, 2);
  lctx_buf_append_cstr(out, "    return\n  }\n}\n");
  if (out->overflow) {
    lctx_buf_append_cstr(error, "the module text does not fit the buffer");
    return false;
  }
  return e.ok;
}

//===----------------------------------------------------------------------===//
// The MLIR C API
//===----------------------------------------------------------------------===//

static MlirStringRef ref(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

static void append_ref(MlirStringRef s, void *user) {
  lctx_buf *buf = user;
  lctx_buf_append(buf, s.data, s.length);
}

/* The context's own handler: swallows every diagnostic (MLIR would print
 * them to stderr otherwise). */
static MlirLogicalResult swallow(MlirDiagnostic d, void *user) {
  (void)d;
  (void)user;
  return mlirLogicalResultSuccess();
}

/* A temporary handler: diagnostics into an lctx_buf. */
static MlirLogicalResult capture(MlirDiagnostic d, void *user) {
  lctx_buf *buf = user;
  if (buf->length > 0)
    lctx_buf_append_cstr(buf, "; ");
  mlirDiagnosticPrint(d, append_ref, buf);
  return mlirLogicalResultSuccess();
}

MlirContext lctx_mlir_context_new(bool threading, MlirDiagnosticHandler handler,
                                  void *user_data) {
  MlirContext ctx =
      threading ? mlirContextCreate() : mlirContextCreateWithThreading(false);
  mlirDialectHandleRegisterDialect(mlirGetDialectHandle__func__(), ctx);
  mlirDialectHandleRegisterDialect(mlirGetDialectHandle__arith__(), ctx);
  mlirDialectHandleRegisterDialect(mlirGetDialectHandle__scf__(), ctx);
  mlirContextGetOrLoadDialect(ctx, ref("func"));
  mlirContextGetOrLoadDialect(ctx, ref("arith"));
  mlirContextGetOrLoadDialect(ctx, ref("scf"));
  mlirContextSetAllowUnregisteredDialects(ctx, true);
  mlirContextAttachDiagnosticHandler(ctx, handler, user_data, NULL);
  return ctx;
}

MlirContext lctx_mlir_context_create(void) {
  return lctx_mlir_context_new(true, swallow, NULL);
}

bool lctx_mlir_emit(MlirContext context, const lctx_lowering_registry *registry,
                    const lctx_lowering_result *result, bool x64,
                    MlirModule *module, lctx_buf *error) {
  /* 64 KiB first, 1 MiB only when that overflows: a 1 MiB malloc per call
     is an mmap/munmap pair under ASan and dominated fuzzing throughput. */
  size_t capacity = 1u << 16;
  size_t mark = error->length;
  char *text;
  lctx_buf out;
  bool ok;
  for (;;) {
    text = malloc(capacity);
    if (!text) {
      lctx_buf_append_cstr(error, "out of memory");
      return false;
    }
    lctx_buf_init(&out, text, capacity);
    ok = lctx_mlir_emit_text(registry, result, x64, &out, error);
    if (ok || !out.overflow || capacity >= (1u << 20))
      break;
    free(text);
    error->length = mark; /* drop "does not fit" and retry bigger */
    error->data[mark] = '\0';
    capacity = 1u << 20;
  }
  if (ok) {
    MlirDiagnosticHandlerID id =
        mlirContextAttachDiagnosticHandler(context, capture, error, NULL);
    *module = mlirModuleCreateParse(context,
                                    mlirStringRefCreate(out.data, out.length));
    if (mlirModuleIsNull(*module)) {
      lctx_buf_append_cstr(error, error->length ? " (the emitted text does "
                                                  "not parse)"
                                                : "the emitted text does not "
                                                  "parse");
      ok = false;
    } else if (!mlirOperationVerify(mlirModuleGetOperation(*module))) {
      lctx_buf_append_cstr(error, " (the emitted module does not verify)");
      mlirModuleDestroy(*module);
      module->ptr = NULL;
      ok = false;
    }
    mlirContextDetachDiagnosticHandler(context, id);
  }
  free(text);
  return ok;
}

void lctx_mlir_print(MlirModule module, lctx_buf *out) {
  mlirOperationPrint(mlirModuleGetOperation(module), append_ref, out);
}
