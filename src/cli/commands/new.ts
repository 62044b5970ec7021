import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import type { Command } from '../command';
import { ScaffoldError, scaffoldApp } from './new-app';

const HELP = `Usage: m new app <name> [--dir <path>] [--platform <spec>]

Writes a standalone app for the Desk into a new folder: an app module with the DocType <name>.Note and an
RPC method, a UI remote (a Note form and a home widget), a test and a README.

Options:
  --dir <path>        Folder to create (default ./<name>); must not exist or be empty
  --platform <spec>   How the app depends on the platform (default file:<this platform's folder>)
  -h, --help          This help

Exit codes: 0 written, 1 refused (invalid name, name of an installed app, folder not empty), 2 usage error.`;

/** `m new app <name>`: scaffolds a standalone app. */
export const newCommand: Command = {
  async run(argv) {
    let values: { dir?: string; platform?: string; help?: boolean };
    let positionals: string[];
    try {
      ({ values, positionals } = parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
          dir: { type: 'string' },
          platform: { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
      }));
    } catch (err) {
      console.error(`m new: ${(err as Error).message}\n\n${HELP}`);
      return 2;
    }
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    const [kind, name, ...extra] = positionals;
    if (kind !== 'app' || !name || extra.length > 0) {
      console.error(`m new: expected "m new app <name>"\n\n${HELP}`);
      return 2;
    }
    const dir = values.dir ?? join(process.cwd(), name);
    try {
      const files = scaffoldApp({ name, dir, platform: values.platform });
      const shown = relative(process.cwd(), dir) || '.';
      console.log(`m new: wrote ${files.length} files to ${shown}`);
      console.log(`\nNext:\n  cd ${shown}\n  npm install\n  npm test\n  npm start`);
      return 0;
    } catch (err) {
      if (err instanceof ScaffoldError) {
        console.error(`m new: ${err.message} Nothing was written.`);
        return 1;
      }
      throw err;
    }
  },
};
