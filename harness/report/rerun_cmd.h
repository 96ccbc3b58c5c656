/*
 * rerun_cmd.h - how a rerun line starts and where it writes.
 *
 * Owns the choices every rerun line (of `lctx conform` and `lctx sweep`)
 * makes, and its quoting: the program
 * it names is the lctx that is running (its path from /proc/self/exe, else
 * argv[0] made absolute at start-up), so that the line runs when pasted
 * into a shell whose PATH has no lctx; and its report folder is REPORT_DIR
 * /rerun, except that a run whose report folder is already a `rerun`
 * folder reruns into that same folder (never rerun/rerun).
 */
#ifndef LCTX_HARNESS_RERUN_CMD_H
#define LCTX_HARNESS_RERUN_CMD_H

#include <stdbool.h>
#include <stddef.h>

/// Keeps `argv0` (the program's argv[0]) made absolute against the working
/// folder of now (or looked up in PATH when it has no slash), for
/// lctx_rerun_program when /proc/self/exe cannot be read. Called once, at
/// start-up, before the working folder changes.
void lctx_rerun_note_argv0(const char *argv0);

/// The path of the running lctx into `buf` (`n` bytes): /proc/self/exe
/// when it names a file that is there, else the argv[0] kept by
/// lctx_rerun_note_argv0, else "lctx". False (and "lctx") when the path
/// does not fit.
bool lctx_rerun_program(char *buf, size_t n);

/// Appends `text` to the string in `buf` (`n` bytes) as one POSIX shell
/// word after a space: as it is when it holds only safe characters, else
/// in single quotes (a quote in it as '"'"', so that the word holds no
/// backslash for lctx_esc to double). False, `buf` left as it was, when it
/// does not fit.
bool lctx_rerun_shell_word(char *buf, size_t n, const char *text);

/// Starts a rerun line in `buf` (`n` bytes): `program` (lctx_rerun_program)
/// and `command` (conform, sweep), each a shell word. False when it does
/// not fit.
bool lctx_rerun_start(char *buf, size_t n, const char *program,
                      const char *command);

/// The report folder of the rerun lines of a run writing into
/// `report_dir`: REPORT_DIR/rerun, or REPORT_DIR itself when its last name
/// is `rerun` (trailing slashes aside). False when it does not fit.
bool lctx_rerun_dir(const char *report_dir, char *buf, size_t n);

#endif /* LCTX_HARNESS_RERUN_CMD_H */
