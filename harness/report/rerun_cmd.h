/*
 * rerun_cmd.h - how a reproduction line starts, where it writes, and its
 * quoting.
 *
 * Owns the choices every line lctx writes for a person to paste (the rerun
 * lines of `lctx conform` and `lctx sweep`, a campaign finding's
 * reproduce.txt, the reproduce lines of `lctx mutants`) makes, and its
 * quoting (the one quoting function, lctx_rerun_shell_word): a line starts
 * with `cd DIR &&` (the working folder lctx ran in, so that every relative
 * path the line names holds from any folder), then NAME=VALUE for each
 * variable of the environment the command reads (lctx_rerun_lctx_env,
 * lctx_rerun_target_env) that is set, so that the line holds in an empty
 * environment (`env -i`); the program it names is the lctx that is running
 * (its path from /proc/self/exe, else argv[0] made absolute at start-up),
 * so that the line runs when pasted into a shell whose PATH has no lctx;
 * and its report folder is REPORT_DIR/rerun, except that a run whose report
 * folder is already a `rerun` folder reruns into that same folder (never
 * rerun/rerun).
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

/// The variables of the environment lctx itself reads that change what a
/// command does (its data, isolation, Python); NULL-ended.
extern const char *const lctx_rerun_lctx_env[];

/// The variables a fuzz target's check reads (fuzz_differential's
/// LCTX_DIFF_PLUGIN, fuzz_lowering's LCTX_FUZZ_LOWERING_RECYCLE), in an
/// engine build, a replay driver or `lctx replay` alike; NULL-ended.
extern const char *const lctx_rerun_target_env[];

/// Appends `NAME=VALUE` (after a space unless `buf` is empty), VALUE one
/// shell word, to `buf` (`n` bytes): a shell assignment before a command.
/// False, `buf` left as it was, when it does not fit.
bool lctx_rerun_setting(char *buf, size_t n, const char *name,
                        const char *value);

/// lctx_rerun_setting of the variable `name` of the environment, its value
/// made absolute when it is a relative path (holds a '/'); nothing when it
/// is unset or empty. False when it does not fit.
bool lctx_rerun_setting_of(char *buf, size_t n, const char *name);

/// Starts a line in `buf` (`n` bytes): `cd DIR &&` (the working folder of
/// now; left out when it cannot be read), then lctx_rerun_setting_of each
/// of `names` (NULL-ended, may be NULL).
/// False when it does not fit.
bool lctx_rerun_begin(char *buf, size_t n, const char *const *names);

/// Starts a rerun line in `buf` (`n` bytes): lctx_rerun_begin with
/// lctx_rerun_lctx_env, then `program` (lctx_rerun_program) and `command`
/// (conform, sweep), each a shell word. False when it does not fit.
bool lctx_rerun_start(char *buf, size_t n, const char *program,
                      const char *command);

/// `path` made absolute against the working folder of now (as it is when
/// it starts with '/'; a leading "./" dropped) into `buf` (`n` bytes).
/// False when the working folder cannot be read or it does not fit.
bool lctx_rerun_absolute(const char *path, char *buf, size_t n);

/// The report folder of the rerun lines of a run writing into
/// `report_dir`: REPORT_DIR/rerun, or REPORT_DIR itself when its last name
/// is `rerun` (trailing slashes aside). False when it does not fit.
bool lctx_rerun_dir(const char *report_dir, char *buf, size_t n);

#endif /* LCTX_HARNESS_RERUN_CMD_H */
