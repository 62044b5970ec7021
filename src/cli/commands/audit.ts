import { parseArgs } from 'node:util';
import {
  type AuditEntry,
  type ChainVerdict,
  parseRecordedHead,
  type RecordedHead,
} from '../../../backend/audit/chain';
import type { Command } from '../command';

/** Exit codes of `m audit`: 0 the chain is intact, 1 it is broken or could not be read, 2 usage error. */
export const AUDIT_EXIT = { ok: 0, broken: 1, usage: 2 } as const;

const HELP = `Usage: m audit verify [options]

Checks the hash chain of the audit log of personal data revealed (docs/operators.md#the-audit-log):
every entry present, in order, unchanged, and each head recorded earlier (--head) still in it. Prints the
head (its number and hash) when the chain holds, or the first entry that breaks it. The chain has no key:
record the head it prints somewhere the database's operators cannot write, and pass it with --head on the
next check, which then fails if the log was rewritten or cut since.

  verify   Reads the log of a stopped server's database (server.database_url, else <data_dir>), or with
           --url the log a running server answers at GET /api/audit, as a System Manager whose API key is
           in PLATFORM_API_KEY as <api_key>:<api_secret>, or with --file a copy of the whole log saved
           from GET /api/audit/export.csv (the Audit page's Export CSV, no filters).

Options:
  --data-dir <dir>   State directory (PLATFORM_DATA_DIR, default .platform)
  --config <file>    platform.toml to read (default ./platform.toml when present)
  --url <base>       A running server, e.g. http://127.0.0.1:8000
  --file <csv>       An export of the whole log, e.g. audit-log-2026-11-28.csv
  --head <seq>:<hash>
                     A head recorded earlier (from "head <seq> <hash>"): entry <seq> must still have that
                     hash. Repeatable. In a MACROSERVICE gateway's merged log, <service>/<seq>:<hash>
  -h, --help         This help

Exit codes: 0 intact, 1 broken or unreadable, 2 usage error.`;

/** Pages of a running server's log, in chain order. */
async function* remoteEntries(base: string, authorization: string): AsyncGenerator<AuditEntry> {
  const pageLength = 1000;
  for (let start = 0; ; start += pageLength) {
    const url = `${base.replace(/\/+$/, '')}/api/audit?limit_start=${start}&limit_page_length=${pageLength}`;
    const res = await fetch(url, { headers: { authorization } }).catch((err: Error) => {
      // fetch says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND, ...) is its cause.
      const cause = err.cause as { code?: string; message?: string } | undefined;
      throw new Error(`cannot reach ${base}: ${cause?.code ?? cause?.message ?? err.message}`);
    });
    if (!res.ok) {
      const body = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
      throw new Error(`GET /api/audit: ${res.status} ${body.error?.code ?? ''} ${body.error?.message ?? ''}`);
    }
    const page = (await res.json()) as { data: AuditEntry[] };
    yield* page.data;
    if (page.data.length < pageLength) return;
  }
}

/** The verdict on a stopped server's database (PGlite allows one process: stop the server first). */
async function offlineVerdict(
  dataDir: string | undefined,
  configFile: string | undefined,
  recorded: readonly RecordedHead[],
): Promise<ChainVerdict> {
  const { loadConfig } = await import('../../../backend/config/load-config');
  const { openDatabase } = await import('../../../backend/db/open-database');
  const { AuditLog } = await import('../../../backend/audit/audit-log');
  const { verifyChain } = await import('../../../backend/audit/chain');
  const { claimDataDir, gatewayDirectoryError, requireExistingDatabase, servicesUnder } = await import(
    '../../../backend/data-dir/data-dir'
  );
  const config = loadConfig({ file: configFile, overrides: { 'server.data_dir': dataDir } });
  requireExistingDatabase(config.server.data_dir, config.server.database_url);
  // The embedded database allows one process: a running server's directory is refused (data_dir_locked).
  const owned = config.server.database_url
    ? undefined
    : await claimDataDir(config.server.data_dir, 'm audit verify');
  try {
    const db = await openDatabase({
      dataDir: config.server.data_dir,
      databaseUrl: config.server.database_url,
      optimizeWasm: config.server.pglite_optimize,
    });
    try {
      // Opening the log loads what a crash left in the embedded database's journal into the table first.
      const log = await AuditLog.open(db);
      try {
        const verdict = await verifyChain(log.entries(), recorded);
        // A gateway's own log is always empty: "intact: 0 entries" there would vouch for no service's log.
        const services = verdict.entries === 0 ? servicesUnder(config.server.data_dir) : [];
        if (services.length > 0) {
          throw gatewayDirectoryError(
            config.server.data_dir,
            services,
            'audit log',
            'check each with --data-dir <dir>, or all of them through the gateway with --url',
          );
        }
        return verdict;
      } finally {
        await log.close();
      }
    } finally {
      await db.close();
    }
  } finally {
    owned?.release();
  }
}

/**
 * The verdict on an export of the log (`GET /api/audit/export.csv`): its chain checked as the server's is.
 * A file that starts past the first entry (an export filtered or cut) cannot show that nothing is missing
 * before it, and says so rather than report a missing entry.
 */
async function fileVerdict(path: string, recorded: readonly RecordedHead[]): Promise<ChainVerdict> {
  const { readFile } = await import('node:fs/promises');
  const { entriesFromCsv } = await import('../../../backend/audit/audit-csv');
  const { verifyChain } = await import('../../../backend/audit/chain');
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new Error(`cannot read ${path}: ${err.code ?? err.message}`);
  });
  const entries = entriesFromCsv(text);
  // Sorted by chain: each chain's first entry is where its run in the file starts.
  const firsts = entries.filter((e, i) => i === 0 || entries[i - 1]!.service !== e.service);
  const cut = firsts.find((e) => e.seq !== 1);
  if (cut) {
    throw new Error(
      `${path} starts at entry ${cut.seq}${cut.service ? ` of ${cut.service}` : ''}: only an export of the whole log (no filters) can be checked`,
    );
  }
  const verdict = await verifyChain(entries, recorded);
  // A filtered export whose first entry happens to be entry 1 (the first reveal of the record filtered on)
  // shows its first gap as a missing entry; the file cannot tell a filter from a removal, so say both.
  if (!verdict.ok && / is missing \(the next one is \d+\)$/.test(verdict.problem)) {
    return {
      ...verdict,
      problem: `${verdict.problem}; if ${path} is a filtered export (doctype, record, user, from), it cannot be checked: only an export of the whole log (no filters) can`,
    };
  }
  return verdict;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      config: { type: 'string' },
      url: { type: 'string' },
      file: { type: 'string' },
      head: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** `m audit verify`: checks the audit log's hash chain offline or against a running server. */
export const auditCommand: Command = {
  async run(argv) {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(argv);
    } catch (err) {
      console.error(`m audit: ${(err as Error).message}\n\n${HELP}`);
      return AUDIT_EXIT.usage;
    }
    const { values, positionals } = parsed;
    if (values.help) {
      console.log(HELP);
      return AUDIT_EXIT.ok;
    }
    if (positionals.length !== 1 || positionals[0] !== 'verify') {
      console.error(`m audit: expected "verify"\n\n${HELP}`);
      return AUDIT_EXIT.usage;
    }
    const recorded: RecordedHead[] = [];
    for (const text of values.head ?? []) {
      const head = parseRecordedHead(text);
      if (!head) {
        console.error(`m audit: --head ${text}: expected <seq>:<hash> or <service>/<seq>:<hash>\n\n${HELP}`);
        return AUDIT_EXIT.usage;
      }
      recorded.push(head);
    }
    if (values.url && values.file) {
      console.error(`m audit: --url and --file name two logs: give one\n\n${HELP}`);
      return AUDIT_EXIT.usage;
    }
    let verdict: ChainVerdict;
    try {
      if (values.file) {
        verdict = await fileVerdict(values.file, recorded);
      } else if (values.url) {
        const key = process.env.PLATFORM_API_KEY;
        if (!key?.includes(':')) {
          console.error('m audit: PLATFORM_API_KEY must hold <api_key>:<api_secret> with --url');
          return AUDIT_EXIT.usage;
        }
        const { verifyChain } = await import('../../../backend/audit/chain');
        verdict = await verifyChain(remoteEntries(values.url, `token ${key}`), recorded);
      } else {
        verdict = await offlineVerdict(values['data-dir'], values.config, recorded);
      }
    } catch (err) {
      console.error(`m audit: ${(err as Error).message}`);
      return AUDIT_EXIT.broken;
    }
    if (!verdict.ok && verdict.headForm) {
      // Not a verdict on the log: the head given does not fit it, so nothing was compared.
      console.error(`m audit: --head: ${verdict.problem}`);
      return AUDIT_EXIT.usage;
    }
    if (!verdict.ok) {
      console.error(`audit log BROKEN at entry ${verdict.seq}: ${verdict.problem}`);
      return AUDIT_EXIT.broken;
    }
    console.log(
      `audit log intact: ${verdict.entries} entries; head ${verdict.head.seq} ${verdict.head.hash}`,
    );
    // A merged log holds one chain per service: each has its head to record.
    for (const [service, head] of Object.entries(verdict.heads ?? {})) {
      console.log(`head ${service}/${head.seq}:${head.hash}`);
    }
    return AUDIT_EXIT.ok;
  },
};
