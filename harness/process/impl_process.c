/*
 * impl_process.c - a program under test that speaks the process protocol
 * (conformance/PROTOCOL.md; see impl.h).
 *
 * The program is a peer (peer.h) with pipes for stdin and stdout and
 * speaks JSON lines: the handshake, then one request per case, all sent at
 * once, and their answers read in turn, each within the timeout counted
 * from the answer before, so that a program that hangs (or writes half a
 * line) loses only the case it hangs in; the cases after it go to a fresh
 * program. A program that closed its stdin is found when a write to it
 * fails. Every line is bounded before it is buffered (LCTX_IMPL_MAX_LINE).
 */
#include "impl_private.h"

#include "escape.h"
#include "sys.h"

#include "case_json.h"

#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lctx_split_command(const char *line, char *storage, size_t storage_size,
                       char **argv, int max, lctx_buf *error) {
  int argc = 0;
  size_t used = 0;
  const char *p = line;
  for (;;) {
    while (*p == ' ' || *p == '\t')
      p++;
    if (*p == '\0')
      break;
    if (argc + 1 >= max) {
      lctx_buf_append_cstr(error, "too many words in the command line");
      return -1;
    }
    argv[argc++] = storage + used;
    while (*p && *p != ' ' && *p != '\t') {
      char c = *p++;
      if (c == '\'' || c == '"') {
        char quote = c;
        while (*p && *p != quote) {
          if (quote == '"' && *p == '\\' && p[1])
            p++;
          if (used + 2 >= storage_size)
            goto too_long;
          storage[used++] = *p++;
        }
        if (*p != quote) {
          lctx_buf_append_cstr(error, "unterminated ");
          lctx_buf_append_cstr(error, quote == '"' ? "\"" : "'");
          lctx_buf_append_cstr(error, " in the command line");
          return -1;
        }
        p++;
        continue;
      }
      if (c == '\\' && *p)
        c = *p++;
      if (used + 2 >= storage_size)
        goto too_long;
      storage[used++] = c;
    }
    storage[used++] = '\0';
  }
  argv[argc] = NULL;
  if (argc == 0) {
    lctx_buf_append_cstr(error, "the command line is empty");
    return -1;
  }
  return argc;
too_long:
  lctx_buf_append_cstr(error, "the command line is too long");
  return -1;
}

/* Starts the program: stdin and stdout pipes from and to lctx, stderr to
 * the log, looked up in PATH, never through a shell. */
static bool start_process(lctx_impl *impl, lctx_buf *error) {
  lctx_peer_spec spec = {.argv = impl->argv,
                         .search_path = true,
                         .pipes = true,
                         .log = impl->log_path,
                         .isolate = true,
                         .log_cap = LCTX_PEER_LOG_CAP};
  if (!lctx_peer_start(&impl->peer, &spec, error))
    return false;
  impl_peer_started(impl);
  return true;
}

/* A whole line is buffered, or more than impl->line_cap bytes without one
 * (refused: lctx never buffers more). */
static int want_line(void *user) {
  lctx_impl *impl = user;
  size_t look = impl->peer.in_length < impl->line_cap + 1 ? impl->peer.in_length
                                                          : impl->line_cap + 1;
  if (look > impl->line_scanned &&
      memchr(lctx_peer_input(&impl->peer) + impl->line_scanned, '\n',
             look - impl->line_scanned))
    return 1;
  impl->line_scanned = look;
  if (impl->peer.in_length > impl->line_cap)
    return impl_refuse(
        impl, "protocol error: a line longer than %zu bytes (the limit)",
        impl->line_cap);
  return 0;
}

/* Whether the program, still running, closed its stdin: the pipe lctx
 * writes to has no reader (a write to it fails with EPIPE). */
static bool input_closed(const lctx_impl *impl) {
  struct pollfd fd = {impl->peer.to_fd, 0, 0};
  return impl->peer.to_fd >= 0 && poll(&fd, 1, 0) == 1 &&
         (fd.revents & POLLERR) && !lctx_peer_ended(&impl->peer);
}

/* How often a wait looks whether the program closed its stdin (when no
 * write to it fails in the meantime). */
#define INPUT_LOOK 0.25

/* lctx_peer_pump for a line within `wait` seconds: LCTX_PEER_EOF as soon
 * as the program closed its stdin (a write to it failed, or a look every
 * INPUT_LOOK seconds finds no reader) without having answered. */
static lctx_peer_end pump_line(lctx_impl *impl, double wait) {
  double deadline = lctx_sys_now() + wait;
  for (;;) {
    double now = lctx_sys_now();
    double until = deadline - now > INPUT_LOOK ? now + INPUT_LOOK : deadline;
    lctx_peer_end code = lctx_peer_pump(&impl->peer, until, want_line, impl);
    if (code != LCTX_PEER_TIMEOUT || until >= deadline ||
        (impl->peer.stop_on_interrupt && lctx_sys_interrupted()))
      return code;
    if (input_closed(impl))
      return LCTX_PEER_EOF;
  }
}

/* Reads one line of at most `max` bytes (without the newline), waiting
 * `wait` seconds at most, into a fresh NUL-terminated string the caller
 * frees; NULL with `why` and how the wait ended in `*code` on EOF,
 * timeout, memory or a too long line. */
static char *read_line(lctx_impl *impl, double wait, size_t max, char *why,
                       size_t cap, lctx_peer_end *code) {
  impl->line_cap = max;
  *code = pump_line(impl, wait);
  if (*code != LCTX_PEER_DONE) {
    impl_describe_loss(impl, *code, wait, "", why, cap);
    return NULL;
  }
  uint8_t *nl =
      memchr(lctx_peer_input(&impl->peer), '\n', impl->peer.in_length);
  size_t n = (size_t)(nl - lctx_peer_input(&impl->peer));
  char *line = malloc(n + 1);
  if (!line) {
    snprintf(why, cap, "out of memory");
    *code = LCTX_PEER_EOF;
    return NULL;
  }
  memcpy(line, lctx_peer_input(&impl->peer), n);
  line[n] = '\0';
  lctx_peer_consume(&impl->peer, n + 1);
  impl->line_scanned = 0;
  return line;
}

/* Whether the handshake's operations name one lctx does not know (said in
 * `error`, with the names lctx knows). */
static bool unknown_operation(json_t *j, lctx_buf *error) {
  size_t i;
  json_t *v;
  json_array_foreach(json_object_get(j, "operations"), i, v) {
    lctx_op_kind kind;
    if (json_is_string(v) &&
        (lctx_op_kind_from_name(lctx_str_from_cstr(json_string_value(v)),
                                &kind) ||
         strcmp(json_string_value(v), "export") == 0))
      continue;
    lctx_buf_append_cstr(error, "handshake: unknown operation ");
    char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    if (text)
      lctx_escape_append(error, text, strlen(text));
    free(text);
    lctx_buf_append_cstr(error, " (lctx knows");
    for (int k = 0; k < LCTX_OP_KIND_COUNT; k++) {
      lctx_buf_append_cstr(error, k ? ", " : " ");
      lctx_buf_append_cstr(error, lctx_op_kind_name((lctx_op_kind)k));
    }
    lctx_buf_append_cstr(error, ", and the extension export)");
    return true;
  }
  return false;
}

/* Appends to `error` where the program's stderr went and its last lines
 * (at most 5, at most 600 bytes). */
static void append_log_tail(const lctx_impl *impl, lctx_buf *error) {
  if (strcmp(impl->log_path, "/dev/null") == 0)
    return;
  lctx_buf_append_cstr(error, "; its stderr is in ");
  lctx_escape_append(error, impl->log_path, strlen(impl->log_path));
  FILE *f = lctx_sys_fopen_in(impl->log_path, "r");
  if (!f)
    return;
  char tail[601];
  size_t n = 0;
  if (fseek(f, -600, SEEK_END) != 0)
    rewind(f);
  n = fread(tail, 1, 600, f);
  fclose(f);
  while (n > 0 && tail[n - 1] == '\n')
    n--;
  size_t start = n, lines = 0;
  while (start > 0 && lines < 5)
    lines += tail[--start] == '\n';
  if (start < n && tail[start] == '\n')
    start++;
  if (start >= n)
    return;
  lctx_buf_append_cstr(error, ", which ends: ");
  for (size_t i = start; i < n; i++) {
    if (tail[i] == '\n')
      lctx_buf_append_cstr(error, " | ");
    else
      lctx_escape_append(error, tail + i, 1);
  }
}

/* Reads the handshake answer `j` into impl->info; false with why. */
static bool take_handshake(lctx_impl *impl, json_t *j, lctx_buf *error) {
  json_t *err = j ? json_object_get(j, "error") : NULL;
  if (!j || !json_is_object(j)) {
    lctx_buf_append_cstr(error, "handshake: the answer is not a JSON object");
  } else if (!json_is_integer(json_object_get(j, "protocol")) ||
             json_integer_value(json_object_get(j, "protocol")) != 1) {
    json_t *p = json_object_get(j, "protocol");
    char *sent = p ? json_dumps(p, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    lctx_buf_append_cstr(error, "handshake: the program sent \"protocol\": ");
    if (sent)
      lctx_escape_append(error, sent, strlen(sent));
    else
      lctx_buf_append_cstr(error, "(nothing)");
    lctx_buf_append_cstr(error, "; lctx speaks protocol 1 (a number)");
    free(sent);
  } else if (unknown_operation(j, error)) {
    /* said in error */
  } else if (json_is_string(err)) {
    lctx_buf_append_cstr(error, "the program refused: ");
    lctx_escape_append(error, json_string_value(err), json_string_length(err));
  } else if (!json_is_string(json_object_get(j, "name")) ||
             !json_is_string(json_object_get(j, "version")) ||
             !json_is_array(json_object_get(j, "operations"))) {
    lctx_buf_append_cstr(error, "handshake: name, version and operations "
                                "are required");
  } else {
    snprintf(impl->info.name, sizeof impl->info.name, "%s",
             json_string_value(json_object_get(j, "name")));
    snprintf(impl->info.version, sizeof impl->info.version, "%s",
             json_string_value(json_object_get(j, "version")));
    impl_sanitize_info(&impl->info);
    impl->info.operations = 0;
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(j, "operations"), i, v) {
      lctx_op_kind kind;
      if (json_is_string(v) &&
          lctx_op_kind_from_name(lctx_str_from_cstr(json_string_value(v)),
                                 &kind))
        impl->info.operations |= 1u << kind;
    }
    return true;
  }
  return false;
}

static bool handshake(lctx_impl *impl, lctx_buf *error) {
  static const char hello[] = "{\"lctx\": \"hello\", \"protocol\": 1}\n";
  static const char hello_export[] = "{\"lctx\": \"hello\", \"protocol\": "
                                     "1, \"extensions\": [\"export\"]}\n";
  bool extended = impl->export_extension;
  impl->peer.out_length = impl->peer.out_sent = 0;
  if (extended)
    lctx_peer_queue(&impl->peer, hello_export, sizeof hello_export - 1);
  else
    lctx_peer_queue(&impl->peer, hello, sizeof hello - 1);
  char why[256];
  lctx_peer_end code;
  /* A program may take long to start (JAX's import): the timeout and 30 s,
   * which the message of a silent program says. */
  char *line =
      read_line(impl, impl->timeout + 30,
                extended ? LCTX_IMPL_MAX_LINE : LCTX_IMPL_MAX_HANDSHAKE, why,
                sizeof why, &code);
  if (!line) {
    lctx_buf_append_cstr(error, "handshake: ");
    lctx_buf_append_cstr(error, why);
    if (code == LCTX_PEER_EOF)
      append_log_tail(impl, error);
    return false;
  }
  json_error_t je;
  json_t *j = json_loads(line, 0, &je);
  bool ok = take_handshake(impl, j, error);
  json_decref(j);
  if (ok && extended) {
    free(impl->handshake_text);
    impl->handshake_text = line;
  } else {
    free(line);
  }
  return ok;
}

/* Starts the program and shakes hands (impl_ops.start); the program is
 * stopped on failure. */
static bool start_and_greet(lctx_impl *impl, lctx_buf *error) {
  if (start_process(impl, error) && handshake(impl, error))
    return true;
  impl_stop(impl, NULL, 0);
  return false;
}

/* Starts a fresh program when there is none; false (with why) when it
 * cannot start. */
static bool ensure_program(lctx_impl *impl, char *why, size_t cap) {
  if (impl_running(impl))
    return true;
  char e[256] = "";
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  if (start_and_greet(impl, &eb))
    return true;
  snprintf(why, cap, "cannot restart the program: %s", e);
  return false;
}

/* The offset of the first NUL in a string of the outcome object `o`
 * (`*what`: which), or -1. */
static long nul_in_outcome(json_t *o, const char **what) {
  const char *key;
  json_t *v;
  json_object_foreach(o, key, v) {
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    size_t n = s ? json_string_length(v) : 0;
    const char *nul = s ? memchr(s, '\0', n) : NULL;
    if (nul) {
      *what = strcmp(key, "mlir") == 0 ? "module" : "outcome text";
      return (long)(nul - s);
    }
  }
  return -1;
}

/* Reads outcome `k` of a result, with the module a lower_per_platform
 * outcome may carry as "mlir", into `res`; false with why in `e`. */
static bool read_outcome(json_t *o, lctx_case_result *res, size_t k,
                         lctx_buf *e) {
  json_t *mlir = json_is_object(o) ? json_object_get(o, "mlir") : NULL;
  json_t *bare = o;
  if (mlir) {
    bare = json_copy(o);
    json_object_del(bare, "mlir");
  }
  lctx_outcome out;
  bool good = lctx_outcome_from_json(bare, &out, e);
  if (mlir)
    json_decref(bare);
  if (good && !impl_result_add(res, &out)) {
    lctx_buf_append_cstr(e, "out of memory for the outcomes");
    good = false;
  }
  if (good && mlir && !json_is_string(mlir)) {
    lctx_buf_append_cstr(e, "mlir: expected a string");
    good = false;
  } else if (good && mlir && json_string_length(mlir) > 0) {
    res->mlir[k] =
        impl_copy_text(json_string_value(mlir), json_string_length(mlir));
  }
  return good;
}

/* Reads result `i` of an answer, for case `c`, into `res`; false (with why)
 * when it breaks the protocol. An error the program reports, or a NUL in a
 * text, marks only the case. */
static bool read_result(json_t *r, const lctx_case *c, size_t i,
                        lctx_case_result *res, char *why, size_t cap) {
  json_t *outcomes = json_object_get(r, "outcomes");
  json_t *err = json_object_get(r, "error");
  res->status = LCTX_RESULT_OK;
  res->detail[0] = '\0';
  if (json_is_string(err)) {
    char detail[200];
    snprintf(detail, sizeof detail, "the implementation failed: %s",
             json_string_value(err));
    impl_fail_case(res, LCTX_RESULT_CRASH, detail);
    return true;
  }
  if (!json_is_array(outcomes) || json_array_size(outcomes) != c->op_count) {
    snprintf(why, cap,
             "protocol error: result %zu needs %zu outcomes or an error", i,
             c->op_count);
    return false;
  }
  res->outcome_count = 0;
  res->text_length = 0;
  for (size_t k = 0; k < c->op_count; k++) {
    json_t *o = json_array_get(outcomes, k);
    const char *what = "";
    long at = json_is_object(o) ? nul_in_outcome(o, &what) : -1;
    if (at >= 0) {
      char detail[128];
      snprintf(detail, sizeof detail,
               "the %s holds a NUL byte at offset %ld (operation %zu)", what,
               at, k);
      impl_fail_case(res, LCTX_RESULT_CRASH, detail);
      return true;
    }
    char e[256];
    lctx_buf eb;
    lctx_buf_init(&eb, e, sizeof e);
    if (!read_outcome(o, res, k, &eb)) {
      snprintf(why, cap, "protocol error: results[%zu].outcomes[%zu]: %s", i, k,
               e);
      return false;
    }
  }
  return true;
}

/* Checks the answer `j` to request `id` of `n` cases and reads its results;
 * false (with why) when it breaks the protocol. */
static bool read_answer(json_t *j, const json_error_t *je,
                        const lctx_case *const *cases, size_t n,
                        unsigned long long id, lctx_case_result *results,
                        char *why, size_t cap) {
  json_t *results_json = j ? json_object_get(j, "results") : NULL;
  json_t *jid = j ? json_object_get(j, "id") : NULL;
  if (!j) {
    snprintf(why, cap, "protocol error: not JSON (%s)", je->text);
  } else if (!json_is_integer(jid) ||
             (unsigned long long)json_integer_value(jid) != id) {
    snprintf(why, cap,
             "protocol error: an answer that is not the one to request %llu "
             "(a stale or duplicate answer?)",
             id);
  } else if (!json_is_array(results_json) ||
             json_array_size(results_json) != n) {
    snprintf(why, cap, "protocol error: %zu results expected", n);
  } else {
    for (size_t i = 0; i < n; i++) {
      if (!read_result(json_array_get(results_json, i), cases[i], i,
                       &results[i], why, cap))
        return false;
    }
    return true;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Requests: one per case, each answer awaited with its own deadline
//===----------------------------------------------------------------------===//

/* Queues one request line `{"id": ID, "cases": [CASE]}` for each case of
 * cases[from..n), numbered on from impl->request_id + 1; false when one
 * cannot be encoded or queued. */
static bool queue_requests(lctx_impl *impl, const lctx_case *const *cases,
                           size_t from, size_t n) {
  impl->peer.out_length = impl->peer.out_sent = 0;
  for (size_t i = from; i < n; i++) {
    json_t *request = json_object();
    json_t *list = json_array();
    json_object_set_new(request, "id",
                        json_integer((json_int_t)++impl->request_id));
    json_array_append_new(list, lctx_case_to_json(cases[i], NULL));
    json_object_set_new(request, "cases", list);
    char *text = json_dumps(request, JSON_COMPACT);
    json_decref(request);
    bool ok = text && lctx_peer_queue(&impl->peer, text, strlen(text)) &&
              lctx_peer_queue(&impl->peer, "\n", 1);
    free(text);
    if (!ok)
      return false;
  }
  return true;
}

/* Waits at most the timeout (from now) for the answer to request `id`, of
 * case `c`, and reads it into `res`. Returns LCTX_PEER_DONE, or (with why)
 * how the program broke the protocol (LCTX_PEER_BAD: a line that is not
 * JSON, not the answer to `id`, or, when `last`, followed by another),
 * ended, hung or grew. */
static lctx_peer_end await_answer(lctx_impl *impl, const lctx_case *c,
                                  unsigned long long id, bool last,
                                  lctx_case_result *res, char *why,
                                  size_t cap) {
  lctx_peer_end code;
  char *line =
      read_line(impl, impl->timeout, LCTX_IMPL_MAX_LINE, why, cap, &code);
  if (!line)
    return code;
  json_error_t je;
  json_t *j = json_loads(line, JSON_ALLOW_NUL, &je);
  free(line);
  bool ok = read_answer(j, &je, &c, 1, id, res, why, cap);
  json_decref(j);
  if (ok && last && impl->peer.in_length > 0) {
    snprintf(why, cap, "protocol error: more than one answer to request %llu",
             id);
    ok = false;
  }
  if (!ok)
    return LCTX_PEER_BAD;
  res->cases_before = impl->served++;
  return LCTX_PEER_DONE;
}

/* A program that did not answer case `res` (`code`, with why): stopped
 * (with its group) and the case marked. */
static void lose_program(lctx_impl *impl, lctx_peer_end code, const char *why,
                         lctx_case_result *res) {
  char how[128] = "", died[160];
  size_t before = impl->served;
  bool closed = code == LCTX_PEER_EOF && input_closed(impl);
  impl_stop(impl, how, sizeof how);
  impl->restarts++;
  if (closed) {
    why = "the program closed its stdin and ran on (the pipe to it has "
          "no reader: EPIPE)";
  } else if (code == LCTX_PEER_EOF && how[0]) {
    snprintf(died, sizeof died, "the program %s", how);
    why = died;
  }
  impl_fail_case(
      res, code == LCTX_PEER_TIMEOUT ? LCTX_RESULT_TIMEOUT : LCTX_RESULT_CRASH,
      why);
  res->cases_before = before;
}

/* Runs cases[from..n) in the running program (or a fresh one): every
 * request is sent at once and each answer awaited in turn, the timeout
 * from the answer before. Returns the first case not run: `n`, or the case
 * after one the program failed (`*lost`: marked, run again alone when the
 * program had served others; the program is then stopped) or after one
 * that spent the budget (`*spent`; the program is stopped when it still
 * holds requests). */
static size_t run_requests(lctx_impl *impl, const lctx_case *const *cases,
                           size_t from, size_t n, lctx_case_result *results,
                           bool *lost, bool *spent) {
  char why[512];
  *lost = *spent = false;
  if (!ensure_program(impl, why, sizeof why)) {
    impl_fail_case(&results[from], LCTX_RESULT_CRASH, why);
    *lost = true;
    return from + 1;
  }
  unsigned long long id = impl->request_id + 1;
  if (!queue_requests(impl, cases, from, n)) {
    impl_fail_case(&results[from], LCTX_RESULT_CRASH,
                   "cannot encode the request");
    impl_stop(impl, NULL, 0);
    *lost = true;
    return from + 1;
  }
  for (size_t i = from; i < n; i++, id++) {
    lctx_peer_end code = await_answer(impl, cases[i], id, i + 1 == n,
                                      &results[i], why, sizeof why);
    if (code != LCTX_PEER_DONE) {
      lose_program(impl, code, why, &results[i]);
      if (results[i].cases_before > 0)
        impl_rerun_alone(impl, cases[i], &results[i]);
      *lost = true;
    }
    *spent = impl_over_budget(impl, &results[i]);
    if (*spent && !*lost && i + 1 < n)
      impl_stop(impl, NULL, 0);
    if (*spent || *lost)
      return i + 1;
  }
  return n;
}

/* lctx_impl_run (impl_ops.run): after a case the program failed, the rest
 * go to a fresh program; a program over half its memory limit is recycled
 * after the cases. */
static size_t run_process(lctx_impl *impl, const lctx_case *const *cases,
                          size_t n, lctx_case_result *results) {
  size_t next = 0;
  while (next < n) {
    bool lost, spent;
    if (impl->process_per_case)
      impl_stop(impl, NULL, 0);
    size_t to = impl->process_per_case ? next + 1 : n;
    next = run_requests(impl, cases, next, to, results, &lost, &spent);
    if (spent && next < n)
      return next;
  }
  impl_recycle_if_big(impl);
  return n;
}

/* Runs `c` alone in a fresh program (impl_ops.run_alone). */
static void run_alone(lctx_impl *impl, const lctx_case *c,
                      lctx_case_result *res) {
  bool lost, spent;
  impl_stop(impl, NULL, 0);
  (void)run_requests(impl, &c, 0, 1, res, &lost, &spent);
}

/* Answer line `line` parsed when it is a JSON object whose "id" is `id`;
 * else NULL, with why in `why`. */
static json_t *answer_to(const char *line, unsigned long long id, char *why,
                         size_t cap) {
  json_error_t je;
  json_t *j = json_loads(line, 0, &je);
  json_t *jid = json_object_get(j, "id");
  if (json_is_integer(jid) && (unsigned long long)json_integer_value(jid) == id)
    return j;
  if (!j)
    snprintf(why, cap, "protocol error: not JSON (%s)", je.text);
  else
    snprintf(why, cap,
             "protocol error: an answer that is not the one to request %llu "
             "(a stale or duplicate answer?)",
             id);
  json_decref(j);
  return NULL;
}

/* lctx_impl_exchange (impl_ops.exchange). */
static lctx_result_status exchange(lctx_impl *impl, const char *line,
                                   unsigned long long id, double timeout,
                                   json_t **answer, char *why, size_t cap) {
  impl_recycle_if_big(impl);
  if (!ensure_program(impl, why, cap))
    return LCTX_RESULT_CRASH;
  impl->peer.out_length = impl->peer.out_sent = 0;
  lctx_peer_queue(&impl->peer, line, strlen(line));
  lctx_peer_queue(&impl->peer, "\n", 1);
  lctx_peer_end code;
  char *got = read_line(impl, timeout, LCTX_IMPL_MAX_LINE, why, cap, &code);
  bool answered = got != NULL;
  json_t *j = got ? answer_to(got, id, why, cap) : NULL;
  free(got);
  if (answered && !j) {
    code = LCTX_PEER_BAD;
  } else if (j && impl->peer.in_length > 0) {
    snprintf(why, cap, "protocol error: more than one answer to request %llu",
             id);
    json_decref(j);
    code = LCTX_PEER_BAD;
  } else if (j) {
    impl->served++;
    *answer = j;
    return LCTX_RESULT_OK;
  }
  char how[128] = "";
  impl_stop(impl, how, sizeof how);
  impl->restarts++;
  if (code == LCTX_PEER_EOF && how[0])
    snprintf(why, cap, "the program %s", how);
  return code == LCTX_PEER_TIMEOUT ? LCTX_RESULT_TIMEOUT : LCTX_RESULT_CRASH;
}

/* impl_ops.close: the program is told goodbye (it then exits). */
static void close_process(lctx_impl *impl) {
  static const char bye[] = "{\"lctx\": \"bye\"}\n";
  if (!impl_running(impl))
    return;
  impl->peer.out_length = impl->peer.out_sent = 0;
  if (lctx_peer_queue(&impl->peer, bye, sizeof bye - 1))
    (void)lctx_peer_flush(&impl->peer);
}

const impl_ops lctx_impl_process_ops = {
    .kind = "process",
    .who = "program",
    .one = "program",
    .start = start_and_greet,
    .run = run_process,
    .run_alone = run_alone,
    .start_cases = NULL,
    .exchange = exchange,
    .close = close_process,
};
