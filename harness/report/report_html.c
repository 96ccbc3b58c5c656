/*
 * report_html.c - the HTML scoreboard page (see report_html.h).
 *
 * The page is written top to bottom into a temporary file renamed over
 * OUT at the end: the problems (when partial), the legend, the runs, the
 * scoreboard, the pass rates (these three when a conform table is loaded),
 * the sweeps, the campaigns and the JAX version matrices.
 */
#include "report_html.h"

#include "escape.h"
#include "report_html_data.h"
#include "report_html_look.h"
#include "report_html_sweep.h"
#include "report_html_verdict.h"
#include "report_text.h"
#include "sys.h"

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WHO "lctx report html"

/* The row groups, by id prefix, in the page's order. */
static const char *const GROUPS[] = {"RG", "CP", "XG", "MG", "RL", "LP", "IR"};
#define GROUP_COUNT (sizeof GROUPS / sizeof GROUPS[0])

static void esc(FILE *f, const char *s) {
  lctx_html_escape(f, s, 0);
}

//===----------------------------------------------------------------------===//
// The runs and the scoreboard
//===----------------------------------------------------------------------===//

static void write_legend(FILE *f) {
  fputs("<section id=\"legend\"><h2>Legend</h2><p>", f);
  for (size_t i = 0; i < LCTX_HTML_VERDICT_COUNT; i++)
    fprintf(f,
            "<span class=\"v c-%s\" style=\"border-left:6px solid;"
            "padding:0 4px\">%s %s</span> ",
            LCTX_HTML_LOOKS[i].name, LCTX_HTML_LOOKS[i].symbol,
            LCTX_HTML_LOOKS[i].words);
  fputs("<span class=\"v c-none\">&mdash; no case reached the row</span>"
        "</p><p>A cell's colour is its worst verdict; each verdict is also "
        "named with its symbol. A failing cell opens its first failing case "
        "(click it).</p></section>\n",
        f);
}

/* One run's verdict: its result as lctx said it, and its counts. */
static void write_verdict(FILE *f, const lctx_html_run *r, const char *kind,
                          size_t n) {
  lctx_html_verdict v;
  lctx_html_verdict_of(r->file, &v);
  bool pass = !strcmp(v.result, "PASS"), failed = !strcmp(v.result, "FAIL");
  fprintf(f, "<tr class=\"run-verdict\" data-result=\"%s\"><th>%s %zu. ",
          v.result, kind, n);
  esc(f, r->file->stamp.impl_name);
  fputs(" ", f);
  esc(f, r->file->stamp.impl_version);
  fprintf(f, "</th><td class=\"result cell c-%s\">%s %s%s%s</td><td>",
          pass     ? "pass"
          : failed ? "fail"
                   : "unsupported",
          pass     ? LCTX_HTML_LOOKS[6].symbol
          : failed ? LCTX_HTML_LOOKS[2].symbol
                   : "\xe2\x9a\xa0",
          v.result, v.why[0] ? ": " : "", v.why);
  fprintf(f, "<span class=\"cases\">%lld cases (", v.cases);
  if (v.sources[0] + v.sources[1] + v.sources[2])
    fprintf(f, "%lld conformance, %lld domain, %lld random; ", v.sources[0],
            v.sources[1], v.sources[2]);
  fprintf(f,
          "of them %lld judged, %lld skipped by shard or --ops, %lld "
          "unsupported",
          v.judged, v.skipped, v.unsupported);
  if (v.not_judged)
    fprintf(f, ", %lld not judged at this release", v.not_judged);
  if (v.not_reached)
    fprintf(f, ", %lld not reached as the run stopped", v.not_reached);
  fprintf(f, ")%s</span><br><span class=\"ops\">%lld operations:",
          v.adds_up ? "" : " (the report's counts do not add up)", v.ops_total);
  for (size_t i = 0; i < LCTX_HTML_VERDICT_COUNT; i++)
    if (v.ops[i])
      fprintf(f, " <span class=\"v\">%s %lld %s</span>",
              LCTX_HTML_LOOKS[i].symbol, v.ops[i], LCTX_HTML_LOOKS[i].name);
  fputs("</span></td><td>", f);
  esc(f, r->dir);
  fputs("</td></tr>\n", f);
}

/* At the top: the verdict of every conform run and sweep. */
static void write_verdicts(FILE *f, const lctx_html_data *d) {
  if (d->run_count + d->sweep_count == 0)
    return;
  fputs("<section id=\"verdicts\"><h2>Verdicts</h2><table><thead><tr>"
        "<th>run</th><th>result</th><th>counts</th><th>folder</th></tr>"
        "</thead><tbody>\n",
        f);
  for (size_t i = 0; d->spec && i < d->run_count; i++)
    write_verdict(f, d->runs[i], "run", i + 1);
  for (size_t i = 0; i < d->sweep_count; i++)
    write_verdict(f, d->sweeps[i]->run, "sweep", i + 1);
  fputs("</tbody></table></section>\n", f);
}

static void write_runs(FILE *f, const lctx_html_data *d) {
  fputs("<h2>Runs</h2><table id=\"runs\"><thead><tr><th>#</th>"
        "<th>implementation</th><th>version</th><th>kind</th><th>spec "
        "version</th><th>seed</th><th>shard</th><th>date</th><th>cases "
        "run</th><th>seconds</th><th>folder</th></tr></thead><tbody>\n",
        f);
  for (size_t i = 0; i < d->run_count; i++) {
    const lctx_report_file *rf = d->runs[i]->file;
    const lctx_report_stamp *st = &rf->stamp;
    fprintf(f, "<tr class=\"run-info\"><td>%zu</td><td>", i + 1);
    esc(f, st->impl_name);
    fputs("</td><td>", f);
    esc(f, st->impl_version);
    fputs("</td><td>", f);
    esc(f, st->impl_kind);
    fputs("</td><td>", f);
    esc(f, st->spec_version);
    fprintf(f,
            "</td><td>%lld</td><td>%u/%u</td><td>%s</td>"
            "<td>%zu%s</td><td>%.1f</td><td>",
            (long long)st->seed, st->shard_i, st->shard_n, d->runs[i]->date,
            rf->report.cases_run,
            rf->report.interrupted ? " (interrupted)" : "", rf->report.seconds);
    esc(f, d->runs[i]->dir);
    fputs("</td></tr>\n", f);
  }
  fputs("</tbody></table>\n", f);
}

/* The first failing case of a cell: the report's first failure text and
 * the results.jsonl line's verdict, expected, actual and case. */
static void write_case(FILE *f, const lctx_html_run *r, size_t k) {
  const json_t *row = r->row[k], *res = r->result[k];
  fputs("<div class=\"first-case\"><h4>first failing case</h4><p>", f);
  esc(f, lctx_html_str(row, "first_case"));
  fputs("</p><pre class=\"first\">", f);
  lctx_html_escape(f, lctx_html_str(row, "first"), 1);
  fputs("</pre>", f);
  if (json_object_get(row, "rerun")) {
    fputs("<h4>rerun <small>(a click selects the whole line: copy it, "
          "run it from the folder the run was started in)</small></h4>"
          "<pre class=\"rerun\">",
          f);
    lctx_html_escape(f, lctx_html_str(row, "rerun"), 1);
    fputs("</pre>", f);
  } else {
    fputs("<h4>rerun</h4><p class=\"no-rerun\">report.json has no rerun "
          "line for this row (a report of an older lctx, or a line too long "
          "to hold)</p>",
          f);
  }
  if (res) {
    fputs("<p>verdict <b>", f);
    esc(f, lctx_html_str(res, "verdict"));
    fputs("</b>, ", f);
    esc(f, lctx_html_str(res, "source"));
    fprintf(f, " case %lld, operation %lld</p>", lctx_html_count(res, "index"),
            lctx_html_count(res, "operation"));
    static const char *const PARTS[] = {"expected", "actual", "detail"};
    for (size_t i = 0; i < 3; i++) {
      if (!json_object_get(res, PARTS[i]))
        continue;
      fprintf(f, "<h4>%s</h4><pre class=\"%s\">", PARTS[i], PARTS[i]);
      lctx_html_escape(f, lctx_html_str(res, PARTS[i]), 1);
      fputs("</pre>", f);
    }
  }
  if (r->case_text[k]) {
    fputs("<h4>the case (.case text)</h4><pre class=\"case-text\">", f);
    lctx_html_escape(f, r->case_text[k], 1);
    fputs("</pre>", f);
  }
  fputs("</div>", f);
}

/* One cell: its verdict counts, and its first failing case when it has
 * one. */
static void write_cell(FILE *f, const lctx_html_run *r, size_t k) {
  const json_t *row = r->row[k];
  const char *worst = "none";
  for (size_t i = 0;
       row && i < LCTX_HTML_VERDICT_COUNT && !strcmp(worst, "none"); i++)
    if (lctx_html_count(row, LCTX_HTML_LOOKS[i].name) > 0)
      worst = LCTX_HTML_LOOKS[i].name;
  bool failed = r->counts[k] && lctx_report_row_failed(r->counts[k]);
  bool opens = row && (failed || lctx_html_count(row, "xfail") > 0) &&
               (json_object_get(row, "first") || r->result[k]);
  fprintf(f, "<td class=\"cell c-%s%s\" data-verdict=\"%s\">", worst,
          failed ? " failing" : "", worst);
  if (opens)
    fputs("<details><summary>", f);
  if (!strcmp(worst, "none"))
    fputs("&mdash;", f);
  long long all = 0; /* the row's operations in this run */
  for (size_t i = 0; row && i < LCTX_HTML_VERDICT_COUNT; i++)
    all += lctx_html_count(row, LCTX_HTML_LOOKS[i].name) > 0
               ? lctx_html_count(row, LCTX_HTML_LOOKS[i].name)
               : 0;
  for (size_t i = 0; row && i < LCTX_HTML_VERDICT_COUNT; i++)
    if (lctx_html_count(row, LCTX_HTML_LOOKS[i].name) > 0)
      fprintf(f, "<span class=\"v\">%s %s %lld of %lld</span> ",
              LCTX_HTML_LOOKS[i].symbol, LCTX_HTML_LOOKS[i].name,
              lctx_html_count(row, LCTX_HTML_LOOKS[i].name), all);
  if (row && json_object_get(row, "xfail_reason")) {
    fputs("<br><small>expected to fail: ", f);
    esc(f, lctx_html_str(row, "xfail_reason"));
    fputs("</small>", f);
  }
  if (opens) {
    fputs("</summary>", f);
    write_case(f, r, k);
    fputs("</details>", f);
  }
  fputs("</td>", f);
}

/* The group of row id `id`: its index in GROUPS, or GROUP_COUNT. */
static size_t group_of(const char *id) {
  for (size_t g = 0; g < GROUP_COUNT; g++)
    if (strncmp(id, GROUPS[g], 2) == 0 && (id[2] == '-' || id[2] == '\0'))
      return g;
  return GROUP_COUNT;
}

/* The heads of the columns of `runs`, of class `cls`. */
static void write_run_heads(FILE *f, lctx_html_run *const *runs, size_t n,
                            const char *cls) {
  for (size_t i = 0; i < n; i++) {
    const lctx_report_stamp *st = &runs[i]->file->stamp;
    fprintf(f, "<th class=\"%s\" title=\"", cls);
    esc(f, runs[i]->dir);
    fprintf(f, "\">%zu. ", i + 1);
    esc(f, st->impl_name);
    fputs("<br><small>", f);
    esc(f, st->impl_version);
    fprintf(f, " &middot; spec ");
    esc(f, st->spec_version);
    fprintf(f, " &middot; seed %lld<br>%s<br>", (long long)st->seed,
            runs[i]->date);
    const char *slash = strrchr(runs[i]->dir, '/');
    esc(f, slash && slash[1] ? slash + 1 : runs[i]->dir);
    fputs("</small></th>", f);
  }
}

/* A scoreboard: the rows of `s` against `runs`; `id` names the table,
 * `row_cls` its rows and `head_cls` its run columns. */
static void write_scoreboard(FILE *f, const lctx_spec *s,
                             lctx_html_run *const *runs, size_t n,
                             const char *id, const char *row_cls,
                             const char *head_cls) {
  fprintf(f,
          "<table id=\"%s\"><thead><tr><th>row</th><th>note</th><th>JAX "
          "source</th>",
          id);
  write_run_heads(f, runs, n, head_cls);
  fputs("</tr></thead>\n", f);
  for (size_t g = 0; g <= GROUP_COUNT; g++) {
    bool any = false;
    for (size_t k = 0; k < s->row_count; k++) {
      if (group_of(s->rows[k].id) != g)
        continue;
      if (!any)
        fprintf(f,
                "<tbody><tr class=\"group\"><th colspan=\"%zu\">%s</th>"
                "</tr>\n",
                n + 3, g < GROUP_COUNT ? GROUPS[g] : "other rows");
      any = true;
      fprintf(f, "<tr class=\"%s\" data-row=\"", row_cls);
      esc(f, s->rows[k].id);
      fputs("\"><th>", f);
      esc(f, s->rows[k].id);
      fputs("</th><td class=\"note\">", f);
      esc(f, s->rows[k].note);
      fputs("</td><td class=\"src\">", f);
      esc(f, s->rows[k].source);
      fputs("</td>", f);
      for (size_t i = 0; i < n; i++)
        write_cell(f, runs[i], k);
      fputs("</tr>\n", f);
    }
    if (any)
      fputs("</tbody>\n", f);
  }
  fputs("</table>\n", f);
}

/* Per run and row group: passed of judged (every verdict but
 * unsupported). */
static void write_pass_rates(FILE *f, const lctx_html_data *d) {
  fputs("<h2>Pass rate by row group</h2><table id=\"pass-rates\"><thead>"
        "<tr><th>implementation</th>",
        f);
  for (size_t g = 0; g < GROUP_COUNT; g++)
    fprintf(f, "<th>%s</th>", GROUPS[g]);
  fputs("<th>all</th></tr></thead><tbody>\n", f);
  for (size_t i = 0; i < d->run_count; i++) {
    const lctx_html_run *r = d->runs[i];
    fprintf(f, "<tr><th>%zu. ", i + 1);
    esc(f, r->file->stamp.impl_name);
    fputs("</th>", f);
    long long all_pass = 0, all_judged = 0;
    for (size_t g = 0; g <= GROUP_COUNT; g++) {
      long long pass = 0, judged = 0;
      for (size_t k = 0; k < d->spec->row_count; k++) {
        if (!r->row[k] ||
            (group_of(d->spec->rows[k].id) != g && g != GROUP_COUNT))
          continue;
        for (size_t v = 0; v < LCTX_HTML_VERDICT_COUNT; v++)
          if (strcmp(LCTX_HTML_LOOKS[v].name, "unsupported") != 0)
            judged += lctx_html_count(r->row[k], LCTX_HTML_LOOKS[v].name);
        pass += lctx_html_count(r->row[k], "pass");
      }
      if (g == GROUP_COUNT) {
        all_pass = pass;
        all_judged = judged;
        break;
      }
      double rate = judged ? 100.0 * (double)pass / (double)judged : 0;
      if (judged)
        fprintf(f,
                "<td class=\"rate\"><span class=\"barbox%s\"><span "
                "class=\"bar\" style=\"width:%.1f%%\"></span></span>%.1f%% "
                "<small>(%lld/%lld)</small></td>",
                pass == judged ? " all-pass" : "", rate, rate, pass, judged);
      else
        fputs("<td class=\"c-none\">&mdash;</td>", f);
    }
    fprintf(f, "<td>%.1f%% <small>(%lld/%lld)</small></td></tr>\n",
            all_judged ? 100.0 * (double)all_pass / (double)all_judged : 0.0,
            all_pass, all_judged);
  }
  fputs("</tbody></table>\n", f);
}

//===----------------------------------------------------------------------===//
// Campaigns and matrices
//===----------------------------------------------------------------------===//

/* One plot of a campaign's points: `field` (an offset into the point)
 * against time, its axis up to `top` at least (the most the field can
 * reach, 0 when unknown). */
static void write_plot(FILE *f, const lctx_html_campaign *c, size_t field,
                       const char *title, double top) {
  const double W = 320, H = 160, L = 50, B = 20, T = 20;
  double tmax = 0, ymax = top;
  for (size_t i = 0; i < c->point_count; i++) {
    const double *p = (const double *)((const char *)&c->points[i] + field);
    tmax = c->points[i].t > tmax ? c->points[i].t : tmax;
    ymax = *p > ymax ? *p : ymax;
  }
  double tx = tmax > 0 ? tmax : 1, ty = ymax > 0 ? ymax : 1;
  fprintf(f,
          "<svg class=\"plot\" role=\"img\" width=\"%.0f\" height=\"%.0f\""
          " viewBox=\"0 0 %.0f %.0f\"><title>%s over time</title>"
          "<text x=\"%.0f\" y=\"14\">%s</text>"
          "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
          "stroke=\"#333\"/><line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" "
          "y2=\"%.0f\" stroke=\"#333\"/>"
          "<text x=\"2\" y=\"%.0f\">%.6g</text><text x=\"2\" y=\"%.0f\">0"
          "</text><text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%.0f s"
          "</text><polyline fill=\"none\" stroke=\"#0072B2\" "
          "stroke-width=\"2\" points=\"",
          W, H, W, H, title, L, title, L, T, L, H - B, L, H - B, W - 5, H - B,
          T + 4, ymax, H - B, W - 5, H - 4, tmax);
  for (size_t i = 0; i < c->point_count; i++) {
    const double *p = (const double *)((const char *)&c->points[i] + field);
    fprintf(f, "%.1f,%.1f ", L + (W - 5 - L) * c->points[i].t / tx,
            (H - B) - (H - B - T) * (*p > 0 ? *p : 0) / ty);
  }
  fputs("\"/></svg>", f);
}

/* The rows of a campaign's state.json as a list: "RG-001, RG-002" (ids,
 * or objects with an "id" and a "why"), or "none". */
static void write_row_list(FILE *f, const json_t *rows) {
  size_t i;
  json_t *r;
  if (json_array_size(rows) == 0)
    fputs("none", f);
  json_array_foreach(rows, i, r) {
    fputs(i ? ", " : "", f);
    esc(f, json_is_string(r) ? json_string_value(r) : lctx_html_str(r, "id"));
    if (json_is_object(r) && *lctx_html_str(r, "why")) {
      fputs(" (", f);
      esc(f, lctx_html_str(r, "why"));
      fputs(")", f);
    }
  }
}

/* The spec rows a campaign hit, of those its target can reach (its
 * state.json's count; 0 when it tracks none), and the rows it missed. */
static long long write_rows_hit(FILE *f, const lctx_html_campaign *c) {
  long long reachable = lctx_html_count(c->state, "rows_reachable");
  if (!c->state || reachable <= 0)
    return 0;
  fprintf(f,
          "<p class=\"rows-hit\">spec rows hit: %lld of %lld the target can "
          "reach (the table has %lld); missed: <span class=\"rows-missed\">",
          lctx_html_count(c->state, "rows_hit"), reachable,
          lctx_html_count(c->state, "rows_in_table"));
  write_row_list(f, json_object_get(c->state, "rows_missed"));
  fputs("</span>; out of the target's reach: <span "
        "class=\"rows-out-of-reach\">",
        f);
  write_row_list(f, json_object_get(c->state, "rows_not_reachable"));
  fputs("</span></p>", f);
  return reachable;
}

static void write_campaign(FILE *f, const lctx_html_campaign *c, size_t n) {
  fprintf(f, "<section class=\"campaign\"><h3>campaign %zu: ", n);
  esc(f, c->dir);
  fputs("</h3>", f);
  if (c->state) {
    fputs("<p>target <b>", f);
    esc(f, lctx_html_str(c->state, "target"));
    fputs("</b> under ", f);
    esc(f, lctx_html_str(c->state, "engine"));
    fputs(", ", f);
    esc(f, lctx_html_str(c->state, "status"));
    fprintf(f, " after %.0f s, %lld input(s) run, %lld finding(s)</p>",
            json_number_value(json_object_get(c->state, "seconds")),
            lctx_html_count(c->state, "inputs_run"),
            lctx_html_count(c->state, "findings"));
  }
  long long reachable = write_rows_hit(f, c);
  char rows_title[96] = "spec rows hit";
  if (reachable > 0 && c->point_count)
    snprintf(rows_title, sizeof rows_title, "spec rows hit: %lld of %lld",
             lctx_html_count(c->state, "rows_hit"), reachable);
  fputs("<div class=\"plots\">", f);
  if (c->point_count) {
    write_plot(f, c, offsetof(lctx_html_point, execs_per_sec), "exec/s", 0);
    write_plot(f, c, offsetof(lctx_html_point, corpus), "corpus size", 0);
    write_plot(f, c, offsetof(lctx_html_point, rows_hit), rows_title,
               (double)reachable);
    write_plot(f, c, offsetof(lctx_html_point, findings), "findings", 0);
  } else {
    fputs("<p>No progress recorded: no plots.</p>", f);
  }
  fprintf(f, "</div><h4>findings (%zu)</h4>", c->finding_count);
  if (c->finding_count)
    fputs("<table class=\"findings\"><thead><tr><th>folder</th><th>key</th>"
          "<th>reproduce</th></tr></thead><tbody>",
          f);
  for (size_t i = 0; i < c->finding_count; i++) {
    fputs("<tr><td>", f);
    esc(f, c->findings[i].name);
    fputs("</td><td><pre>", f);
    lctx_html_escape(f, c->findings[i].key, 1);
    fputs("</pre></td><td><details><summary>commands</summary><pre>", f);
    lctx_html_escape(f, c->findings[i].reproduce, 1);
    fputs("</pre></details></td></tr>", f);
  }
  if (c->finding_count)
    fputs("</tbody></table>", f);
  fputs("</section>\n", f);
}

/* A JAX version matrix: its rows against its versions. */
static void write_matrix(FILE *f, const lctx_html_matrix *m) {
  json_t *versions = json_object_get(m->matrix, "versions");
  json_t *rows = json_object_get(m->matrix, "rows");
  fputs("<table class=\"matrix\"><caption>", f);
  esc(f, m->dir);
  fputs("</caption><thead><tr><th>row</th>", f);
  size_t i, k;
  json_t *v, *row;
  json_array_foreach(versions, i, v) {
    fputs("<th class=\"version\">JAX ", f);
    esc(f, lctx_html_str(v, "version"));
    fputs("<br><small>", f);
    esc(f, lctx_html_str(v, "status"));
    fputs("</small></th>", f);
  }
  fputs("</tr></thead><tbody>\n", f);
  json_array_foreach(rows, k, row) {
    fputs("<tr class=\"matrix-row\"><th>", f);
    esc(f, lctx_html_str(row, "id"));
    fputs("</th>", f);
    json_array_foreach(versions, i, v) {
      json_t *cell = json_object_get(json_object_get(row, "cells"),
                                     lctx_html_str(v, "version"));
      const char *st = cell ? lctx_html_str(cell, "status") : "";
      const char *look = "none";
      for (size_t l = 0; l < LCTX_HTML_VERDICT_COUNT; l++)
        if (strcmp(st, LCTX_HTML_LOOKS[l].name) == 0)
          look = LCTX_HTML_LOOKS[l].name;
      fprintf(f, "<td class=\"cell c-%s\">", look);
      esc(f, *st ? st : "\xe2\x80\x94");
      if (json_object_get(cell, "first")) {
        fputs("<details><summary>first</summary><pre>", f);
        lctx_html_escape(f, lctx_html_str(cell, "first"), 1);
        fputs("</pre></details>", f);
      }
      fputs("</td>", f);
    }
    fputs("</tr>\n", f);
  }
  fputs("</tbody></table>\n", f);
}

/* The sweeps: their rows against the sweep table, then each one's view. */
static void write_sweeps(FILE *f, const lctx_html_data *d) {
  lctx_html_run *runs[LCTX_HTML_MAX_INPUTS];
  for (size_t i = 0; i < d->sweep_count; i++)
    runs[i] = d->sweeps[i]->run;
  fputs("<h2>Sweeps</h2><p>The sweep table ", f);
  esc(f, d->sweep_spec_path);
  fputs(", version ", f);
  esc(f, d->sweep_spec->version);
  fprintf(f, ", %zu rows, against the sweep folders:</p>\n",
          d->sweep_spec->row_count);
  write_scoreboard(f, d->sweep_spec, runs, d->sweep_count, "sweep-scoreboard",
                   "sweep-row", "sweep-run");
  for (size_t i = 0; i < d->sweep_count; i++)
    lctx_html_write_sweep(f, d->sweeps[i], i + 1);
}

//===----------------------------------------------------------------------===//
// The page
//===----------------------------------------------------------------------===//

/* The page's head, its title and what it was made of. */
static void write_head(FILE *f, const lctx_html_data *d) {
  char now[40];
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(now, sizeof now, "%Y-%m-%d %H:%M UTC", &tm);
  fprintf(f,
          "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8"
          "\"><meta name=\"viewport\" content=\"width=device-width\">"
          "<title>lctx scoreboard%s</title><style>%s</style></head><body>\n"
          "<h1>lctx scoreboard%s</h1><p class=\"meta\">",
          d->problem_count ? " (partial)" : "", LCTX_HTML_CSS,
          d->problem_count ? " <small>(partial)</small>" : "");
  const lctx_spec *tables[] = {d->spec, d->sweep_spec};
  const char *paths[] = {d->spec_path, d->sweep_spec_path};
  for (size_t i = 0; i < 2; i++) {
    if (!tables[i])
      continue;
    fputs(i ? "sweep table " : "spec table ", f);
    esc(f, paths[i]);
    fputs(", version ", f);
    esc(f, tables[i]->version);
    fputs(" (JAX commit ", f);
    esc(f, tables[i]->jax_commit);
    fprintf(f, "), %zu rows; ", tables[i]->row_count);
  }
  fprintf(f,
          "%zu run(s), %zu sweep(s), %zu campaign(s), %zu JAX matrix "
          "folder(s); written %s</p>\n",
          d->run_count, d->sweep_count, d->campaign_count, d->matrix_count,
          now);
  if (d->problem_count) {
    fputs("<section id=\"partial\" class=\"partial\"><h2>Partial page</h2>"
          "<p>Some inputs could not be read whole; the page shows what is "
          "sound.</p><ul>",
          f);
    for (size_t i = 0; i < d->problem_count && i < LCTX_HTML_MAX_PROBLEMS;
         i++) {
      fputs("<li>", f);
      esc(f, d->problems[i]);
      fputs("</li>", f);
    }
    fputs("</ul></section>\n", f);
  }
}

static void write_page(FILE *f, const lctx_html_data *d) {
  write_head(f, d);
  write_verdicts(f, d);
  write_legend(f);
  if (d->spec) {
    write_runs(f, d);
    fputs("<h2>Scoreboard</h2>", f);
    write_scoreboard(f, d->spec, d->runs, d->run_count, "scoreboard",
                     "spec-row", "run");
    write_pass_rates(f, d);
  }
  if (d->sweep_count)
    write_sweeps(f, d);
  if (d->campaign_count)
    fputs("<h2>Fuzz campaigns</h2>\n", f);
  for (size_t i = 0; i < d->campaign_count; i++)
    write_campaign(f, d->campaigns[i], i + 1);
  if (d->matrix_count)
    fputs("<h2>JAX version matrix</h2>\n", f);
  for (size_t i = 0; i < d->matrix_count; i++)
    write_matrix(f, d->matrices[i]);
  fputs("</body></html>\n", f);
}

/* Writes the page into OUT.tmp, renamed over OUT once whole. */
static bool write_file(const lctx_html_data *d, const char *out_path,
                       lctx_buf *error) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp", out_path);
  FILE *f = lctx_sys_fopen_in(tmp, "w");
  int errnum = f ? 0 : errno;
  if (f) {
    write_page(f, d);
    bool bad = ferror(f);
    errnum = bad ? EIO : 0;
    if (fclose(f) != 0 && !errnum)
      errnum = errno;
    if (!errnum && rename(tmp, out_path) != 0)
      errnum = errno;
  }
  if (!errnum)
    return true;
  remove(tmp);
  return lctx_report_say(error, "%s: cannot write: %s", out_path,
                         lctx_sys_file_error(errnum));
}

bool lctx_report_html(const lctx_report_html_options *o, FILE *out,
                      lctx_buf *error) {
  lctx_html_data *d = calloc(1, sizeof *d);
  if (!d)
    return lctx_report_say(error, "out of memory");
  bool ok = lctx_html_load(d, o->dirs, o->dir_count, o->spec_path, o->warnings,
                           error);
  if (ok &&
      d->run_count + d->sweep_count + d->campaign_count + d->matrix_count == 0)
    ok = lctx_report_say(error,
                         "nothing usable among the %zu folder(s) given; no "
                         "page written",
                         o->dir_count);
  if (ok)
    ok = write_file(d, o->out_path, error);
  if (ok) {
    lctx_escaped esc_path;
    fprintf(out, "%s: %s%s\n", WHO, lctx_esc(&esc_path, o->out_path),
            d->problem_count ? " (partial: see the warnings)" : "");
  }
  lctx_html_free(d);
  free(d);
  return ok;
}
