/*
 * campaign_guard.c - the end of a fuzz campaign's processes (see
 * campaign_guard.h).
 */
#include "campaign_guard.h"

#include "peer.h"
#include "sys.h"

void lctx_campaign_end_marked(const char *mark) {
  double until = lctx_sys_now() + 10;
  while (lctx_peer_kill_marked(mark) > 0 && lctx_sys_now() < until)
    lctx_sys_sleep(0.02);
}

/* In the guard, after the kills of a lctx that died: what the campaign
 * leaves on disk. */
static void on_death(void *user) {
  const lctx_campaign_guard *g = user;
  lctx_campaign_work_abandon(g->work);
  lctx_sys_remove_tree(g->tmp_dir);
}

void lctx_campaign_guard_start(lctx_campaign_guard *g) {
  lctx_guard_spec spec = {.mark = g->mark, .on_death = on_death, .user = g};
  (void)lctx_guard_start(&g->guard, &spec);
}

void lctx_campaign_guard_stop(lctx_campaign_guard *g) {
  lctx_guard_end(&g->guard);
}
