/*
 * dirlist.c - a folder's regular files by suffix, sorted (see dirlist.h).
 */
#include "dirlist.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int compare_paths(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends `dir/name` to `*paths` (NULL-terminated); false when out of
 * memory. */
static bool append(char ***paths, size_t *count, size_t *capacity,
                   const char *dir, const char *name) {
  if (*count + 1 >= *capacity) {
    size_t grown = *capacity ? 2 * *capacity : 16;
    char **bigger = realloc(*paths, grown * sizeof *bigger);
    if (!bigger)
      return false;
    *paths = bigger;
    *capacity = grown;
  }
  size_t size = strlen(dir) + strlen(name) + 2;
  char *path = malloc(size);
  if (!path)
    return false;
  snprintf(path, size, "%s/%s", dir, name);
  (*paths)[(*count)++] = path;
  (*paths)[*count] = NULL;
  return true;
}

/* Appends `DIR: WHAT` (and `: REASON` when ERRNUM) to ERROR. */
static void say(lctx_buf *error, const char *dir, const char *what,
                int errnum) {
  if (!error)
    return;
  lctx_buf_append_cstr(error, dir);
  lctx_buf_append_cstr(error, ": ");
  lctx_buf_append_cstr(error, what);
  if (errnum) {
    lctx_buf_append_cstr(error, ": ");
    lctx_buf_append_cstr(error, strerror(errnum));
  }
}

/* Whether NAME, an entry of the open folder D, is listed: it ends in
 * SUFFIX (K bytes), is longer, and is a regular file (links followed). */
static bool wanted(DIR *d, const char *name, const char *suffix, size_t k) {
  size_t n = strlen(name);
  if (n <= k || strcmp(name + n - k, suffix) != 0)
    return false;
  struct stat st;
  return fstatat(dirfd(d), name, &st, 0) == 0 && S_ISREG(st.st_mode);
}

/* Lists the open folder D into *PATHS; false after a message. */
static bool list(DIR *d, const char *dir, const char *suffix, char ***paths,
                 size_t *count, lctx_buf *error) {
  size_t capacity = 1, k = strlen(suffix);
  for (;;) {
    errno = 0;
    struct dirent *e = readdir(d);
    if (!e && errno) {
      say(error, dir, "cannot read folder", errno);
      return false;
    }
    if (!e)
      return true;
    if (!wanted(d, e->d_name, suffix, k))
      continue;
    if (*count == LCTX_MAX_FOLDER_FILES) {
      char what[96];
      snprintf(what, sizeof what, "more than %d *%s files",
               LCTX_MAX_FOLDER_FILES, suffix);
      say(error, dir, what, 0);
      return false;
    }
    if (!append(paths, count, &capacity, dir, e->d_name)) {
      say(error, dir, "out of memory", 0);
      return false;
    }
  }
}

char **lctx_dirlist_read(const char *dir, const char *suffix, size_t *count,
                         lctx_buf *error) {
  *count = 0;
  DIR *d = opendir(dir);
  if (!d) {
    int errnum = errno;
    struct stat st;
    if (errnum == ENOTDIR || (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)))
      say(error, dir, "not a folder", 0);
    else
      say(error, dir, "cannot read folder", errnum);
    return NULL;
  }
  char **paths = calloc(1, sizeof *paths); /* {NULL} */
  bool ok = paths != NULL;
  if (!ok)
    say(error, dir, "out of memory", 0);
  else
    ok = list(d, dir, suffix, &paths, count, error);
  closedir(d);
  if (!ok) {
    lctx_dirlist_free(paths);
    *count = 0;
    return NULL;
  }
  qsort(paths, *count, sizeof *paths, compare_paths);
  return paths;
}

void lctx_dirlist_free(char **paths) {
  for (size_t i = 0; paths && paths[i]; i++)
    free(paths[i]);
  free(paths);
}
