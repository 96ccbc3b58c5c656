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
#include "exit.h"
#include "report_html_data.h"
#include "report_html_verdict.h"
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

/* The verdicts as report.json names them, their symbol and their words. */
typedef struct verdict_look {
  const char *name, *symbol, *words;
} verdict_look;

/* In the order of severity a cell takes its look from (that of
 * LCTX_HTML_VERDICTS: the sweep view indexes it). */
static const verdict_look LOOKS[] = {
    {"crash", "\xe2\x98\xa0", "crash: the implementation died"},
    {"timeout", "\xe2\x97\xb7", "timeout: no answer in time"},
    {"fail", "\xe2\x9c\x97", "fail: the outcome differs"},
    {"xpass", "\xe2\x98\x85", "xpass: an expected failure passed"},
    {"flaky", "\xe2\x89\x88", "flaky: different outcomes on a rerun"},
    {"xfail", "\xe2\x97\x87", "xfail: an expected failure"},
    {"pass", "\xe2\x9c\x93", "pass"},
    {"unsupported", "\xe2\x88\x85", "unsupported by the implementation"},
};
#define LOOK_COUNT (sizeof LOOKS / sizeof LOOKS[0])

/* The row groups, by id prefix, in the page's order. */
static const char *const GROUPS[] = {"RG", "CP", "XG", "MG", "RL", "LP", "IR"};
#define GROUP_COUNT (sizeof GROUPS / sizeof GROUPS[0])

/* Okabe-Ito colours (tints for the backgrounds). */
static const char CSS[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#111}"
    "h1{margin:0 0 .3em}h2{margin-top:1.6em;border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse;margin:.5em 0}"
    "th,td{border:1px solid #bbb;padding:3px 6px;vertical-align:top;"
    "text-align:left}"
    "thead th{background:#eee;position:sticky;top:0}"
    "tr.group th{background:#333;color:#fff;text-align:left}"
    "td.note{max-width:28em;font-size:12px}td.src{font-size:12px;"
    "font-family:monospace;max-width:16em;word-break:break-all}"
    "pre{white-space:pre-wrap;word-break:break-all;margin:.2em 0;"
    "background:#f6f6f6;padding:4px;max-width:60em}"
    ".v{white-space:nowrap;margin-right:.4em}"
    "td.cell{border-left:6px solid #ddd;min-width:7em}"
    ".c-pass{border-left-color:#009E73!important;background:#e5f5f0}"
    ".c-fail{border-left-color:#D55E00!important;background:#fbe9df}"
    ".c-xfail{border-left-color:#E69F00!important;background:#fdf3e0}"
    ".c-xpass{border-left-color:#CC79A7!important;background:#f8ecf3}"
    ".c-crash{border-left-color:#000!important;background:#e0e0e0}"
    ".c-timeout{border-left-color:#0072B2!important;background:#e0eef7}"
    ".c-flaky{border-left-color:#F0E442!important;background:#fdfbe6}"
    ".c-unsupported{border-left-color:#999!important;background:#f4f4f4}"
    ".c-none{color:#777}"
    ".partial{border:3px solid #D55E00;padding:.5em 1em;background:#fbe9df}"
    /* The bar fills its box whole in height; a box all passed has no
     * failure colour at all. */
    ".bar{display:block;height:100%;background:#009E73}"
    ".barbox{display:inline-block;width:6em;height:.8em;line-height:0;"
    "overflow:hidden;vertical-align:middle;background:#D55E00;"
    "margin-right:.4em}.barbox.all-pass{background:#009E73}"
    "pre.rerun{user-select:all;-webkit-user-select:all;cursor:text}"
    "#verdicts td.result{font-weight:bold;white-space:nowrap}"
    ".plots{display:flex;flex-wrap:wrap;gap:1em}"
    "svg text{font:11px sans-serif}details summary{cursor:pointer}"
    "h4{margin:.4em 0 0}.sweep-verdict summary{white-space:nowrap}"
    ".left-out{font-style:italic}";

//===----------------------------------------------------------------------===//
// Escaping
//===----------------------------------------------------------------------===//

/* The length of the UTF-8 sequence at `s` (1 to 4), or 0 when it is not
 * one (overlong forms, surrogates and values past U+10FFFF included). */
static size_t utf8_length(const unsigned char *s) {
  unsigned char c = s[0];
  size_t n = c >= 0xc2 && c <= 0xdf   ? 2
             : c >= 0xe0 && c <= 0xef ? 3
             : c >= 0xf0 && c <= 0xf4 ? 4
                                      : 0;
  for (size_t i = 1; i < n; i++)
    if ((s[i] & 0xc0) != 0x80)
      return 0;
  if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) ||
      (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
    return 0;
  return n;
}

void lctx_html_escape(FILE *f, const char *s, int keep_lines) {
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  while (*p) {
    unsigned char c = *p;
    if (c >= 0x80) {
      size_t n = utf8_length(p);
      if (n == 0) {
        fputs("\xef\xbf\xbd", f);
        p++;
      } else {
        fwrite(p, 1, n, f);
        p += n;
      }
      continue;
    }
    p++;
    if (c == '&')
      fputs("&amp;", f);
    else if (c == '<')
      fputs("&lt;", f);
    else if (c == '>')
      fputs("&gt;", f);
    else if (c == '"')
      fputs("&quot;", f);
    else if (c == '\'')
      fputs("&#39;", f);
    else if ((c == '\n' || c == '\t') && keep_lines)
      fputc(c, f);
    else if (c < 0x20 || c == 0x7f)
      fprintf(f, "\\x%02x", c);
    else
      fputc(c, f);
  }
}

static void esc(FILE *f, const char *s) {
  lctx_html_escape(f, s, 0);
}

static const char *str(const json_t *j, const char *key) {
  const char *s = json_string_value(json_object_get(j, key));
  return s ? s : "";
}

static long long count(const json_t *row, const char *key) {
  return json_integer_value(json_object_get(row, key));
}

//===----------------------------------------------------------------------===//
// The runs and the scoreboard
//===----------------------------------------------------------------------===//

static void write_legend(FILE *f) {
  fputs("<section id=\"legend\"><h2>Legend</h2><p>", f);
  for (size_t i = 0; i < LOOK_COUNT; i++)
    fprintf(f,
            "<span class=\"v c-%s\" style=\"border-left:6px solid;"
            "padding:0 4px\">%s %s</span> ",
            LOOKS[i].name, LOOKS[i].symbol, LOOKS[i].words);
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
  lctx_html_verdict_of(r->report, &v);
  bool pass = !strcmp(v.result, "PASS"), failed = !strcmp(v.result, "FAIL");
  fprintf(f, "<tr class=\"run-verdict\" data-result=\"%s\"><th>%s %zu. ",
          v.result, kind, n);
  esc(f, str(r->report, "implementation"));
  fputs(" ", f);
  esc(f, str(r->report, "implementation_version"));
  fprintf(f, "</th><td class=\"result cell c-%s\">%s %s%s%s</td><td>",
          pass     ? "pass"
          : failed ? "fail"
                   : "unsupported",
          pass     ? LOOKS[6].symbol
          : failed ? LOOKS[2].symbol
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
  for (size_t i = 0; i < LOOK_COUNT; i++)
    if (v.ops[i])
      fprintf(f, " <span class=\"v\">%s %lld %s</span>", LOOKS[i].symbol,
              v.ops[i], LOOKS[i].name);
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
    const json_t *j = d->runs[i]->report;
    const json_t *sh = json_object_get(j, "shard");
    fprintf(f, "<tr class=\"run-info\"><td>%zu</td><td>", i + 1);
    esc(f, str(j, "implementation"));
    fputs("</td><td>", f);
    esc(f, str(j, "implementation_version"));
    fputs("</td><td>", f);
    esc(f, str(j, "implementation_kind"));
    fputs("</td><td>", f);
    esc(f, str(j, "spec_version"));
    fprintf(f,
            "</td><td>%lld</td><td>%lld/%lld</td><td>%s</td>"
            "<td>%lld%s</td><td>%.1f</td><td>",
            count(j, "seed"), count(sh, "index"), count(sh, "count"),
            d->runs[i]->date, count(j, "cases_run"),
            json_is_true(json_object_get(j, "interrupted")) ? " (interrupted)"
                                                            : "",
            json_number_value(json_object_get(j, "seconds")));
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
  esc(f, str(row, "first_case"));
  fputs("</p><pre class=\"first\">", f);
  lctx_html_escape(f, str(row, "first"), 1);
  fputs("</pre>", f);
  if (json_object_get(row, "rerun")) {
    fputs("<h4>rerun <small>(a click selects the whole line: copy it, "
          "run it from the folder the run was started in)</small></h4>"
          "<pre class=\"rerun\">",
          f);
    lctx_html_escape(f, str(row, "rerun"), 1);
    fputs("</pre>", f);
  } else {
    fputs("<h4>rerun</h4><p class=\"no-rerun\">report.json has no rerun "
          "line for this row (a report of an older lctx, or a line too long "
          "to hold)</p>",
          f);
  }
  if (res) {
    fputs("<p>verdict <b>", f);
    esc(f, str(res, "verdict"));
    fputs("</b>, ", f);
    esc(f, str(res, "source"));
    fprintf(f, " case %lld, operation %lld</p>", count(res, "index"),
            count(res, "operation"));
    static const char *const PARTS[] = {"expected", "actual", "detail"};
    for (size_t i = 0; i < 3; i++) {
      if (!json_object_get(res, PARTS[i]))
        continue;
      fprintf(f, "<h4>%s</h4><pre class=\"%s\">", PARTS[i], PARTS[i]);
      lctx_html_escape(f, str(res, PARTS[i]), 1);
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
  for (size_t i = 0; row && i < LOOK_COUNT && !strcmp(worst, "none"); i++)
    if (count(row, LOOKS[i].name) > 0)
      worst = LOOKS[i].name;
  bool failed = row && lctx_html_row_failed(row);
  bool opens = row && (failed || count(row, "xfail") > 0) &&
               (json_object_get(row, "first") || r->result[k]);
  fprintf(f, "<td class=\"cell c-%s%s\" data-verdict=\"%s\">", worst,
          failed ? " failing" : "", worst);
  if (opens)
    fputs("<details><summary>", f);
  if (!strcmp(worst, "none"))
    fputs("&mdash;", f);
  long long all = 0; /* the row's operations in this run */
  for (size_t i = 0; row && i < LOOK_COUNT; i++)
    all += count(row, LOOKS[i].name) > 0 ? count(row, LOOKS[i].name) : 0;
  for (size_t i = 0; row && i < LOOK_COUNT; i++)
    if (count(row, LOOKS[i].name) > 0)
      fprintf(f, "<span class=\"v\">%s %s %lld of %lld</span> ",
              LOOKS[i].symbol, LOOKS[i].name, count(row, LOOKS[i].name), all);
  if (row && json_object_get(row, "xfail_reason")) {
    fputs("<br><small>expected to fail: ", f);
    esc(f, str(row, "xfail_reason"));
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
    const json_t *j = runs[i]->report;
    fprintf(f, "<th class=\"%s\" title=\"", cls);
    esc(f, runs[i]->dir);
    fprintf(f, "\">%zu. ", i + 1);
    esc(f, str(j, "implementation"));
    fputs("<br><small>", f);
    esc(f, str(j, "implementation_version"));
    fprintf(f, " &middot; spec ");
    esc(f, str(j, "spec_version"));
    fprintf(f, " &middot; seed %lld<br>%s<br>", count(j, "seed"),
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
    esc(f, str(r->report, "implementation"));
    fputs("</th>", f);
    long long all_pass = 0, all_judged = 0;
    for (size_t g = 0; g <= GROUP_COUNT; g++) {
      long long pass = 0, judged = 0;
      for (size_t k = 0; k < d->spec->row_count; k++) {
        if (!r->row[k] ||
            (group_of(d->spec->rows[k].id) != g && g != GROUP_COUNT))
          continue;
        for (size_t v = 0; v < LOOK_COUNT; v++)
          if (strcmp(LOOKS[v].name, "unsupported") != 0)
            judged += count(r->row[k], LOOKS[v].name);
        pass += count(r->row[k], "pass");
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
 * against time. */
static void write_plot(FILE *f, const lctx_html_campaign *c, size_t field,
                       const char *title) {
  const double W = 320, H = 160, L = 50, B = 20, T = 20;
  double tmax = 0, ymax = 0;
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

static void write_campaign(FILE *f, const lctx_html_campaign *c, size_t n) {
  fprintf(f, "<section class=\"campaign\"><h3>campaign %zu: ", n);
  esc(f, c->dir);
  fputs("</h3>", f);
  if (c->state) {
    fputs("<p>target <b>", f);
    esc(f, str(c->state, "target"));
    fputs("</b> under ", f);
    esc(f, str(c->state, "engine"));
    fputs(", ", f);
    esc(f, str(c->state, "status"));
    fprintf(f, " after %.0f s, %lld input(s) run, %lld finding(s)</p>",
            json_number_value(json_object_get(c->state, "seconds")),
            count(c->state, "inputs_run"), count(c->state, "findings"));
  }
  fputs("<div class=\"plots\">", f);
  if (c->point_count) {
    write_plot(f, c, offsetof(lctx_html_point, execs_per_sec), "exec/s");
    write_plot(f, c, offsetof(lctx_html_point, corpus), "corpus size");
    write_plot(f, c, offsetof(lctx_html_point, rows_hit), "spec rows hit");
    write_plot(f, c, offsetof(lctx_html_point, findings), "findings");
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
    esc(f, str(v, "version"));
    fputs("<br><small>", f);
    esc(f, str(v, "status"));
    fputs("</small></th>", f);
  }
  fputs("</tr></thead><tbody>\n", f);
  json_array_foreach(rows, k, row) {
    fputs("<tr class=\"matrix-row\"><th>", f);
    esc(f, str(row, "id"));
    fputs("</th>", f);
    json_array_foreach(versions, i, v) {
      json_t *cell =
          json_object_get(json_object_get(row, "cells"), str(v, "version"));
      const char *st = cell ? str(cell, "status") : "";
      const char *look = "none";
      for (size_t l = 0; l < LOOK_COUNT; l++)
        if (strcmp(st, LOOKS[l].name) == 0)
          look = LOOKS[l].name;
      fprintf(f, "<td class=\"cell c-%s\">", look);
      esc(f, *st ? st : "\xe2\x80\x94");
      if (json_object_get(cell, "first")) {
        fputs("<details><summary>first</summary><pre>", f);
        lctx_html_escape(f, str(cell, "first"), 1);
        fputs("</pre></details>", f);
      }
      fputs("</td>", f);
    }
    fputs("</tr>\n", f);
  }
  fputs("</tbody></table>\n", f);
}

//===----------------------------------------------------------------------===//
// Sweeps
//===----------------------------------------------------------------------===//

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
          LOOKS[worst].name, LOOKS[worst].name, LOOKS[LCTX_HTML_V_PASS].symbol,
          by[LCTX_HTML_V_XFAIL] + by[LCTX_HTML_V_PASS], judged);
  for (int v = 0; v <= LCTX_HTML_V_XFAIL; v++)
    if (by[v])
      fprintf(f, "<br><span class=\"v\">%s %lld %s%s</span>", LOOKS[v].symbol,
              by[v], LOOKS[v].name,
              v == LCTX_HTML_V_XFAIL ? " (known defect)" : "");
  if (by[LCTX_HTML_V_NONE])
    fprintf(f, "<br><span class=\"v\">%s %lld not judged</span>",
            LOOKS[LCTX_HTML_V_NONE].symbol, by[LCTX_HTML_V_NONE]);
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
  fprintf(f, "<td class=\"cell c-%s\" data-verdict=\"%s\">", LOOKS[worst].name,
          LOOKS[worst].name);
  for (size_t i = 0; i < p->entry_count; i++) {
    const lctx_html_sweep_entry *e = &p->entries[i];
    if (e->list != list)
      continue;
    fprintf(f,
            "<details class=\"sweep-verdict\"><summary><span class=\"v\">%s ",
            LOOKS[e->verdict].symbol);
    esc(f, e->row);
    fprintf(f, " %s</span>", LOOKS[e->verdict].name);
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
          count(reach, "lowering_primitives"));
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

static void write_sweep(FILE *f, const lctx_html_sweep *s, size_t n) {
  const json_t *sw = json_object_get(s->stamp, "sweep");
  fprintf(f, "<section class=\"sweep\"><h3>sweep %zu: ", n);
  esc(f, s->run->dir);
  fputs("</h3><p>", f);
  esc(f, str(s->run->report, "implementation"));
  fputs(" ", f);
  esc(f, str(s->run->report, "implementation_version"));
  fprintf(f, ", seed %lld, %lld platform list(s) per program, subset ",
          count(sw, "seed"), count(sw, "lists"));
  esc(f, str(sw, "subset"));
  fprintf(f,
          ", %lld program(s), shard %lld of %lld; %lld case(s) read from "
          "results.jsonl",
          count(sw, "programs"), count(sw, "shard_index"),
          count(sw, "shard_count"), s->cases);
  if (s->malformed)
    fprintf(f, " (%lld malformed line(s) skipped)", s->malformed);
  fprintf(f, "; at most %d lines of at most %d KiB are read.</p>\n",
          LCTX_HTML_SWEEP_MAX_LINES, LCTX_HTML_SWEEP_MAX_LINE / 1024);
  write_sweep_groups(f, s);
  write_sweep_failing(f, s);
  write_reach(f, s->reach);
  fputs("</section>\n", f);
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
    write_sweep(f, d->sweeps[i], i + 1);
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
          d->problem_count ? " (partial)" : "", CSS,
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

int lctx_report_html(const lctx_report_html_options *o, FILE *out, FILE *err) {
  lctx_html_data *d = calloc(1, sizeof *d);
  if (!d || !lctx_html_load(d, o->dirs, o->dir_count, o->spec_path, err)) {
    if (d)
      lctx_html_free(d);
    free(d);
    return LCTX_EXIT_USAGE;
  }
  int code = LCTX_EXIT_OK;
  lctx_escaped esc_path;
  if (d->run_count + d->sweep_count + d->campaign_count + d->matrix_count ==
      0) {
    fprintf(err,
            WHO ": nothing usable among the %zu folder(s) given; no "
                "page written\n",
            o->dir_count);
    code = LCTX_EXIT_USAGE;
  } else {
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", o->out_path);
    FILE *f = lctx_sys_fopen_in(tmp, "w");
    if (f)
      write_page(f, d);
    if (!f || ferror(f) | (fclose(f) != 0) || rename(tmp, o->out_path) != 0) {
      fprintf(err, WHO ": %s: cannot write: %s\n",
              lctx_esc(&esc_path, o->out_path), strerror(errno ? errno : EIO));
      remove(tmp);
      code = LCTX_EXIT_USAGE;
    } else {
      fprintf(out, "%s: %s%s\n", WHO, lctx_esc(&esc_path, o->out_path),
              d->problem_count ? " (partial: see the warnings)" : "");
    }
  }
  lctx_html_free(d);
  free(d);
  return code;
}
