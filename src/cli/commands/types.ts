import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Command } from '../command';
import { fetchTypesInput, type TypesCredentials, TypesError } from './types-fetch';
import { renderTypes } from './types-generate';
import { remoteModuleDeclarations } from './types-remotes';

const HELP = `Usage: m types [--gateway <url>] [--out <file>] [--user <name>] [--password-env <VAR>]

Writes TypeScript types for every DocType a gateway knows (records, create and update bodies), the kwargs
and return type of every RPC method, and the modules each UI remote exposes (from its mf-manifest.json),
from discovery, each service's metadata and OpenAPI document. The remotes' declare module '<service>/<module>'
declarations go to a companion file beside --out (desk-types.remotes.d.ts for desk-types.d.ts), which the
main file references; with --out - only the main file is printed.

Options:
  --gateway <url>        The gateway (default http://127.0.0.1:8000, or PLATFORM_GATEWAY_URL)
  --out <file>           Where to write (default desk-types.d.ts); "-" prints to stdout
  --user <name>          User to sign in as (default Administrator)
  --password-env <VAR>   Variable holding that user's password (default PLATFORM_ADMIN_PASSWORD)
  -h, --help             This help

With PLATFORM_API_KEY set (key:secret) the API key is used instead of signing in.
Exit codes: 0 written, 1 failed (gateway unreachable, sign-in refused), 2 usage error.`;

/** `desk-types.d.ts` -> `desk-types.remotes.d.ts`: the file of the remotes' ambient module declarations. */
function companionName(out: string): string {
  return `${basename(out).replace(/(\.d)?\.[cm]?ts$/, '')}.remotes.d.ts`;
}

/** `m types`: TypeScript types for every DocType a gateway knows. */
export const typesCommand: Command = {
  async run(argv) {
    let values: { gateway?: string; out?: string; user?: string; 'password-env'?: string; help?: boolean };
    try {
      ({ values } = parseArgs({
        args: argv,
        options: {
          gateway: { type: 'string' },
          out: { type: 'string' },
          user: { type: 'string' },
          'password-env': { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
      }));
    } catch (err) {
      console.error(`m types: ${(err as Error).message}\n\n${HELP}`);
      return 2;
    }
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    const gateway = values.gateway ?? process.env.PLATFORM_GATEWAY_URL ?? 'http://127.0.0.1:8000';
    const passwordEnv = values['password-env'] ?? 'PLATFORM_ADMIN_PASSWORD';
    let credentials: TypesCredentials;
    if (process.env.PLATFORM_API_KEY) credentials = { apiKey: process.env.PLATFORM_API_KEY };
    else if (process.env[passwordEnv]) {
      credentials = { user: values.user ?? 'Administrator', password: process.env[passwordEnv]! };
    } else {
      console.error(
        `m types: set ${passwordEnv} (the password of ${values.user ?? 'Administrator'}) or PLATFORM_API_KEY.`,
      );
      return 2;
    }
    try {
      const input = await fetchTypesInput(gateway, credentials);
      if (values.out === '-') {
        process.stdout.write(renderTypes(input));
        return 0;
      }
      const declarations = remoteModuleDeclarations(input.gateway, input.remotes);
      const out = resolve(values.out ?? 'desk-types.d.ts');
      const companion = join(dirname(out), companionName(out));
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, renderTypes(input, declarations ? basename(companion) : undefined));
      if (declarations) writeFileSync(companion, declarations);
      const count = input.services.reduce((n, s) => n + s.doctypes.length, 0);
      const modules = Object.values(input.remotes).reduce((n, r) => n + r.exposes.length, 0);
      console.log(
        `m types: ${count} DocTypes, ${Object.keys(input.methods).length} RPC methods -> ${out}` +
          (declarations ? `; ${modules} remote modules -> ${companion}` : ''),
      );
      return 0;
    } catch (err) {
      if (err instanceof TypesError) {
        console.error(`m types: ${err.message} (${err.code})`);
        return 1;
      }
      throw err;
    }
  },
};
