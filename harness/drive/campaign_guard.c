/*
 * campaign_guard.c - the end of a fuzz campaign's processes (see
 * campaign_guard.h).
 */
#include "campaign_guard.h"

#include "sys.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

void lctx_campaign_end_marked(const char *mark) {
  double until = lctx_sys_now() + 10;
  while (lctx_sys_signal_marked(mark, SIGKILL) > 0 && lctx_sys_now() < until)
    lctx_sys_sleep(0.02);
}

/* The guard's life: a peer that outlives lctx (a session of its own, so
 * that Ctrl-C is lctx's to handle), deaf to SIGINT, SIGTERM and SIGHUP,
 * holding none of lctx's output, it waits for a byte on `fd`. */
static void guard_main(void *user, int fd, int out_fd) {
  const lctx_campaign_guard *g = user;
  (void)out_fd;
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  char byte;
  ssize_t n;
  do
    n = read(fd, &byte, 1);
  while (n < 0 && errno == EINTR);
  if (n != 1) {
    lctx_campaign_end_marked(g->mark);
    lctx_campaign_work_abandon(g->work);
    lctx_sys_remove_tree(g->tmp_dir);
  }
  _exit(0);
}

void lctx_campaign_guard_start(lctx_campaign_guard *g) {
  lctx_peer_init(&g->peer);
  /* Only lctx holds the write end of its pipe: no engine inherits it. */
  lctx_peer_spec spec = {
      .body = guard_main, .user = g, .pipes = true, .survives_lctx = true};
  char text[256];
  lctx_buf error;
  lctx_buf_init(&error, text, sizeof text);
  (void)lctx_peer_start(&g->peer, &spec, &error);
}

void lctx_campaign_guard_stop(lctx_campaign_guard *g) {
  if (g->peer.pid <= 0)
    return;
  if (lctx_peer_queue(&g->peer, "", 1))
    (void)lctx_peer_flush(&g->peer);
  lctx_peer_free(&g->peer); /* after it read the byte and ended */
}
