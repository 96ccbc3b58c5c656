/*
 * lint.c - the lint verdict of one rule file (see lint.h).
 */
#include "lint.h"

#include "case_text.h"
#include "domain.h"
#include "escape.h"

#include <stdlib.h>
#include <string.h>

static const char *const PLATFORMS[] = {"cpu", "tpu", "cuda", "rocm", "gpu"};
#define PLATFORM_COUNT (sizeof PLATFORMS / sizeof PLATFORMS[0])
/* Pinned backends: none, then a client on each platform. */
#define PIN_COUNT (PLATFORM_COUNT + 1)

/* Working storage for one file (large: kept off the stack). */
typedef struct lint_state {
  lctx_case c;
  lctx_registry_config config;
  lctx_lowering_registry lowering;
  lctx_lowering_result result;
  /* Per pinned backend: did each single platform raise, and how. */
  bool single_raises[PLATFORM_COUNT];
  lctx_outcome single[PLATFORM_COUNT];
  bool found;
  size_t best_factories;
} lint_state;

static const char *limit_name(lctx_lowering_limit limit) {
  switch (limit) {
  case LCTX_LOWERING_LIMIT_EVENTS:
    return "too many events";
  case LCTX_LOWERING_LIMIT_DEPTH:
    return "lower_fun nested too deep";
  case LCTX_LOWERING_LIMIT_BAD_ID:
    return "an unknown primitive or rule id";
  default:
    return "none";
  }
}

/* Lowers the file's primitive at one point into s->result. Returns false
 * when the model stopped at a limit. */
static bool lower(lint_state *s, const size_t *platforms, size_t count,
                  size_t pin) {
  lctx_registry backends;
  lctx_registry_init(&backends, &s->config);
  lctx_lowering_context ctx;
  lctx_lowering_context_init(&ctx);
  for (size_t i = 0; i < count; i++)
    lctx_module_context_add_platform(
        &ctx.module, lctx_str_from_cstr(PLATFORMS[platforms[i]]));
  if (pin > 0)
    lctx_module_context_pin(&ctx.module,
                            lctx_str_from_cstr(PLATFORMS[pin - 1]));
  ctx.dim_var_count = count > 1 ? 1 : 0;
  lctx_lowering_lower_eqn(&s->lowering, &backends, &ctx, 0, &s->result);
  return s->result.limit == LCTX_LOWERING_LIMIT_NONE;
}

/* The point's module platforms as a Python list: ['cpu', 'tpu']. */
static void append_platforms(lctx_buf *out, const lctx_lint_point *p) {
  lctx_buf_append_char(out, '[');
  for (size_t i = 0; i < p->platform_count; i++) {
    lctx_buf_append_cstr(out, i ? ", '" : "'");
    lctx_buf_append_cstr(out, p->platforms[i]);
    lctx_buf_append_char(out, '\'');
  }
  lctx_buf_append_char(out, ']');
}

static void describe_point(const lctx_lint_point *p, lctx_buf *out) {
  lctx_buf_append_cstr(out, "configuration ");
  lctx_buf_append_int(out, (long long)p->registry);
  lctx_buf_append_cstr(out, ", platforms ");
  append_platforms(out, p);
  lctx_buf_append_cstr(out, ", pinned ");
  lctx_buf_append_cstr(out, p->pinned ? p->pinned : "none");
}

static bool limit_error(lint_state *s, const lctx_lint_point *p,
                        lctx_buf *error) {
  lctx_buf_append_cstr(error, "the lowering model stopped at a limit (");
  lctx_buf_append_cstr(error, limit_name(s->result.limit));
  lctx_buf_append_cstr(error, ") at ");
  describe_point(p, error);
  return false;
}

static void fill_point(lctx_lint_point *p, size_t registry,
                       const size_t *platforms, size_t count, size_t pin) {
  p->registry = registry;
  p->platform_count = count;
  for (size_t i = 0; i < count; i++)
    p->platforms[i] = PLATFORMS[platforms[i]];
  p->pinned = pin ? PLATFORMS[pin - 1] : NULL;
}

/* Checks every multi-platform list of `count` platforms for one
 * configuration and pinned backend. */
static bool check_lists(lint_state *s, lctx_lint_report *report,
                        size_t registry, size_t pin, size_t count,
                        lctx_buf *error) {
  size_t total = 1;
  for (size_t i = 0; i < count; i++)
    total *= PLATFORM_COUNT;
  for (size_t code = 0; code < total; code++) {
    size_t list[LCTX_LINT_MAX_PLATFORMS];
    size_t rest = code;
    for (size_t i = count; i-- > 0;) {
      list[i] = rest % PLATFORM_COUNT;
      rest /= PLATFORM_COUNT;
    }
    report->lowerings++;
    if (!lower(s, list, count, pin)) {
      lctx_lint_point p;
      fill_point(&p, registry, list, count, pin);
      return limit_error(s, &p, error);
    }
    if (s->result.outcome.kind != LCTX_OUTCOME_RAISE)
      continue;
    report->multi_raises++;
    bool explained = false;
    for (size_t i = 0; i < count && !explained; i++)
      explained = s->single_raises[list[i]];
    if (explained) {
      report->explained++;
      continue;
    }
    size_t factories = s->config.factory_count;
    bool better = !s->found || count < report->counterexample.platform_count ||
                  (count == report->counterexample.platform_count &&
                   factories < s->best_factories);
    if (!better)
      continue;
    s->found = true;
    s->best_factories = factories;
    fill_point(&report->counterexample, registry, list, count, pin);
    report->outcome = s->result.outcome;
    for (size_t i = 0; i < count; i++)
      report->singles[i] = s->single[list[i]];
  }
  return true;
}

bool lctx_lint_file(const lctx_rulefile *file, lctx_lint_report *report,
                    lctx_buf *error) {
  memset(report, 0, sizeof *report);
  lint_state *s = calloc(1, sizeof *s);
  if (!s) {
    lctx_buf_append_cstr(error, "out of memory");
    return false;
  }
  bool ok = true;
  size_t count = lctx_domain_registry_count();
  for (size_t r = 0; r < count && ok; r++) {
    lctx_domain_registry(r, &s->c);
    lctx_case_config(&s->c, &s->config);
    report->configurations++;
    lctx_outcome raised;
    if (!lctx_rulefile_build(file, &s->config, &s->lowering, &raised)) {
      if (report->skipped++ == 0) {
        report->first_skipped = r;
        report->skip_reason = raised;
      }
      continue;
    }
    for (size_t pin = 0; pin < PIN_COUNT && ok; pin++) {
      for (size_t k = 0; k < PLATFORM_COUNT && ok; k++) {
        report->lowerings++;
        if (!lower(s, &k, 1, pin)) {
          lctx_lint_point p;
          fill_point(&p, r, &k, 1, pin);
          ok = limit_error(s, &p, error);
          break;
        }
        s->single[k] = s->result.outcome;
        s->single_raises[k] = s->result.outcome.kind == LCTX_OUTCOME_RAISE;
      }
      for (size_t n = 2; n <= LCTX_LINT_MAX_PLATFORMS && ok; n++)
        ok = check_lists(s, report, r, pin, n, error);
    }
  }
  report->safe = !s->found;
  free(s);
  return ok;
}

static void append_outcome(lctx_buf *out, const lctx_outcome *o) {
  if (o->kind == LCTX_OUTCOME_RAISE) {
    char text[LCTX_OUTCOME_TEXT_MAX + 128];
    lctx_buf t;
    lctx_buf_init(&t, text, sizeof text);
    lctx_outcome_format(o, &t);
    lctx_buf_append_cstr(out, "raises ");
    lctx_escape_append(out, text, t.length); /* a message may hold '\n' */
  } else {
    lctx_buf_append_cstr(out, "succeeds");
  }
}

/* The counterexample's registry configuration, as a case and as text. */
typedef struct counterexample_text {
  lctx_case c;
  char text[LCTX_CASE_TEXT_MAX];
} counterexample_text;

void lctx_lint_format_counterexample(const lctx_lint_report *report,
                                     const char *indent, lctx_buf *out) {
  const lctx_lint_point *p = &report->counterexample;
  counterexample_text *t = malloc(sizeof *t); /* large for the stack */
  if (!t) {
    lctx_buf_append_cstr(out, indent);
    lctx_buf_append_cstr(out, "(out of memory)\n");
    return;
  }
  const char *description = lctx_domain_registry(p->registry, &t->c);
  lctx_buf_append_cstr(out, indent);
  lctx_buf_append_cstr(out, "registry configuration ");
  lctx_buf_append_int(out, (long long)p->registry);
  lctx_buf_append_cstr(out, " (");
  lctx_buf_append_cstr(out, description);
  lctx_buf_append_cstr(out, "):\n");
  lctx_buf tb;
  lctx_buf_init(&tb, t->text, sizeof t->text);
  lctx_case_print(&t->c, NULL, &tb);
  if (t->c.factory_count == 0) {
    lctx_buf_append_cstr(out, indent);
    lctx_buf_append_cstr(out, "  (no factories)\n");
  }
  /* The case text, one indented line each, without its header. */
  const char *line = t->text;
  while (*line) {
    const char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) : strlen(line);
    if (n > 0 && strncmp(line, "lctx-case", 9) != 0) {
      lctx_buf_append_cstr(out, indent);
      lctx_buf_append_cstr(out, "  ");
      lctx_buf_append(out, line, n);
      lctx_buf_append_char(out, '\n');
    }
    line += n + (end ? 1 : 0);
  }
  free(t);
  lctx_buf_append_cstr(out, indent);
  lctx_buf_append_cstr(out, "module platforms: ");
  append_platforms(out, p);
  lctx_buf_append_cstr(out, " (platform index present)\n");
  lctx_buf_append_cstr(out, indent);
  lctx_buf_append_cstr(out, "pinned backend: ");
  if (p->pinned) {
    lctx_buf_append_cstr(out, "a client whose platform is '");
    lctx_buf_append_cstr(out, p->pinned);
    lctx_buf_append_cstr(out, "'\n");
  } else {
    lctx_buf_append_cstr(out, "none\n");
  }
  lctx_buf_append_cstr(out, indent);
  lctx_buf_append_cstr(out, "multi-platform lowering ");
  append_outcome(out, &report->outcome);
  lctx_buf_append_char(out, '\n');
  for (size_t i = 0; i < p->platform_count; i++) {
    lctx_buf_append_cstr(out, indent);
    lctx_buf_append_cstr(out, "  alone ['");
    lctx_buf_append_cstr(out, p->platforms[i]);
    lctx_buf_append_cstr(out, "'] ");
    append_outcome(out, &report->singles[i]);
    lctx_buf_append_char(out, '\n');
  }
}

/* Copies `s` into a case name field of LCTX_MAX_NAME bytes; false when it
 * does not fit. */
static bool copy_name(char *dst, lctx_str s) {
  if (s.length > LCTX_MAX_NAME)
    return false;
  memcpy(dst, s.data, s.length);
  dst[s.length] = '\0';
  return true;
}

/* The case rule of a file's rule: its name and body. */
static bool case_rule(const lctx_rulefile *file, const lctx_rulefile_rule *r,
                      lctx_case_rule *out, lctx_buf *why) {
  if (!copy_name(out->name, r->name) ||
      r->action_count > LCTX_CASE_MAX_ACTIONS) {
    lctx_buf_append_cstr(why, "a rule's name or body is beyond what a case "
                              "holds (names of 63 bytes, 4 actions)");
    return false;
  }
  out->action_count = r->action_count;
  for (size_t k = 0; k < r->action_count; k++) {
    const lctx_lowering_action *a = &r->actions[k];
    lctx_case_action *ca = &out->actions[k];
    ca->kind = a->kind;
    ca->optional = a->optional;
    bool ok = true;
    if (a->kind == LCTX_ACTION_RAISE_IF_MULTI)
      ok = copy_name(ca->text, a->message);
    if (a->kind == LCTX_ACTION_LOWER_FUN) {
      ok = copy_name(ca->text, file->primitives[a->primitive]);
      ca->has_compute_type = a->has_compute_type;
      ok = ok && (!a->has_compute_type ||
                  copy_name(ca->compute_type, a->compute_type));
    }
    if (!ok) {
      lctx_buf_append_cstr(why, "a message or name of a rule's body is longer "
                                "than a case holds (63 bytes)");
      return false;
    }
  }
  return true;
}

/* Appends the register_lowering operations of rule `r`. */
static bool case_registrations(const lctx_rulefile *file,
                               const lctx_rulefile_rule *r, lctx_case *c,
                               lctx_buf *why) {
  for (size_t k = 0; k < r->registration_count; k++) {
    if (c->op_count + 1 >= LCTX_CASE_MAX_OPS) {
      lctx_buf_append_cstr(why, "more registrations than a case holds (it "
                                "has at most 8 operations)");
      return false;
    }
    lctx_case_op *op = &c->ops[c->op_count++];
    op->kind = LCTX_OP_REGISTER_LOWERING;
    copy_name(op->primitive, file->primitives[r->primitive]);
    copy_name(op->rule, r->name);
    op->has_arg = !r->registrations[k].is_default;
    if (op->has_arg && !copy_name(op->arg, r->registrations[k].platform)) {
      lctx_buf_append_cstr(why, "a platform name is longer than a case holds");
      return false;
    }
  }
  return true;
}

bool lctx_lint_counterexample_case(const lctx_rulefile *file,
                                   const lctx_lint_report *report, lctx_case *c,
                                   lctx_buf *why) {
  const lctx_lint_point *p = &report->counterexample;
  lctx_case_init(c);
  lctx_domain_registry(p->registry, c);
  if (file->rule_count > LCTX_CASE_MAX_RULES) {
    lctx_buf_append_cstr(why, "more rules than a case holds (8)");
    return false;
  }
  for (size_t i = 0; i < file->primitive_count; i++) {
    if (file->primitives[i].length > LCTX_MAX_NAME) {
      lctx_buf_append_cstr(why, "a primitive's name is longer than a case "
                                "holds (63 bytes)");
      return false;
    }
  }
  c->rule_count = file->rule_count;
  for (size_t i = 0; i < file->rule_count; i++) {
    if (!case_rule(file, &file->rules[i], &c->rules[i], why) ||
        !case_registrations(file, &file->rules[i], c, why))
      return false;
  }
  lctx_case_op *op = &c->ops[c->op_count++];
  op->kind = LCTX_OP_LOWER_PER_PLATFORM;
  copy_name(op->primitive, file->primitives[0]);
  op->platform_count = p->platform_count;
  for (size_t i = 0; i < p->platform_count; i++) {
    char name[LCTX_MAX_NAME + 1];
    snprintf(name, sizeof name, "%s", p->platforms[i]);
    if (!lctx_case_intern_cstr(c, name, &op->platform[i])) {
      lctx_buf_append_cstr(why, "more distinct platform names than a case "
                                "holds");
      return false;
    }
  }
  op->has_backend = p->pinned != NULL;
  if (p->pinned)
    snprintf(op->backend, sizeof op->backend, "%s", p->pinned);
  return true;
}
