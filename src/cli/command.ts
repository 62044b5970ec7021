/** One `m` subcommand: its one-line summary for `m --help`, and what it does with its arguments. */
export interface Command {
  summary: string;
  /** Runs the command and resolves to the process exit code (0 success, 1 failure, 2 usage error, or more). */
  run(argv: string[]): Promise<number>;
}
