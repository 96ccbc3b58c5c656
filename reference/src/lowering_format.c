/*
 * lowering_format.c - rendering a lowering run (see lctx/lowering.h): the
 * recorded events, one line each, indented by depth, and a path by
 * platform index as the rules it calls. Reads what lowering_run.c recorded
 * and lowering_paths.c evaluated; the text is what tests and reports show,
 * so its form is part of the interface.
 */
#include "lowering_private.h"

#include "lctx/pyrepr.h"

static void append_rule(const lctx_lowering_registry *registry, int rule,
                        lctx_buf *out) {
  if (lctx_lowering_valid_rule(registry, rule))
    lctx_buf_append_str(out, registry->rules[rule].name);
  else
    lctx_buf_append_cstr(out, "None");
}

static void append_list(lctx_buf *out, const char *label, const lctx_str *list,
                        size_t n) {
  lctx_buf_append_cstr(out, label);
  lctx_pyrepr_str_list(out, list, n);
}

static void format_backend(const lctx_lowering_event *e, lctx_buf *out) {
  lctx_buf_append_cstr(out, e->retried ? "get_backend retry optional="
                                       : "get_backend optional=");
  lctx_buf_append_cstr(out, e->optional ? "True" : "False");
  append_list(out, " module=", e->module_platforms, e->module_platform_count);
  lctx_buf_append_cstr(out, " -> ");
  lctx_buf_append_cstr(out, lctx_module_branch_name(e->backend_branch));
  lctx_buf_append_char(out, ' ');
  switch (e->result_kind) {
  case LCTX_OUTCOME_RAISE:
    lctx_buf_append_cstr(out, lctx_error_class_name(e->error));
    break;
  case LCTX_OUTCOME_CLIENT:
    if (e->origin == LCTX_CLIENT_PINNED) {
      lctx_buf_append_cstr(out, "pinned client ");
      lctx_pyrepr_str(out, e->client_platform);
    } else {
      lctx_buf_append_cstr(out, "client ");
      lctx_pyrepr_str(out, e->client_platform);
      lctx_buf_append_cstr(out, " registration ");
      lctx_buf_append_int(out, e->registration);
    }
    if (e->action_kind == LCTX_ACTION_READ_CLIENT_PLATFORM) {
      lctx_buf_append_cstr(out, " .platform ");
      lctx_pyrepr_str(out, e->client_attr);
    }
    break;
  default:
    lctx_buf_append_cstr(out, "None");
    break;
  }
}

void lctx_lowering_format_events(const lctx_lowering_registry *registry,
                                 const lctx_lowering_result *result,
                                 lctx_buf *out) {
  for (size_t i = 0; i < result->event_count; i++) {
    const lctx_lowering_event *e = &result->events[i];
    for (int d = 0; d < e->depth; d++)
      lctx_buf_append(out, "  ", 2);
    switch (e->kind) {
    case LCTX_EVENT_EQN:
      lctx_buf_append_cstr(out, "eqn ");
      lctx_buf_append_str(out, e->description);
      append_list(out, " module=", e->module_platforms,
                  e->module_platform_count);
      append_list(out, " platforms=", e->platforms, e->platform_count);
      lctx_buf_append_cstr(out, " rules={");
      for (size_t k = 0; k < e->entry_count; k++) {
        if (k > 0)
          lctx_buf_append(out, ", ", 2);
        lctx_buf_append_str(out, e->entries[k]);
        lctx_buf_append(out, ": ", 2);
        append_rule(registry, e->entry_rules[k], out);
      }
      lctx_buf_append_cstr(out, "} default=");
      append_rule(registry, e->rule, out);
      if (e->overridden)
        lctx_buf_append_cstr(out, " override");
      break;
    case LCTX_EVENT_DISPATCH:
      append_list(out, "case entries=", e->platforms, e->platform_count);
      lctx_buf_append_cstr(out, " slots=[");
      for (size_t k = 0; k < e->platform_count; k++) {
        if (k > 0)
          lctx_buf_append(out, ", ", 2);
        lctx_buf_append_int(out, e->slots[k]);
      }
      lctx_buf_append_cstr(out, "] kept=[");
      for (size_t k = 0; k < e->kept_count; k++) {
        if (k > 0)
          lctx_buf_append(out, ", ", 2);
        append_rule(registry, e->kept[k], out);
      }
      lctx_buf_append_char(out, ']');
      break;
    case LCTX_EVENT_BRANCH:
      lctx_buf_append_cstr(out, "branch ");
      lctx_buf_append_int(out, e->branch);
      lctx_buf_append_char(out, ' ');
      append_rule(registry, e->rule, out);
      append_list(out, " platforms=", e->platforms, e->platform_count);
      break;
    case LCTX_EVENT_CALL:
      lctx_buf_append_cstr(out, "call ");
      append_rule(registry, e->rule, out);
      if (e->has_platforms)
        append_list(out, " platforms=", e->platforms, e->platform_count);
      else
        lctx_buf_append_cstr(out, " platforms=None");
      append_list(out, " module=", e->module_platforms,
                  e->module_platform_count);
      if (e->direct)
        lctx_buf_append_cstr(out, " direct");
      break;
    case LCTX_EVENT_BACKEND:
      format_backend(e, out);
      break;
    case LCTX_EVENT_RAISE:
      lctx_buf_append_cstr(out, "raise ");
      lctx_buf_append_cstr(out, lctx_error_class_name(e->error));
      break;
    case LCTX_EVENT_MARKER:
      lctx_buf_append_cstr(out, "marker ");
      append_rule(registry, e->rule, out);
      append_list(out, " platforms=", e->platforms, e->platform_count);
      append_list(out, " module=", e->module_platforms,
                  e->module_platform_count);
      break;
    }
    lctx_buf_append_char(out, '\n');
  }
}

void lctx_lowering_format_path(const lctx_lowering_registry *registry,
                               const lctx_lowering_result *result,
                               const lctx_lowering_path *path, lctx_buf *out) {
  if (!path->determined) {
    lctx_buf_append_char(out, '?');
    return;
  }
  size_t written = 0;
  for (size_t i = 0; i < path->count; i++) {
    const lctx_lowering_event *e = &result->events[path->events[i]];
    if (e->kind != LCTX_EVENT_CALL)
      continue;
    if (written++ > 0)
      lctx_buf_append(out, " > ", 3);
    append_rule(registry, e->rule, out);
  }
}
