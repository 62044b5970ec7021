import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ChannelState, HistoryEntry, ReleasePin, ReleaseSummary } from '../../../backend/releases/model';
import { createHttpClient, type HttpClient } from '../../sdk/http';
import { SecurityClient } from '../../sdk/security';
import type { Command } from '../command';

/** Exit codes of `m release`: 0 done, 1 refused or failed, 2 usage error. */
export const RELEASE_EXIT = { ok: 0, failed: 1, usage: 2 } as const;

const HELP = `Usage: m release <publish | list | promote | rollback | canary | pin> [options]

Publishes a UI remote's build as an immutable release and moves the channels that decide which release
each user gets (docs/mfe-teams.md#releases).

  publish [--dir <app folder>]                    Publishes the app folder's static/mfe/ build (default .)
  list <service>                                  Releases, the live one, the canary, pins and history
  promote <service> <version> [--force]           Makes a release live (through the contract gate)
  rollback <service> [--force]                    Makes the previous live release live again
  canary <service> <version> --percent <n>        Sends a stable n% of users to a release (0 ends it)
  pin <service> <version | none> --user <u>       Pins a release for one user (none removes the pin)
  pin <service> <version | none> --role <r>       ... or for every holder of a role

The server is --url (or PLATFORM_URL, default http://127.0.0.1:8000); the caller is a System Manager whose
API key is in PLATFORM_API_KEY as <api_key>:<api_secret>.

Options:
  --dir <folder>     publish: the app folder (package.json, app module, static/mfe/)
  --force            promote, rollback, canary: promote even when the contract gate refuses (recorded)
  --percent <n>      canary: the share of users, 0 to 100
  --user <name>      pin: the user
  --role <role>      pin: the role
  --url <base>       The running server
  --json             list: print JSON
  -h, --help         This help

Exit codes: 0 done, 1 refused or failed, 2 usage error.`;

const ACTIONS = ['publish', 'list', 'promote', 'rollback', 'canary', 'pin'] as const;

/** The parsed command line of `m release`. */
export interface ReleaseFlags {
  action: (typeof ACTIONS)[number];
  service?: string;
  version?: string;
  dir: string;
  force: boolean;
  percent?: number;
  user?: string;
  role?: string;
  url: string;
  json: boolean;
}

/** Parses `m release` arguments; throws `Error` with a usage message. */
export function parseReleaseFlags(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): ReleaseFlags | 'help' {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      dir: { type: 'string' },
      force: { type: 'boolean', default: false },
      percent: { type: 'string' },
      user: { type: 'string' },
      role: { type: 'string' },
      url: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return 'help';
  const [action, service, version, ...rest] = positionals;
  if (!ACTIONS.includes(action as ReleaseFlags['action'])) {
    throw new Error(`expected one of ${ACTIONS.join(', ')}`);
  }
  const needs: Record<ReleaseFlags['action'], number> = {
    publish: 0,
    list: 1,
    rollback: 1,
    promote: 2,
    canary: 2,
    pin: 2,
  };
  const given = [service, version].filter((p) => p !== undefined).length + rest.length;
  if (given !== needs[action as ReleaseFlags['action']]) {
    throw new Error(`"${action}" takes ${needs[action as ReleaseFlags['action']]} argument(s), got ${given}`);
  }
  let percent: number | undefined;
  if (action === 'canary') {
    percent = Number(values.percent);
    if (values.percent === undefined || !Number.isInteger(percent) || percent < 0 || percent > 100) {
      throw new Error('"canary" needs --percent <0..100>');
    }
  }
  if (action === 'pin' && (values.user === undefined) === (values.role === undefined)) {
    throw new Error('"pin" needs either --user <name> or --role <role>');
  }
  return {
    action: action as ReleaseFlags['action'],
    service,
    version,
    dir: resolve(values.dir ?? '.'),
    force: values.force ?? false,
    percent,
    user: values.user,
    role: values.role,
    url: (values.url ?? env.PLATFORM_URL ?? 'http://127.0.0.1:8000').replace(/\/+$/, ''),
    json: values.json ?? false,
  };
}

/** Raw bytes per upload request: base64 makes them 4/3 larger, under the server's 1 MiB body limit. */
const UPLOAD_BATCH_BYTES = 600 * 1024;

/** The releases API of a running server, through the SDK's HTTP client (JWE wherever the server asks). */
class ReleaseApi {
  readonly #http: HttpClient;
  constructor(
    baseUrl: string,
    private readonly authorization: string,
  ) {
    const security = new SecurityClient({ baseUrl, fetch });
    this.#http = createHttpClient({ baseUrl, fetch, security });
  }

  async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const answer = await this.#http.fetch<{ data: T }>(`/api/releases/${path}`, {
      method,
      ...(body === undefined ? {} : { body }),
      headers: { authorization: this.authorization },
    });
    return answer.data;
  }
}

interface StageAnswer {
  version: string;
  state: string;
  missing: string[];
}

async function publish(api: ReleaseApi, dir: string): Promise<void> {
  const { readBuildFolder } = await import('../../../backend/releases/build-folder');
  const build = await readBuildFolder(dir);
  let answer = await api.call<StageAnswer>('POST', `${build.service}/publish`, {
    packageVersion: build.packageVersion,
    files: build.files.map(({ path, sha384, size }) => ({ path, sha384, size })),
    mfManifest: build.mfManifest ?? undefined,
    fingerprint: build.fingerprint,
  });
  const byPath = new Map(build.files.map((f) => [f.path, f]));
  const upload = (files: Array<{ path: string; data: string; offset?: number }>) =>
    api.call<StageAnswer>('POST', `${build.service}/upload`, { version: answer.version, files });
  while (answer.missing.length > 0) {
    const before = answer.missing.length;
    const first = byPath.get(answer.missing[0]!)!;
    if (first.size > UPLOAD_BATCH_BYTES) {
      // Too large for one request: in parts, in order; the last one completes the file.
      for (let offset = 0; offset < first.size; offset += UPLOAD_BATCH_BYTES) {
        const part = first.bytes.subarray(offset, offset + UPLOAD_BATCH_BYTES);
        answer = await upload([{ path: first.path, data: Buffer.from(part).toString('base64'), offset }]);
      }
    } else {
      let size = 0;
      const batch: Array<{ path: string; data: string }> = [];
      for (const path of answer.missing) {
        const file = byPath.get(path)!;
        if (file.size > UPLOAD_BATCH_BYTES || size + file.size > UPLOAD_BATCH_BYTES) continue;
        batch.push({ path, data: Buffer.from(file.bytes).toString('base64') });
        size += file.size;
      }
      answer = await upload(batch);
    }
    if (answer.missing.length >= before) throw new Error('the server stored none of the uploaded files');
  }
  console.log(`published ${build.service} ${answer.version} (${build.files.length} files)`);
  console.log(`promote it with: m release promote ${build.service} ${answer.version}`);
}

function describeChannel(c: ChannelState): string {
  const canary = c.canary ? `, canary ${c.canary.version} for ${c.canary.percent}% of users` : '';
  return `${c.service}: live ${c.live ?? '(none: the static/mfe build)'}${canary}`;
}

function printList(data: {
  channel: ChannelState;
  pins: ReleasePin[];
  releases: ReleaseSummary[];
  history: HistoryEntry[];
}): void {
  console.log(describeChannel(data.channel));
  console.log('\nReleases (newest first):');
  for (const r of data.releases) {
    const when = r.publishedAt ? new Date(r.publishedAt).toISOString() : 'uploading';
    const built = r.buildVersion ? `\tbuilt as ${r.buildVersion}` : '';
    console.log(
      `  ${r.version}\t${when}\t${r.publisher}\t${r.fileCount} files${built}\t${r.channels.join(', ')}`,
    );
  }
  if (data.pins.length > 0) {
    console.log('\nPins:');
    for (const p of data.pins) console.log(`  ${p.kind} ${p.subject} -> ${p.version} (by ${p.actor})`);
  }
  console.log('\nHistory (newest first):');
  for (const h of data.history) {
    const forced = h.forced ? ' FORCED past the contract gate' : '';
    const from =
      h.previous && (h.action === 'promote' || h.action === 'rollback') ? ` (was ${h.previous})` : '';
    console.log(
      `  ${new Date(h.at).toISOString()}\t${h.actor}\t${h.action} ${h.version ?? ''}${from}${forced}`,
    );
  }
}

/** Runs one parsed `m release` action against the server; resolves to the exit code. */
export async function runRelease(flags: ReleaseFlags, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const key = env.PLATFORM_API_KEY;
  if (!key?.includes(':')) {
    console.error('m release: PLATFORM_API_KEY must hold <api_key>:<api_secret> of a System Manager');
    return RELEASE_EXIT.usage;
  }
  const api = new ReleaseApi(flags.url, `token ${key}`);
  const service = flags.service ?? '';
  const version = flags.version === 'none' ? null : (flags.version ?? null);
  try {
    switch (flags.action) {
      case 'publish':
        await publish(api, flags.dir);
        break;
      case 'list': {
        const data = await api.call<Parameters<typeof printList>[0]>('GET', service);
        if (flags.json) console.log(JSON.stringify(data, null, 2));
        else printList(data);
        break;
      }
      case 'promote':
      case 'rollback':
      case 'canary': {
        const body =
          flags.action === 'promote'
            ? { version, force: flags.force }
            : flags.action === 'rollback'
              ? { force: flags.force }
              : { version, percent: flags.percent, force: flags.force };
        console.log(
          describeChannel(await api.call<ChannelState>('POST', `${service}/${flags.action}`, body)),
        );
        break;
      }
      case 'pin': {
        const target = flags.user !== undefined ? { user: flags.user } : { role: flags.role };
        const who = flags.user !== undefined ? `user ${flags.user}` : `role ${flags.role}`;
        await api.call<ChannelState>('POST', `${service}/pin`, { version, ...target });
        console.log(
          version ? `${service}: ${who} pinned to ${version}` : `${service}: pin of ${who} removed`,
        );
        break;
      }
    }
    return RELEASE_EXIT.ok;
  } catch (err) {
    const e = err as {
      code?: string;
      message?: string;
      fields?: Array<{ field: string; code: string; message: string }>;
    };
    console.error(`m release: ${e.code ? `${e.code}: ` : ''}${e.message ?? String(err)}`);
    for (const f of e.fields ?? []) console.error(`  ${f.field}: ${f.code}: ${f.message}`);
    if (e.code === 'contract_incompatible')
      console.error('Use --force to promote anyway (the history records it).');
    return RELEASE_EXIT.failed;
  }
}

/** `m release`: publish remote builds and move their channels on a running server. */
export const releaseCommand: Command = {
  async run(argv) {
    let flags: ReleaseFlags | 'help';
    try {
      flags = parseReleaseFlags(argv);
    } catch (err) {
      console.error(`m release: ${(err as Error).message}\n\n${HELP}`);
      return RELEASE_EXIT.usage;
    }
    if (flags === 'help') {
      console.log(HELP);
      return RELEASE_EXIT.ok;
    }
    return runRelease(flags);
  },
};
