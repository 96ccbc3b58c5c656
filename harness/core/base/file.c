/*
 * file.c - reading a whole file into memory, and loading one (see file.h).
 */
#include "file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool fail(lctx_buf *error, const char *path, const char *what,
                 int errnum) {
  if (error) {
    lctx_buf_append_cstr(error, path);
    lctx_buf_append_cstr(error, ": ");
    lctx_buf_append_cstr(error, what);
    if (errnum) {
      lctx_buf_append_cstr(error, ": ");
      lctx_buf_append_cstr(error, strerror(errnum));
    }
  }
  return false;
}

bool lctx_file_read(const char *path, size_t max, char **text, size_t *length,
                    lctx_buf *error) {
  *text = NULL;
  *length = 0;
  bool is_stdin = strcmp(path, "-") == 0;
  FILE *f = is_stdin ? stdin : fopen(path, "rb");
  if (!f)
    return fail(error, path, "cannot open", errno);
  size_t cap = max < 65536 ? max + 1 : 65536, n = 0;
  char *buf = malloc(cap + 1);
  bool ok = buf != NULL, over = false;
  int errnum = ok ? 0 : ENOMEM;
  while (ok) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n > max) {
      over = true;
      ok = false;
    } else if (n < cap) {
      if (ferror(f)) {
        errnum = errno ? errno : EIO;
        ok = false;
      }
      break;
    } else {
      size_t grown = cap > max / 2 ? max + 1 : cap * 2;
      char *bigger = realloc(buf, grown + 1);
      if (!bigger) {
        errnum = ENOMEM;
        ok = false;
      } else {
        buf = bigger;
        cap = grown;
      }
    }
  }
  if (!is_stdin)
    fclose(f);
  if (!ok) {
    free(buf);
    if (over) {
      char what[64];
      snprintf(what, sizeof what, "file larger than %zu bytes", max);
      return fail(error, path, what, 0);
    }
    return fail(error, path, "read error", errnum);
  }
  buf[n] = '\0';
  *text = buf;
  *length = n;
  return true;
}

bool lctx_file_parse(const char *path, size_t max, lctx_file_parser parse,
                     void *out, lctx_buf *error) {
  char *text;
  size_t n;
  if (!lctx_file_read(path, max, &text, &n, error))
    return false;
  bool ok = parse(text, n, path, out, error);
  free(text);
  return ok;
}
