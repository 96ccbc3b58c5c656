/*
 * diagnose.c - the diagnoses of a user's or a package's program exported
 * for several platforms (see diagnose.h): each census entry in user code
 * and P's raise, classified, placed and given their fix.
 */
#include "diagnose.h"

#include <stdio.h>
#include <string.h>

static const char *const CLASS_NAMES[LCTX_DIAGNOSIS_CLASS_COUNT] = {
    "get-backend",   "host-backend", "missing-rule",
    "host-callback", "jax-defect",   "other"};

const char *lctx_diagnosis_class_name(lctx_diagnosis_class c) {
  return (unsigned)c < LCTX_DIAGNOSIS_CLASS_COUNT ? CLASS_NAMES[c] : "?";
}

/* The fixes the seed's error names (conformance/sweep/README.md). */
static const char FIX_GET_BACKEND[] =
    "call ctx.module_context.get_backend(optional=True) and handle None "
    "(several platforms), or branch on ctx.platforms / "
    "lax.platform_dependent";
static const char FIX_HOST_BACKEND[] =
    "do not pick the kernel by the host's devices: branch on ctx.platforms "
    "inside the rule (mlir.lower_per_platform / lax.platform_dependent)";
static const char FIX_HOST_TRACE[] =
    "do not pick the computation by the host's devices while tracing: "
    "lax.platform_dependent(..., cpu=..., cuda=...) gives each platform of "
    "the export its own branch";
static const char FIX_HOST_CALLBACK[] =
    "host callbacks refuse several platforms: export for one platform at a "
    "time (pin one platform)";

/* JAX's messages (jax 0.10.2: jax/_src/interpreters/mlir.py, the
 * ModuleContext.backend property; mlir.py's lower_per_platform, "MLIR
 * translation rule for primitive"; jax/_src/callback.py:798 and
 * jax/_src/buffer_callback.py:237, "multi-platform lowering for"). */
static const char RAISE_BACKEND[] =
    "accessing .backend in multi-lowering setting";
static const char RAISE_RULE[] = "MLIR translation rule for primitive '";
static const char RAISE_RULE_END[] = "not found for platforms";
static const char *const RAISE_CALLBACKS[] = {
    "multi-platform lowering for python_callback",
    "multi-platform lowering for buffer_callback"};

/* Whether `file` is the user's: not JAX's ("jax/...") and not a generated
 * program's own rule. */
static bool user_file(const char *file) {
  return file[0] && strncmp(file, "jax/", 4) != 0 &&
         strcmp(file, "lctx-program") != 0;
}

typedef struct out_list {
  lctx_diagnosis *d;
  size_t n, cap;
} out_list;

/* A new diagnosis of `c` in class `cls`, or NULL when the list is full. */
static lctx_diagnosis *start(out_list *o, const lctx_sweep_case *c,
                             lctx_diagnosis_class cls) {
  if (o->n == o->cap)
    return NULL;
  lctx_diagnosis *d = &o->d[o->n];
  memset(d, 0, sizeof *d);
  d->cls = cls;
  snprintf(d->program, sizeof d->program, "%s", c->program);
  d->platform_count = c->count;
  for (size_t i = 0; i < c->count && i < LCTX_EXPORT_MAX_PLATFORMS; i++)
    snprintf(d->platforms[i], sizeof d->platforms[i], "%s", c->platforms[i]);
  return d;
}

/* Keeps the diagnosis `start` began unless the same one is there
 * (lctx_diagnosis_same). */
static void keep(out_list *o) {
  const lctx_diagnosis *d = &o->d[o->n];
  for (size_t i = 0; i < o->n; i++)
    if (lctx_diagnosis_same(&o->d[i], d))
      return;
  o->n++;
}

static const char *gave(const lctx_census_call *k) {
  return k->gave == LCTX_CENSUS_GAVE_RAISE  ? "it raised"
         : k->gave == LCTX_CENSUS_GAVE_NONE ? "it gave None"
                                            : "it gave a client";
}

/* A census entry in user code. */
static void from_census(out_list *o, const lctx_sweep_case *c,
                        const lctx_census_call *k) {
  bool host = k->kind == LCTX_CENSUS_HOST;
  lctx_diagnosis *d = start(
      o, c, host ? LCTX_DIAGNOSIS_HOST_BACKEND : LCTX_DIAGNOSIS_GET_BACKEND);
  if (!d)
    return;
  snprintf(d->file, sizeof d->file, "%s", k->file);
  d->line = k->line;
  snprintf(d->primitive, sizeof d->primitive, "%s", k->primitive);
  d->rule = k->rule;
  d->call_site = k->call_site;
  snprintf(d->fix, sizeof d->fix, "%s",
           !host             ? FIX_GET_BACKEND
           : k->primitive[0] ? FIX_HOST_BACKEND
                             : FIX_HOST_TRACE);
  if (host && k->primitive[0])
    snprintf(d->message, sizeof d->message,
             "a look-up of the host's devices or backend in a lowering rule "
             "under %u platforms: it gives the host's platform, not the "
             "module's",
             k->platforms);
  else if (host)
    snprintf(d->message, sizeof d->message,
             "a look-up of the host's devices or backend while tracing for "
             "%u platforms: the program follows the host, not the export",
             k->platforms);
  else
    snprintf(d->message, sizeof d->message, "%s under %u platforms (%s)",
             k->kind == LCTX_CENSUS_BACKEND
                 ? "a read of ctx.module_context.backend"
                 : "ctx.module_context.get_backend() without optional=True",
             k->platforms, gave(k));
  keep(o);
}

/* Whether known defect `k` is the one its upstream report is of (its doc
 * "docs/NAME.md"): a finding kept under another name that shows the same
 * defect names the report too. */
static bool own_report(const lctx_diagnosis_known *k) {
  size_t n = k->name ? strlen(k->name) : 0;
  return n && k->doc && strncmp(k->doc, "docs/", 5) == 0 &&
         strncmp(k->doc + 5, k->name, n) == 0 &&
         strcmp(k->doc + 5 + n, ".md") == 0;
}

/* The known defect whose key is P's raise's (one that is its upstream
 * report's own first), or NULL. */
static const lctx_diagnosis_known *
known_raise(const lctx_export_raise *r, const lctx_diagnosis_known *known,
            size_t count) {
  char key[LCTX_SWEEP_KEY_MAX + LCTX_EXPORT_FILE_MAX];
  const lctx_diagnosis_known *found = NULL;
  for (int form = 0; form < 2 && r->file[0] && !found; form++) {
    snprintf(key, sizeof key, "%s %s at %s:%ld", form ? "SW-004" : "SW-001",
             r->cls, r->file, r->line);
    for (size_t i = 0; i < count; i++)
      if (known[i].key && strcmp(known[i].key, key) == 0 &&
          (!found || (own_report(&known[i]) && !own_report(found))))
        found = &known[i];
  }
  return found;
}

/* The missing-rule raise's primitive and platforms ("'tpu', 'rocm'" from
 * "['tpu', 'rocm']", brackets and quotes left out). */
static void missing_rule(const char *message, char *prim, size_t pn,
                         char *plats, size_t qn) {
  const char *p = strstr(message, RAISE_RULE);
  p = p ? p + strlen(RAISE_RULE) : message;
  size_t len = strcspn(p, "'");
  snprintf(prim, pn, "%.*s", (int)(len < pn ? len : pn - 1), p);
  const char *q = strstr(message, RAISE_RULE_END);
  q = q ? q + strlen(RAISE_RULE_END) : "";
  size_t at = 0;
  for (; *q && at + 1 < qn; q++) {
    if (*q == '[' || *q == ']' || *q == '\'' || *q == '"' ||
        (*q == ' ' && at == 0))
      continue;
    plats[at++] = *q;
  }
  plats[at] = '\0';
}

/* The class of P's raise; a known defect it has into `*defect`. */
static lctx_diagnosis_class raise_class(const lctx_export_raise *r,
                                        const lctx_diagnosis_known *known,
                                        size_t count,
                                        const lctx_diagnosis_known **defect) {
  *defect = NULL;
  if (strstr(r->message, RAISE_BACKEND))
    return LCTX_DIAGNOSIS_GET_BACKEND;
  if (strstr(r->message, RAISE_RULE) && strstr(r->message, RAISE_RULE_END))
    return LCTX_DIAGNOSIS_MISSING_RULE;
  for (size_t i = 0; i < 2; i++)
    if (strstr(r->message, RAISE_CALLBACKS[i]))
      return LCTX_DIAGNOSIS_HOST_CALLBACK;
  *defect = known_raise(r, known, count);
  return *defect ? LCTX_DIAGNOSIS_JAX_DEFECT : LCTX_DIAGNOSIS_OTHER;
}

/* The fix of a raise of class `cls`. */
static void raise_fix(lctx_diagnosis *d, const lctx_diagnosis_known *defect,
                      const char *missing) {
  switch (d->cls) {
  case LCTX_DIAGNOSIS_GET_BACKEND:
    snprintf(d->fix, sizeof d->fix, "%s", FIX_GET_BACKEND);
    break;
  case LCTX_DIAGNOSIS_MISSING_RULE:
    snprintf(d->fix, sizeof d->fix,
             "register a rule for %s (mlir.register_lowering(prim, rule, "
             "platform=...)) or a default rule, or export without them",
             missing[0] ? missing : "the platforms named");
    break;
  case LCTX_DIAGNOSIS_HOST_CALLBACK:
    snprintf(d->fix, sizeof d->fix, "%s", FIX_HOST_CALLBACK);
    break;
  case LCTX_DIAGNOSIS_JAX_DEFECT:
    if (defect->fixed_in && defect->fixed_in[0])
      snprintf(d->fix, sizeof d->fix, "%s: upgrade JAX to %s", defect->name,
               defect->fixed_in);
    else
      snprintf(d->fix, sizeof d->fix,
               "%s: no JAX release fixes it yet: pin one platform%s%s%s",
               defect->name, defect->doc && defect->doc[0] ? " (see " : "",
               defect->doc && defect->doc[0] ? defect->doc : "",
               defect->doc && defect->doc[0] ? ")" : "");
    break;
  default:
    snprintf(d->fix, sizeof d->fix, "see the raise at %s:%ld",
             d->file[0] ? d->file : "?", d->line);
  }
}

/* P's raise. */
static void from_raise(out_list *o, const lctx_sweep_case *c,
                       const lctx_diagnosis_known *known, size_t count) {
  const lctx_export_raise *r = &c->multi->raised;
  const lctx_user_facts *u = c->multi->user;
  const lctx_diagnosis_known *defect;
  lctx_diagnosis_class cls = raise_class(r, known, count, &defect);
  for (size_t i = 0; cls == LCTX_DIAGNOSIS_GET_BACKEND && i < o->n; i++)
    if (o->d[i].cls == LCTX_DIAGNOSIS_GET_BACKEND)
      return; /* the census entry that raised stands for it */
  lctx_diagnosis *d = start(o, c, cls);
  if (!d)
    return;
  char missing[256] = "", prim[LCTX_USER_TEXT_MAX] = "";
  if (cls == LCTX_DIAGNOSIS_MISSING_RULE)
    missing_rule(r->message, prim, sizeof prim, missing, sizeof missing);
  if (u) {
    d->rule = u->rule;
    d->call_site = u->call_site;
    snprintf(d->primitive, sizeof d->primitive, "%s",
             u->primitive[0] ? u->primitive : prim);
  } else {
    snprintf(d->primitive, sizeof d->primitive, "%s", prim);
  }
  const lctx_user_frame *at = u && u->raise_at.file[0]    ? &u->raise_at
                              : u && u->call_site.file[0] ? &u->call_site
                                                          : NULL;
  snprintf(d->file, sizeof d->file, "%s", at ? at->file : r->file);
  d->line = at ? at->line : r->line;
  if (defect)
    snprintf(d->message, sizeof d->message,
             "known JAX defect %s: %s at %s:%ld: %s", defect->name, r->cls,
             r->file, r->line, r->message);
  else
    snprintf(d->message, sizeof d->message, "%s: %s", r->cls, r->message);
  raise_fix(d, defect, missing);
  keep(o);
}

size_t lctx_diagnosis_classify(const lctx_sweep_case *c,
                               const lctx_diagnosis_known *known,
                               size_t known_count, lctx_diagnosis *out,
                               size_t cap) {
  out_list o = {out, 0, cap};
  const lctx_export_answer *a = c->multi;
  if (c->count < 2 || !a ||
      (a->status != LCTX_EXPORT_OK && a->status != LCTX_EXPORT_RAISE))
    return 0;
  for (size_t i = 0; i < a->census_count; i++)
    if (lctx_census_unadapted(&a->census[i]) && user_file(a->census[i].file))
      from_census(&o, c, &a->census[i]);
  if (a->status == LCTX_EXPORT_RAISE)
    from_raise(&o, c, known, known_count);
  return o.n;
}

void lctx_diagnosis_text(const lctx_diagnosis *d, char *dst, size_t n) {
  char list[300] = "", rule[1200] = "", call[700] = "";
  size_t at = 0;
  for (size_t i = 0; i < d->platform_count && at < sizeof list; i++)
    at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "",
                           d->platforms[i]);
  if (d->rule.file[0])
    snprintf(rule, sizeof rule, "%srule %s:%ld%s%s%s",
             d->primitive[0] ? ", " : "", d->rule.file, d->rule.line,
             d->rule.function[0] ? " (" : "", d->rule.function,
             d->rule.function[0] ? ")" : "");
  if (d->call_site.file[0])
    snprintf(call, sizeof call, "%scalled at %s:%ld",
             d->primitive[0] || rule[0] ? ", " : "", d->call_site.file,
             d->call_site.line);
  bool paren = d->primitive[0] || rule[0] || call[0];
  snprintf(dst, n, "%s:%ld: %s: %s [%s]: %s%s%s%s%s%s; fix: %s",
           d->file[0] ? d->file : "?", d->line,
           lctx_diagnosis_class_name(d->cls), d->program, list, d->message,
           paren ? " (" : "", d->primitive, rule, call, paren ? ")" : "",
           d->fix);
}

bool lctx_diagnosis_same(const lctx_diagnosis *a, const lctx_diagnosis *b) {
  return a->cls == b->cls && a->line == b->line &&
         strcmp(a->program, b->program) == 0 && strcmp(a->file, b->file) == 0 &&
         strcmp(a->fix, b->fix) == 0;
}
