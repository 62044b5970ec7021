/**
 * One `m` subcommand: what it does with its arguments. Its one-line summary for `m --help` lives in the
 * table of `main.ts`, which lists commands without loading them.
 */
export interface Command {
  /** Runs the command and resolves to the process exit code (0 success, 1 failure, 2 usage error, or more). */
  run(argv: string[]): Promise<number>;
}
