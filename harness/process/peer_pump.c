/*
 * peer_pump.c - the bytes between lctx and a running peer (see peer.h):
 * its read and write buffers, and the pump that moves them while it
 * watches the peer's memory and life and the deadline.
 */
#include "peer.h"
#include "sys.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How often memory and life are checked while waiting. */
#define WATCH_PERIOD 0.1
/* The most bytes one read() of a peer's output takes. */
#define READ_CHUNK (256u << 10)
/* A pump that finds more time passed than it waited by this much was
 * stopped (SIGSTOP, Ctrl-Z): the deadline moves by what it lost. */
#define STALL_SECONDS 1.0

//===----------------------------------------------------------------------===//
// Moving bytes
//===----------------------------------------------------------------------===//

static bool reserve(uint8_t **buf, size_t *capacity, size_t need) {
  if (need <= *capacity)
    return true;
  size_t cap = *capacity ? *capacity : 65536;
  while (cap < need)
    cap *= 2;
  uint8_t *p = realloc(*buf, cap);
  if (!p)
    return false;
  *buf = p;
  *capacity = cap;
  return true;
}

/* Room for `n` more bytes at the end of the read buffer: what is not yet
 * consumed moves to its start first (lctx_peer_consume only counts). */
static bool room_to_read(lctx_peer *p, size_t n) {
  if (p->in_off > 0) {
    memmove(p->in, lctx_peer_input(p), p->in_length);
    p->in_off = 0;
  }
  return reserve(&p->in, &p->in_capacity, p->in_length + n);
}

bool lctx_peer_queue(lctx_peer *p, const void *data, size_t n) {
  if (!reserve(&p->out, &p->out_capacity, p->out_length + n))
    return false;
  memcpy(p->out + p->out_length, data, n);
  p->out_length += n;
  return true;
}

void lctx_peer_consume(lctx_peer *p, size_t n) {
  p->in_length -= n;
  p->in_off = p->in_length > 0 ? p->in_off + n : 0;
}

void lctx_peer_drain(lctx_peer *p) {
  for (int k = 0; k < 16 && p->from_fd >= 0; k++) {
    if (!room_to_read(p, READ_CHUNK))
      return;
    ssize_t got = read(p->from_fd, p->in + p->in_length, READ_CHUNK);
    if (got <= 0)
      return;
    p->in_length += (size_t)got;
  }
}

bool lctx_peer_flush(lctx_peer *p) {
  while (p->out_sent < p->out_length) {
    ssize_t w =
        write(p->to_fd, p->out + p->out_sent, p->out_length - p->out_sent);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0)
      return errno == EAGAIN;
    p->out_sent += (size_t)w;
  }
  p->out_sent = p->out_length = 0;
  return true;
}

/* What ends a pump when the peer ended: what it wrote before may still be
 * what was wanted. */
static lctx_peer_end at_end(lctx_peer *p, lctx_peer_want want, void *user) {
  lctx_peer_drain(p);
  int w = want(user);
  return w > 0 ? LCTX_PEER_DONE : w < 0 ? LCTX_PEER_BAD : LCTX_PEER_EOF;
}

/* The peer's memory and life while waiting: LCTX_PEER_MEMORY over its
 * limit, LCTX_PEER_EOF when it ended (a child it left may hold its pipe
 * open), else LCTX_PEER_DONE. */
static lctx_peer_end watch(const lctx_peer *p) {
  if (p->memory_limit_mb > 0 && p->pid > 0 &&
      lctx_peer_resident(p) > (double)p->memory_limit_mb * 1048576.0)
    return LCTX_PEER_MEMORY;
  return lctx_peer_ended(p) ? LCTX_PEER_EOF : LCTX_PEER_DONE;
}

/* One poll() of both pipes for at most `left` seconds, and the bytes it
 * lets through: LCTX_PEER_DONE to go on, else how the pump ends. */
static lctx_peer_end move_bytes(lctx_peer *p, double left, lctx_peer_want want,
                                void *user) {
  struct pollfd fds[2];
  fds[0] = (struct pollfd){p->from_fd, POLLIN, 0};
  bool writing = p->out_sent < p->out_length;
  if (writing)
    fds[1] = (struct pollfd){p->to_fd, POLLOUT, 0};
  int r = poll(fds, writing ? 2 : 1, (int)(left * 1000) + 1);
  if (r < 0)
    return errno == EINTR ? LCTX_PEER_DONE : LCTX_PEER_EOF;
  if (writing && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
    ssize_t wr =
        write(p->to_fd, p->out + p->out_sent, p->out_length - p->out_sent);
    if (wr < 0 && errno != EAGAIN && errno != EINTR)
      return at_end(p, want, user); /* it closed its input */
    if (wr > 0)
      p->out_sent += (size_t)wr;
    if (p->out_sent == p->out_length)
      p->out_sent = p->out_length = 0;
  }
  if (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) {
    if (!room_to_read(p, READ_CHUNK))
      return LCTX_PEER_EOF;
    ssize_t got = read(p->from_fd, p->in + p->in_length, READ_CHUNK);
    if (got == 0)
      return at_end(p, want, user);
    if (got < 0 && errno != EAGAIN && errno != EINTR)
      return LCTX_PEER_EOF;
    if (got > 0)
      p->in_length += (size_t)got;
  }
  return LCTX_PEER_DONE;
}

/* How a pump ends at its deadline: what the peer wrote meanwhile (lctx may
 * have been stopped, SIGSTOP or Ctrl-Z, while it came) may be what was
 * wanted. */
static lctx_peer_end at_deadline(lctx_peer *p, lctx_peer_want want,
                                 void *user) {
  lctx_peer_drain(p);
  int w = want(user);
  return w > 0 ? LCTX_PEER_DONE : w < 0 ? LCTX_PEER_BAD : LCTX_PEER_TIMEOUT;
}

lctx_peer_end lctx_peer_pump(lctx_peer *p, double deadline, lctx_peer_want want,
                             void *user) {
  double last = lctx_sys_now(), waited = 0;
  for (;;) {
    int w = want(user);
    if (w != 0)
      return w > 0 ? LCTX_PEER_DONE : LCTX_PEER_BAD;
    double now = lctx_sys_now();
    /* Time lctx itself did not run (it was stopped) is not the peer's. */
    if (now - last > waited + STALL_SECONDS)
      deadline += now - last - waited;
    last = now;
    if (now >= p->next_watch) {
      p->next_watch = now + WATCH_PERIOD;
      lctx_peer_end s = watch(p);
      if (s == LCTX_PEER_EOF)
        return at_end(p, want, user);
      if (s != LCTX_PEER_DONE)
        return s;
    }
    double left = deadline - now;
    if (p->stop_on_interrupt && lctx_sys_interrupted())
      return LCTX_PEER_TIMEOUT;
    if (left <= 0)
      return at_deadline(p, want, user);
    if (left > p->next_watch - now)
      left = p->next_watch - now;
    waited = left;
    lctx_peer_end s = move_bytes(p, left, want, user);
    if (s != LCTX_PEER_DONE)
      return s;
  }
}