/*
 * file.c - reading a whole input file, and loading one (see file.h).
 *
 * A path is opened without blocking (O_NONBLOCK: opening a FIFO that has no
 * writer returns at once) and checked with fstat on the open descriptor,
 * so that what is read is what was checked; only then is it read, with
 * read(2), to its end or to one byte past the limit.
 */
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* What a file of MODE that is not a regular file is, for the message. */
static const char *not_regular(mode_t mode) {
  if (S_ISFIFO(mode))
    return "not a regular file (a fifo)";
  if (S_ISDIR(mode))
    return "not a regular file (a folder)";
  if (S_ISCHR(mode) || S_ISBLK(mode))
    return "not a regular file (a device)";
  if (S_ISSOCK(mode))
    return "not a regular file (a socket)";
  return "not a regular file";
}

/* Opens PATH for reading, a regular file only; -1 after the message. */
static int open_regular(const char *path, lctx_buf *error) {
  struct stat st;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int errnum = errno;
    /* a socket cannot be opened at all: say what it is */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
      fail(error, path, not_regular(st.st_mode), 0);
    else
      fail(error, path, "cannot open", errnum);
    return -1;
  }
  bool ok = fstat(fd, &st) == 0;
  if (!ok)
    fail(error, path, "cannot open", errno);
  else if (!S_ISREG(st.st_mode)) {
    fail(error, path, not_regular(st.st_mode), 0);
    ok = false;
  }
  if (!ok)
    close(fd);
  return ok ? fd : -1;
}

/* Reads FD to its end into a new buffer (NUL-terminated) of at most MAX
 * bytes; NULL with *over set when there are more, or with *errnum. */
static char *read_all(int fd, size_t max, size_t *length, bool *over,
                      int *errnum) {
  size_t cap = max < 65536 ? max + 1 : 65536, n = 0;
  char *buf = malloc(cap + 1);
  *errnum = buf ? 0 : ENOMEM;
  while (buf) {
    ssize_t got = read(fd, buf + n, cap - n);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      *errnum = errno;
      break;
    }
    if (got == 0) {
      buf[n] = '\0';
      *length = n;
      return buf;
    }
    n += (size_t)got;
    if (n > max) {
      *over = true;
      break;
    }
    if (n == cap) {
      size_t grown = cap > max / 2 ? max + 1 : cap * 2;
      char *bigger = realloc(buf, grown + 1);
      if (!bigger) {
        *errnum = ENOMEM;
        break;
      }
      buf = bigger;
      cap = grown;
    }
  }
  free(buf);
  return NULL;
}

bool lctx_file_read(const char *path, size_t max, char **text, size_t *length,
                    lctx_buf *error) {
  *text = NULL;
  *length = 0;
  bool is_stdin = strcmp(path, "-") == 0;
  int fd = is_stdin ? STDIN_FILENO : open_regular(path, error);
  if (fd < 0)
    return false;
  if (!is_stdin) /* a regular file: reads never block anyway */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  bool over = false;
  int errnum = 0;
  char *buf = read_all(fd, max, length, &over, &errnum);
  if (!is_stdin)
    close(fd);
  if (buf) {
    *text = buf;
    return true;
  }
  if (over) {
    char what[64];
    snprintf(what, sizeof what, "file larger than %zu bytes", max);
    return fail(error, path, what, 0);
  }
  return fail(error, path, "read error", errnum);
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
