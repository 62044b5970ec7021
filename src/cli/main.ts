/**
 * The `m` command line: a table of subcommands, each in its own module under `commands/`, loaded on use so
 * `m benchmark` does not pay for the backend and `m serve` does not pay for the harness.
 *
 * Exit codes shared by every subcommand: 0 success, 1 failure, 2 usage error. Subcommands document more.
 */
import type { Command } from './command';

const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  serve: {
    summary: 'Start the backend and the Desk (MONOLITH by default).',
    load: async () => (await import('./commands/serve')).serveCommand,
  },
  benchmark: {
    summary: 'Run a load test described by a YAML file (m benchmark --config load.yaml).',
    load: async () => (await import('./commands/benchmark')).benchmarkCommand,
  },
  new: {
    summary: 'Scaffold a standalone app with a DocType and a UI remote (m new app <name>).',
    load: async () => (await import('./commands/new')).newCommand,
  },
  app: {
    summary: 'Build, develop and start the app in the current folder (m app build | dev | start).',
    load: async () => (await import('./commands/app')).appCommand,
  },
  types: {
    summary: 'Write TypeScript types for every DocType a gateway knows (m types --gateway <url>).',
    load: async () => (await import('./commands/types')).typesCommand,
  },
  keys: {
    summary:
      'Manage the payload-encryption keys and rewrap personal data at rest (m keys list | rotate | rewrap).',
    load: async () => (await import('./commands/keys')).keysCommand,
  },
  audit: {
    summary: 'Check the audit log of personal data revealed (m audit verify).',
    load: async () => (await import('./commands/audit')).auditCommand,
  },
  user: {
    summary: 'Manage users and roles (m user add | list | roles | passwd | disable | enable).',
    load: async () => (await import('./commands/user')).userCommand,
  },
  release: {
    summary: 'Publish, promote, canary, pin and roll back UI remote releases (m release --help).',
    load: async () => (await import('./commands/release')).releaseCommand,
  },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  m ${name.padEnd(10)} ${c.summary}`);
  return `Usage: m <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun "m <command> --help" for a command's options.`;
}

/** Runs the CLI with the given arguments and resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name ? 0 : 2;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    console.error(`m: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  const command = await entry.load();
  return command.run(rest);
}
