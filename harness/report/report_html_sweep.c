/*
 * report_html_sweep.c - the view of one `lctx sweep` folder on the HTML
 * page (see report_html_sweep.h).
 */
#include "report_html_sweep.h"

#include "report_html_look.h"

#include <string.h>

static void esc(FILE *f, const char *s) {
  lctx_html_escape(f, s, 0);
}

/* One cell of the programs view: the cases of a group and list length by
 * their worst verdict; a case passes when none is fail, xpass, flaky,
 * crash or timeout (an xfail, a known defect, is also said apart). */
static void write_group_cell(FILE *f, const long long *by) {
  long long judged = 0;
  int worst = LCTX_HTML_V_NONE;
  for (int v = 0; v < LCTX_HTML_V_NONE; v++) {
    judged += by[v];
    if (by[v] && v < worst)
      worst = v;
  }
  if (!judged && !by[LCTX_HTML_V_NONE]) {
    fputs("<td class=\"cell c-none\">&mdash;</td>", f);
    return;
  }
  fprintf(f,
          "<td class=\"cell c-%s\" data-verdict=\"%s\"><span class=\"v\">%s "
          "%lld of %lld passed</span>",
          LCTX_HTML_LOOKS[worst].name, LCTX_HTML_LOOKS[worst].name,
          LCTX_HTML_LOOKS[LCTX_HTML_V_PASS].symbol,
          by[LCTX_HTML_V_XFAIL] + by[LCTX_HTML_V_PASS], judged);
  for (int v = 0; v <= LCTX_HTML_V_XFAIL; v++)
    if (by[v])
      fprintf(f, "<br><span class=\"v\">%s %lld %s%s</span>",
              LCTX_HTML_LOOKS[v].symbol, by[v], LCTX_HTML_LOOKS[v].name,
              v == LCTX_HTML_V_XFAIL ? " (known defect)" : "");
  if (by[LCTX_HTML_V_NONE])
    fprintf(f, "<br><span class=\"v\">%s %lld not judged</span>",
            LCTX_HTML_LOOKS[LCTX_HTML_V_NONE].symbol, by[LCTX_HTML_V_NONE]);
  fputs("</td>", f);
}

/* (a) Per program group, the cases passed of judged by platform-list
 * length. */
static void write_sweep_groups(FILE *f, const lctx_html_sweep *s) {
  fputs("<h4>programs &times; platform-list length</h4><table "
        "class=\"sweep-groups\"><thead><tr><th>program group</th>",
        f);
  for (size_t n = 1; n <= LCTX_HTML_SWEEP_MAX_LEN; n++)
    if (s->length_seen[n])
      fprintf(f, "<th class=\"sweep-len\">%zu platforms</th>", n);
  fputs("<th>all</th></tr></thead><tbody>\n", f);
  long long all[LCTX_HTML_SWEEP_MAX_LEN + 1][LCTX_HTML_VERDICT_COUNT] = {{0}};
  for (size_t g = 0; g <= s->group_count; g++) {
    long long(*by)[LCTX_HTML_VERDICT_COUNT] =
        g < s->group_count ? s->groups[g].by : all;
    long long sum[LCTX_HTML_VERDICT_COUNT] = {0};
    fputs(g < s->group_count ? "<tr class=\"sweep-group\"><th>"
                             : "<tr class=\"sweep-total\"><th>all groups",
          f);
    if (g < s->group_count)
      esc(f, s->groups[g].name);
    fputs("</th>", f);
    for (size_t n = 1; n <= LCTX_HTML_SWEEP_MAX_LEN; n++) {
      for (int v = 0; v < LCTX_HTML_VERDICT_COUNT; v++) {
        sum[v] += by[n][v];
        if (g < s->group_count)
          all[n][v] += by[n][v];
      }
      if (s->length_seen[n])
        write_group_cell(f, by[n]);
    }
    write_group_cell(f, sum);
    fputs("</tr>\n", f);
  }
  fputs("</tbody></table>\n", f);
}

/* The non-pass verdicts of program `p` with platform list `list`, each
 * opening its key, detail and outcome. */
static void write_failing_cell(FILE *f, const lctx_html_sweep_program *p,
                               size_t list) {
  int worst = LCTX_HTML_V_NONE;
  for (size_t i = 0; i < p->entry_count; i++)
    if (p->entries[i].list == list && p->entries[i].verdict < worst)
      worst = p->entries[i].verdict;
  if (worst == LCTX_HTML_V_NONE) {
    fputs("<td></td>", f);
    return;
  }
  fprintf(f, "<td class=\"cell c-%s\" data-verdict=\"%s\">",
          LCTX_HTML_LOOKS[worst].name, LCTX_HTML_LOOKS[worst].name);
  for (size_t i = 0; i < p->entry_count; i++) {
    const lctx_html_sweep_entry *e = &p->entries[i];
    if (e->list != list)
      continue;
    fprintf(f,
            "<details class=\"sweep-verdict\"><summary><span class=\"v\">%s ",
            LCTX_HTML_LOOKS[e->verdict].symbol);
    esc(f, e->row);
    fprintf(f, " %s</span>", LCTX_HTML_LOOKS[e->verdict].name);
    if (e->repeats)
      fprintf(f, " <small>&times;%lld</small>", e->repeats + 1);
    fprintf(f, "</summary><p>case %lld%s</p><h4>key</h4><pre class=\"key\">",
            e->case_no, e->repeats ? " (the first)" : "");
    lctx_html_escape(f, e->key, 1);
    fputs("</pre><h4>detail</h4><pre class=\"detail\">", f);
    lctx_html_escape(f, e->detail, 1);
    fputs("</pre><h4>outcome</h4><pre class=\"outcome\">", f);
    lctx_html_escape(f, e->outcome, 1);
    fputs("</pre></details>", f);
  }
  fputs("</td>", f);
}

/* (b) The programs with a non-pass verdict against the platform lists
 * among them. */
static void write_sweep_failing(FILE *f, const lctx_html_sweep *s) {
  fprintf(f, "<h4>programs with a non-pass verdict (%zu%s)</h4>",
          s->program_count, s->programs_left_out ? " shown" : "");
  if (s->program_count)
    fputs("<p>A cell lists the rows that did not pass for the program "
          "with that platform list (click one for its key, detail and "
          "outcome); a blank cell: none did, or no case of the program had "
          "that list.</p><table class=\"sweep-failing\"><thead><tr>"
          "<th>program</th>",
          f);
  for (size_t l = 0; s->program_count && l < s->list_count; l++) {
    fputs("<th class=\"sweep-list\">", f);
    esc(f, s->lists[l]);
    fputs("</th>", f);
  }
  if (s->program_count)
    fputs("</tr></thead><tbody>\n", f);
  for (size_t p = 0; p < s->program_count; p++) {
    const lctx_html_sweep_program *pr = &s->programs[p];
    fputs("<tr class=\"sweep-program\"><th>", f);
    esc(f, pr->name);
    if (pr->entries_left_out)
      fprintf(f, "<br><small>%lld more verdict(s) not shown</small>",
              pr->entries_left_out);
    fputs("</th>", f);
    for (size_t l = 0; l < s->list_count; l++)
      write_failing_cell(f, pr, l);
    fputs("</tr>\n", f);
  }
  if (s->program_count)
    fputs("</tbody></table>\n", f);
  if (s->programs_left_out)
    fprintf(f,
            "<p class=\"left-out\">%lld more program(s) with a non-pass "
            "verdict left out (the table shows the first %d).</p>\n",
            s->programs_left_out, LCTX_HTML_SWEEP_MAX_PROGRAMS);
  if (s->entries_left_out)
    fprintf(f,
            "<p class=\"left-out\">%lld non-pass verdict(s) of platform "
            "lists past the first %d are not shown.</p>\n",
            s->entries_left_out, LCTX_HTML_SWEEP_MAX_LISTS);
}

/* (c) The lowering primitives the sweep reached, from reach.json. */
static void write_reach(FILE *f, const json_t *reach) {
  if (!reach) {
    fputs("<p class=\"reach\">No reach.json: the reach is not known.</p>\n", f);
    return;
  }
  const json_t *not = json_object_get(reach, "not_reached");
  const json_t *reached = json_object_get(reach, "reached");
  fprintf(f,
          "<p class=\"reach\"><b>%lld of %lld lowering primitives "
          "reached</b></p>",
          json_is_integer(reached) ? (long long)json_integer_value(reached)
                                   : (long long)json_array_size(json_object_get(
                                         reach, "reached_primitives")),
          lctx_html_count(reach, "lowering_primitives"));
  if (!json_is_array(not ))
    return;
  fprintf(f,
          "<details class=\"not-reached\"><summary>%zu not reached</summary>"
          "<ul>",
          json_array_size(not ));
  size_t i;
  json_t *p;
  json_array_foreach(not, i, p) {
    if (i == 5000) {
      fprintf(f, "<li>... and %zu more</li>", json_array_size(not ) - i);
      break;
    }
    fputs("<li>", f);
    esc(f, json_is_string(p) ? json_string_value(p) : "(not a name)");
    fputs("</li>", f);
  }
  fputs("</ul></details>\n", f);
}

void lctx_html_write_sweep(FILE *f, const lctx_html_sweep *s, size_t n) {
  const json_t *sw = json_object_get(s->stamp, "sweep");
  fprintf(f, "<section class=\"sweep\"><h3>sweep %zu: ", n);
  esc(f, s->run->dir);
  fputs("</h3><p>", f);
  esc(f, s->run->file->stamp.impl_name);
  fputs(" ", f);
  esc(f, s->run->file->stamp.impl_version);
  fprintf(f, ", seed %lld, %lld platform list(s) per program, subset ",
          lctx_html_count(sw, "seed"), lctx_html_count(sw, "lists"));
  esc(f, lctx_html_str(sw, "subset"));
  /* The shard is report.json's: a merge's is 1 of 1 (the whole plan),
   * though the results.jsonl of an older merge keeps the stamp of its
   * first shard. */
  const lctx_report_stamp *st = &s->run->file->stamp;
  long long stamped = lctx_html_count(sw, "shard_count");
  fprintf(f, ", %lld program(s), ", lctx_html_count(sw, "programs"));
  if (st->shard_n == 1 && stamped > 1)
    fprintf(f, "its %lld shards merged", stamped);
  else if (st->shard_n == 1)
    fputs("the whole plan", f);
  else
    fprintf(f, "shard %u of %u", st->shard_i, st->shard_n);
  fprintf(f, "; %lld case(s) read from results.jsonl", s->cases);
  if (s->malformed)
    fprintf(f, " (%lld malformed line(s) skipped)", s->malformed);
  fprintf(f, "; at most %d lines of at most %d KiB are read.</p>\n",
          LCTX_HTML_SWEEP_MAX_LINES, LCTX_HTML_SWEEP_MAX_LINE / 1024);
  write_sweep_groups(f, s);
  write_sweep_failing(f, s);
  write_reach(f, s->reach);
  fputs("</section>\n", f);
}
