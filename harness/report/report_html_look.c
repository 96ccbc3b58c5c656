/*
 * report_html_look.c - how the HTML page looks: its style sheet, the look
 * of each verdict, and HTML text (see report_html_look.h).
 */
#include "report_html_look.h"

/* In the order of severity a cell takes its look from (that of
 * LCTX_HTML_VERDICTS: the sweep view indexes it). */
const lctx_html_look LCTX_HTML_LOOKS[LCTX_HTML_VERDICT_COUNT] = {
    {"crash", "\xe2\x98\xa0", "crash: the implementation died"},
    {"timeout", "\xe2\x97\xb7", "timeout: no answer in time"},
    {"fail", "\xe2\x9c\x97", "fail: the outcome differs"},
    {"xpass", "\xe2\x98\x85", "xpass: an expected failure passed"},
    {"flaky", "\xe2\x89\x88", "flaky: different outcomes on a rerun"},
    {"xfail", "\xe2\x97\x87", "xfail: an expected failure"},
    {"pass", "\xe2\x9c\x93", "pass"},
    {"unsupported", "\xe2\x88\x85", "unsupported by the implementation"},
};

/* Okabe-Ito colours (tints for the backgrounds). */
const char LCTX_HTML_CSS[] =
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

const char *lctx_html_str(const json_t *j, const char *key) {
  const char *s = json_string_value(json_object_get(j, key));
  return s ? s : "";
}

long long lctx_html_count(const json_t *j, const char *key) {
  return json_integer_value(json_object_get(j, key));
}
