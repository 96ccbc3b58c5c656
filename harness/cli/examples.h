/*
 * examples.h - the example command line each command's help ends with.
 *
 * Owns the table of examples, apart from the command table (cli.h), so
 * that the option parser (options.h), which prints them, depends on nothing
 * that depends on it.
 */
#ifndef LCTX_CLI_EXAMPLES_H
#define LCTX_CLI_EXAMPLES_H

/// An example command line of `command` (a command's name as typed, or
/// "COMMAND SUBCOMMAND"), printed by its help; NULL when there is none.
const char *lctx_cli_example(const char *command);

#endif /* LCTX_CLI_EXAMPLES_H */
