/*
 * seal.c - sealed results files and the key store (see seal.h).
 */
#include "seal.h"

#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

//===----------------------------------------------------------------------===//
// Run ids and the key store
//===----------------------------------------------------------------------===//

static bool random_bytes(void *dst, size_t n) {
  uint8_t *p = dst;
  while (n > 0) {
    ssize_t got = getrandom(p, n, 0);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false;
    p += got;
    n -= (size_t)got;
  }
  return true;
}

bool lctx_seal_new_run(char id[LCTX_SEAL_ID_SIZE],
                       uint8_t key[LCTX_SEAL_KEY_SIZE], char *why, size_t n) {
  uint8_t raw[16];
  if (!random_bytes(raw, sizeof raw) ||
      !random_bytes(key, LCTX_SEAL_KEY_SIZE)) {
    snprintf(why, n, "no random bytes for the run's key: %s", strerror(errno));
    return false;
  }
  lctx_sha256_hex(raw, sizeof raw, id);
  return true;
}

bool lctx_seal_is_id(const char *id) {
  size_t i = 0;
  for (; id && id[i]; i++)
    if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
      return false;
  return i == LCTX_SEAL_ID_SIZE - 1;
}

bool lctx_seal_store_dir(char *dst, size_t n, char *why, size_t why_n) {
  const char *state = getenv("LCTX_STATE_DIR");
  const char *xdg = getenv("XDG_STATE_HOME");
  const char *home = getenv("HOME");
  int len;
  if (state && state[0])
    len = snprintf(dst, n, "%s", state);
  else if (xdg && xdg[0] == '/')
    len = snprintf(dst, n, "%s/lctx", xdg);
  else if (home && home[0])
    len = snprintf(dst, n, "%s/.local/state/lctx", home);
  else {
    snprintf(why, why_n, "no key store: set LCTX_STATE_DIR (or HOME)");
    return false;
  }
  if (len < 0 || (size_t)len >= n) {
    snprintf(why, why_n, "the key store's path is too long");
    return false;
  }
  return true;
}

static int store_open(bool make, char *why, size_t n);

bool lctx_seal_store_make(char *dst, size_t n, char *why, size_t why_n) {
  int fd = lctx_seal_store_dir(dst, n, why, why_n)
               ? store_open(true, why, why_n)
               : -1;
  if (fd >= 0)
    close(fd);
  return fd >= 0;
}

/* The key store's folder, opened (made when `make`, private: 0700 and
 * ours); -1 with why. */
static int store_open(bool make, char *why, size_t n) {
  char dir[LCTX_SEAL_PATH_MAX], parent[LCTX_SEAL_PATH_MAX];
  if (!lctx_seal_store_dir(dir, sizeof dir, why, n))
    return -1;
  if (make) {
    snprintf(parent, sizeof parent, "%s", dir);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
      *slash = '\0';
      lctx_sys_mkdir_p(parent);
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
      snprintf(why, n, "the key store %s cannot be made: %s", dir,
               strerror(errno));
      return -1;
    }
  }
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    snprintf(why, n, "the key store %s cannot be opened: %s", dir,
             errno == ELOOP || errno == ENOTDIR
                 ? "not a folder (a link is not followed)"
                 : strerror(errno));
    if (fd >= 0)
      close(fd);
    return -1;
  }
  if (st.st_uid != geteuid()) {
    snprintf(why, n, "the key store %s is not this user's", dir);
    close(fd);
    return -1;
  }
  if ((st.st_mode & 077) != 0 && fchmod(fd, 0700) != 0) {
    snprintf(why, n, "the key store %s cannot be made private: %s", dir,
             strerror(errno));
    close(fd);
    return -1;
  }
  return fd;
}

bool lctx_seal_store_key(const char *id, const uint8_t key[LCTX_SEAL_KEY_SIZE],
                         char *why, size_t n) {
  int dir = store_open(true, why, n);
  if (dir < 0)
    return false;
  char name[LCTX_SEAL_ID_SIZE + 8];
  snprintf(name, sizeof name, "%s.key", id);
  int fd = openat(dir, name,
                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  bool ok = fd >= 0 && write(fd, key, LCTX_SEAL_KEY_SIZE) == LCTX_SEAL_KEY_SIZE;
  int e = errno;
  if (fd >= 0 && close(fd) != 0)
    ok = false;
  if (!ok) {
    snprintf(why, n, "the run's key cannot be kept in the key store: %s",
             strerror(e));
    unlinkat(dir, name, 0);
  }
  close(dir);
  return ok;
}

bool lctx_seal_load_key(const char *id, uint8_t key[LCTX_SEAL_KEY_SIZE],
                        char *why, size_t n) {
  char dir_path[LCTX_SEAL_PATH_MAX];
  if (!lctx_seal_store_dir(dir_path, sizeof dir_path, why, n))
    return false;
  char name[LCTX_SEAL_ID_SIZE + 8], store[512];
  snprintf(name, sizeof name, "%s.key", id);
  int dir = store_open(false, store, sizeof store);
  if (dir < 0) {
    snprintf(why, n, "its key %s/%s is not in the key store (%s)", dir_path,
             name, store);
    return false;
  }
  int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  bool ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
            st.st_size == LCTX_SEAL_KEY_SIZE &&
            read(fd, key, LCTX_SEAL_KEY_SIZE) == LCTX_SEAL_KEY_SIZE;
  if (!ok)
    snprintf(why, n, "its key %s/%s is not in the key store%s%s", dir_path,
             name, fd < 0 ? ": " : "", fd < 0 ? strerror(errno) : "");
  if (fd >= 0)
    close(fd);
  close(dir);
  return ok;
}

void lctx_seal_drop_key(const char *id) {
  char why[256];
  if (!lctx_seal_is_id(id))
    return;
  int dir = store_open(false, why, sizeof why);
  if (dir < 0)
    return;
  char name[LCTX_SEAL_ID_SIZE + 8];
  snprintf(name, sizeof name, "%s.key", id);
  unlinkat(dir, name, 0);
  close(dir);
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/* The writer's key is kept as the HMAC's state; the end check needs it
 * again, so it is kept beside (not in the header: it is private). */
typedef struct writer {
  lctx_seal_writer w;
  uint8_t key[LCTX_SEAL_KEY_SIZE];
} writer;

lctx_seal_writer *lctx_seal_create(const char *path, const char *seal_path,
                                   const char *id,
                                   const uint8_t key[LCTX_SEAL_KEY_SIZE]) {
  writer *k = calloc(1, sizeof *k);
  if (!k)
    return NULL;
  lctx_seal_writer *w = &k->w;
  memcpy(k->key, key, sizeof k->key);
  snprintf(w->path, sizeof w->path, "%s", path);
  snprintf(w->seal_path, sizeof w->seal_path, "%s", seal_path ? seal_path : "");
  snprintf(w->id, sizeof w->id, "%s", id);
  lctx_hmac256_init(&w->mac, key, LCTX_SEAL_KEY_SIZE);
  /* Read and write: the end check reads it back through this descriptor
   * (no other open, whatever the file limit). */
  w->fd = lctx_sys_open_file(path, O_RDWR | O_CREAT | O_TRUNC, false);
  if (w->fd < 0) {
    int e = errno;
    free(k);
    errno = e;
    return NULL;
  }
  return w;
}

bool lctx_seal_write(lctx_seal_writer *w, const void *data, size_t n) {
  const char *p = data;
  size_t done = 0;
  while (done < n && !w->error) {
    ssize_t got = write(w->fd, p + done, n - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      w->error = got < 0 ? errno : EIO;
      break;
    }
    lctx_hmac256_update(&w->mac, p + done, (size_t)got);
    w->length += (uint64_t)got;
    done += (size_t)got;
  }
  return done == n;
}

bool lctx_seal_rename(lctx_seal_writer *w, const char *path) {
  if (rename(w->path, path) != 0)
    return false;
  snprintf(w->path, sizeof w->path, "%s", path);
  return true;
}

bool lctx_seal_commit(const lctx_seal_writer *w) {
  if (!w->seal_path[0])
    return true;
  uint8_t mac[LCTX_SHA256_SIZE];
  char hex[LCTX_SHA256_HEX], tmp[LCTX_SEAL_PATH_MAX + 8], text[256];
  lctx_hmac256_peek(&w->mac, mac);
  lctx_sha256_hex(mac, sizeof mac, hex);
  int len = snprintf(text, sizeof text,
                     "{\"run_id\": \"%s\", \"length\": %llu, "
                     "\"hmac_sha256\": \"%s\"}\n",
                     w->id, (unsigned long long)w->length, hex);
  snprintf(tmp, sizeof tmp, "%s.tmp", w->seal_path);
  unlink(tmp);
  return lctx_sys_write_file(tmp, text, (size_t)len) &&
         rename(tmp, w->seal_path) == 0;
}

/* The HMAC of the first `length` bytes of `fd` (from its start) under
 * `key`; false when fewer could be read. */
static bool mac_of(int fd, const uint8_t *key, uint64_t length,
                   uint8_t out[LCTX_SHA256_SIZE]) {
  lctx_hmac256 c;
  lctx_hmac256_init(&c, key, LCTX_SEAL_KEY_SIZE);
  char buf[1 << 16];
  uint64_t at = 0;
  while (at < length) {
    size_t want = length - at < sizeof buf ? (size_t)(length - at) : sizeof buf;
    ssize_t got = pread(fd, buf, want, (off_t)at);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false;
    lctx_hmac256_update(&c, buf, (size_t)got);
    at += (uint64_t)got;
  }
  lctx_hmac256_peek(&c, out);
  return true;
}

bool lctx_seal_check(const lctx_seal_writer *w, char *why, size_t n) {
  const writer *k = (const writer *)w;
  const char *name =
      strrchr(w->path, '/') ? strrchr(w->path, '/') + 1 : w->path;
  struct stat mine, there;
  if (fstat(w->fd, &mine) != 0)
    return true; /* nothing to compare: the write failure is said */
  if (lstat(w->path, &there) != 0 || mine.st_dev != there.st_dev ||
      mine.st_ino != there.st_ino) {
    bool gone = errno == ENOENT && lstat(w->path, &there) != 0;
    snprintf(why, n, "%s was altered during the run by another process (%s)",
             name, gone ? "removed" : "replaced by another file");
    return false;
  }
  uint64_t size = (uint64_t)mine.st_size;
  uint8_t want[LCTX_SHA256_SIZE], got[LCTX_SHA256_SIZE];
  lctx_hmac256_peek(&w->mac, want);
  bool same = size >= w->length && mac_of(w->fd, k->key, w->length, got) &&
              memcmp(want, got, sizeof got) == 0;
  if (same && size == w->length)
    return true;
  if (same)
    snprintf(why, n,
             "%s was altered during the run by another process (%llu bytes "
             "not written by lctx)",
             name, (unsigned long long)(size - w->length));
  else if (size < w->length)
    snprintf(why, n,
             "%s was altered during the run by another process (cut short: "
             "%llu of the %llu bytes lctx wrote are left)",
             name, (unsigned long long)size, (unsigned long long)w->length);
  else
    snprintf(why, n,
             "%s was altered during the run by another process (bytes lctx "
             "wrote were changed; %llu bytes not written by lctx after them)",
             name, (unsigned long long)(size - w->length));
  return false;
}

bool lctx_seal_close(lctx_seal_writer *w) {
  if (!w)
    return true;
  writer *k = (writer *)w;
  bool ok = close(w->fd) == 0;
  memset(k->key, 0, sizeof k->key);
  free(k);
  return ok;
}

//===----------------------------------------------------------------------===//
// Reading back
//===----------------------------------------------------------------------===//

/* The seal at `path` of run `id`: its length and HMAC; false with why. */
static bool read_seal(const char *path, const char *id, uint64_t *length,
                      uint8_t mac[LCTX_SHA256_SIZE], char *why, size_t n) {
  int fd = lctx_sys_open_file(path, O_RDONLY, false);
  char text[1024];
  ssize_t got = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
  int e = errno;
  if (fd >= 0)
    close(fd);
  if (got < 0) {
    snprintf(why, n, "its seal %s cannot be read: %s", path,
             lctx_sys_file_error(e));
    return false;
  }
  text[got] = '\0';
  json_t *j = json_loads(text, 0, NULL);
  const char *run = json_string_value(json_object_get(j, "run_id"));
  const char *hex = json_string_value(json_object_get(j, "hmac_sha256"));
  json_t *len = json_object_get(j, "length");
  bool ok = run && hex && strlen(hex) == 2 * LCTX_SHA256_SIZE &&
            json_is_integer(len) && json_integer_value(len) >= 0;
  if (!ok)
    snprintf(why, n, "its seal %s is not one lctx wrote", path);
  else if (strcmp(run, id) != 0) {
    snprintf(why, n, "its seal %s is of another run", path);
    ok = false;
  }
  for (size_t i = 0; ok && i < LCTX_SHA256_SIZE; i++) {
    unsigned byte;
    ok = sscanf(hex + 2 * i, "%2x", &byte) == 1;
    mac[i] = (uint8_t)byte;
  }
  if (ok)
    *length = (uint64_t)json_integer_value(len);
  json_decref(j);
  return ok;
}

/* The lines of the sealed part, kept until they are verified. */
typedef struct lines {
  char **v;
  size_t count, cap;
} lines;

static bool keep_line(lines *l, const char *line, size_t n) {
  if (l->count == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    char **p = realloc(l->v, cap * sizeof *p);
    if (!p)
      return false;
    l->v = p;
    l->cap = cap;
  }
  char *copy = strndup(line, n);
  if (!copy)
    return false;
  l->v[l->count++] = copy;
  return true;
}

/* The longest line a sealed file may hold: lctx writes none near it (a
 * sweep's case line is at most a few hundred KiB); a longer one is not
 * lctx's, and is never held whole. */
#define SEAL_LINE_MAX ((size_t)16 << 20)

/* One pass over the first `length` bytes of `f` (from its start): their
 * HMAC under `key` into `got`; with `l`, their whole lines too (each at
 * most SEAL_LINE_MAX). Returns the bytes read; `*too_long` when a line
 * is longer than SEAL_LINE_MAX (`l` then stops taking lines). */
static uint64_t seal_pass(FILE *f, uint64_t length,
                          const uint8_t key[LCTX_SEAL_KEY_SIZE],
                          uint8_t got[LCTX_SHA256_SIZE], lines *l,
                          bool *too_long, bool *no_memory) {
  lctx_hmac256 mac;
  lctx_hmac256_init(&mac, key, LCTX_SEAL_KEY_SIZE);
  rewind(f);
  uint64_t at = 0;
  size_t line_len = 0;
  char *line = l ? malloc(SEAL_LINE_MAX + 1) : NULL;
  *too_long = *no_memory = l && !line;
  char buf[65536];
  while (at < length) {
    size_t want = length - at < sizeof buf ? (size_t)(length - at) : sizeof buf;
    size_t n = fread(buf, 1, want, f);
    if (n == 0)
      break;
    lctx_hmac256_update(&mac, buf, n);
    at += n;
    for (size_t i = 0; i < n; i++) {
      if (buf[i] == '\n') {
        if (line && !*too_long && !keep_line(l, line, line_len))
          *no_memory = true;
        line_len = 0;
      } else if (line_len == SEAL_LINE_MAX) {
        *too_long = true;
      } else {
        if (line)
          line[line_len] = buf[i];
        line_len++;
      }
    }
  }
  free(line);
  lctx_hmac256_peek(&mac, got);
  return at;
}

/* Counts the lines of `f` from where it is to its end (a line cut short
 * at the end counts), holding none of them. */
static size_t count_rest(FILE *f) {
  char buf[65536];
  size_t n, count = 0;
  bool open_line = false;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
    for (size_t i = 0; i < n; i++) {
      count += buf[i] == '\n';
      open_line = buf[i] != '\n';
    }
  }
  return count + open_line;
}

lctx_seal_status lctx_seal_read(FILE *f, const char *seal_path, const char *id,
                                const uint8_t key[LCTX_SEAL_KEY_SIZE],
                                void (*each)(void *ctx, const char *line),
                                void *ctx, size_t *dropped, char *why,
                                size_t n) {
  uint64_t length;
  uint8_t want[LCTX_SHA256_SIZE], got[LCTX_SHA256_SIZE];
  *dropped = 0;
  if (!read_seal(seal_path, id, &length, want, why, n))
    return LCTX_SEAL_UNVERIFIABLE;
  /* First verified without holding a line (a file that is not lctx's
   * costs no memory), then read again, verified again (it may have
   * changed between), its lines held until they are. */
  bool too_long, no_memory;
  uint64_t at = seal_pass(f, length, key, got, NULL, &too_long, &no_memory);
  lines l = {0};
  if (at == length && memcmp(want, got, sizeof got) == 0)
    at = seal_pass(f, length, key, got, &l, &too_long, &no_memory);
  lctx_seal_status st = LCTX_SEAL_OK;
  if (at < length) {
    snprintf(why, n, "%llu of its %llu sealed bytes are left",
             (unsigned long long)at, (unsigned long long)length);
    st = LCTX_SEAL_ALTERED;
  } else if (memcmp(want, got, sizeof got) != 0 || too_long) {
    snprintf(why, n, "its sealed bytes differ from what lctx wrote");
    st = LCTX_SEAL_ALTERED;
  } else if (no_memory) {
    snprintf(why, n, "out of memory reading its sealed lines");
    st = LCTX_SEAL_ALTERED;
  }
  if (st == LCTX_SEAL_OK)
    *dropped = count_rest(f);
  for (size_t i = 0; i < l.count; i++) {
    if (st == LCTX_SEAL_OK)
      each(ctx, l.v[i]);
    free(l.v[i]);
  }
  free(l.v);
  return st;
}

bool lctx_seal_file_sha256(const char *path, char hex[LCTX_SHA256_HEX]) {
  int fd = lctx_sys_open_file(path, O_RDONLY, true);
  if (fd < 0)
    return false;
  lctx_sha256 c;
  lctx_sha256_init(&c);
  char buf[1 << 16];
  ssize_t got;
  while ((got = read(fd, buf, sizeof buf)) != 0) {
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      close(fd);
      return false;
    }
    lctx_sha256_update(&c, buf, (size_t)got);
  }
  close(fd);
  uint8_t d[LCTX_SHA256_SIZE];
  lctx_sha256_final(&c, d);
  lctx_sha256_hex(d, sizeof d, hex);
  return true;
}
