import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { NatsBus } from '../../../backend/bus/nats-bus';
import { loadConfig } from '../../../backend/config/load-config';
import type { PlatformConfig } from '../../../backend/config/schema';
import { serviceDataDir } from '../../../backend/data-dir/data-dir';
import { SERVICE_NAME_PATTERN } from '../../../backend/gateway/manifests/manifest-schema';
import { readKeyRing, rotateKeyDir } from '../../../backend/security/keys/key-dir';
import {
  type KeyEncryptionKey,
  keyEncryptionKeyFromEnv,
} from '../../../backend/security/keys/key-encryption-key';
import {
  KEY_RING_BUCKET,
  KEY_RING_KEY,
  KvKeyStore,
  type SharedKeyRing,
} from '../../../backend/security/keys/kv-key-store';
import { serviceKidPrefix } from '../../protocol';
import type { Command } from '../command';

/** Exit codes of `m keys`: 0 done, 1 the operation failed, 2 usage error, 78 invalid configuration. */
export const KEYS_EXIT = { ok: 0, failed: 1, usage: 2, config: 78 } as const;

const HELP = `Usage: m keys <list | rotate | rewrap> [options]

Manages the platform's keys: the payload-encryption keys in <data_dir>/keys (RSA-OAEP-256, 2048 bits),
and (rewrap) the key-encryption key of personal data at rest.

  list     Lists the keys: kid, created, retired, and whether each still decrypts.
  rotate   Adds a new active key. The previous key keeps decrypting for
           security.payload_encryption.key_grace_seconds; keys past their grace period are deleted.
           A running server picks the new key up within 5 seconds (or at once, for a JWE naming it).
           In MACROSERVICE mode (PLATFORM_MODE) with PLATFORM_KEY_ENCRYPTION_KEY set, both act on
           the key ring the gateways share in NATS KV (nats.url / PLATFORM_NATS_URL).
           With --app <name>, both act on that MACROSERVICE service's own key ring,
           <data_dir>/services/<name>/keys (kids svc:<name>:...); the running service publishes a
           new key with its next heartbeat and the gateways list it in their JWKS.
  rewrap   Re-encrypts personal data at rest under a new key-encryption key ("m keys rewrap --help").

Options:
  --data-dir <dir>   State directory (PLATFORM_DATA_DIR, default .platform)
  --app <name>       The keys of that MACROSERVICE service (rewrap: its records, <data_dir>/services/<name>)
  --config <file>    platform.toml to read (default ./platform.toml when present)
  --json             list: print JSON
  --batch <n>        rewrap: records per batch (default 100)
  -h, --help         This help

Exit codes: 0 done, 1 failed, 2 usage error, 78 invalid configuration.`;

const REWRAP_HELP = `Usage: m keys rewrap [--data-dir <dir>] [--app <name>] [--config <file>] [--batch <n>]

Re-encrypts personal data at rest under the current key-encryption key: after a rotation, the values the
previous key wrapped; and values stored in clear before encryption at rest existed.

  PLATFORM_RECORDS_KEY_ENCRYPTION_KEY (or _FILE)            the new key, which values are moved to
  PLATFORM_RECORDS_PREVIOUS_KEY_ENCRYPTION_KEY (or _FILE)   the old key, which opens the values it wrapped;
                                                            _FILE may name a generated <data_dir>/keys/records.kek

A previous key without a new one is refused: the new key is never one generated on the spot. Without
either, the current key is the server's (the generated file). Records are rewritten in batches (one
transaction each), printing "<DocType>: <n> checked, <n> rewrapped" after each; killed or interrupted, run
it again and it resumes. On the embedded database the server must be stopped; on PostgreSQL it runs beside
the servers, which must all hold both keys first (docs/operators.md#rotating-the-key-encryption-key).
In MACROSERVICE each service holding personal data has its own records and key: rewrap each with --app.

Options:
  --data-dir <dir>   State directory (PLATFORM_DATA_DIR, default .platform)
  --app <name>       A MACROSERVICE service's records, in <data_dir>/services/<name> (its generated key
                     is <data_dir>/services/<name>/keys/records.kek)
  --config <file>    platform.toml to read (default ./platform.toml when present)
  --batch <n>        Records per batch (default 100)
  -h, --help         This help

Exit codes: 0 done, 1 failed, 2 usage error, 78 invalid configuration (a key missing or not the one the
data was written with).`;

/** `m keys list | rotate`: the payload-encryption key ring. */
export const keysCommand: Command = {
  async run(argv) {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(argv);
    } catch (err) {
      console.error(`m keys: ${(err as Error).message}\n\n${HELP}`);
      return KEYS_EXIT.usage;
    }
    const { values, positionals } = parsed;
    if (values.help) {
      console.log(positionals[0] === 'rewrap' ? REWRAP_HELP : HELP);
      return KEYS_EXIT.ok;
    }
    const action = positionals[0];
    if ((action !== 'list' && action !== 'rotate' && action !== 'rewrap') || positionals.length > 1) {
      console.error(`m keys: expected "list", "rotate" or "rewrap"\n\n${HELP}`);
      return KEYS_EXIT.usage;
    }
    const app = values.app;
    if (app !== undefined && !SERVICE_NAME_PATTERN.test(app)) {
      console.error(`m keys: --app takes a service name\n\n${HELP}`);
      return KEYS_EXIT.usage;
    }
    // A service's own ring (docs/security.md#encrypted-to-the-owning-service): files in its data directory,
    // published under kids naming it.
    const shown = (kid: string) => (app === undefined ? kid : `${serviceKidPrefix(app)}${kid}`);
    let dir: string;
    let graceMs: number;
    let config: PlatformConfig;
    try {
      config = loadConfig({
        file: values.config,
        overrides: { 'server.data_dir': values['data-dir'] },
        warn: (message) => console.error(`m keys: warning: ${message}`),
      });
      dir =
        app === undefined
          ? join(resolve(config.server.data_dir), 'keys')
          : join(serviceDataDir(resolve(config.server.data_dir), app), 'keys');
      graceMs = config.security.payload_encryption.key_grace_seconds * 1000;
    } catch (err) {
      console.error(`m keys: ${(err as Error).message}`);
      return KEYS_EXIT.config;
    }
    if (action === 'rewrap') {
      // A MACROSERVICE service keeps its records, and its generated key-encryption key, in a directory of
      // its own: rewrapping it is rewrapping that directory, as the service itself opens it.
      const own =
        app === undefined
          ? config
          : {
              ...config,
              server: { ...config.server, data_dir: serviceDataDir(config.server.data_dir, app) },
            };
      return rewrap(own, Number(values.batch ?? 100));
    }
    const kek =
      config.mode === 'macroservice' && app === undefined ? keyEncryptionKeyFromEnv(process.env) : undefined;
    if (kek) {
      try {
        return await sharedRing(config, kek, action, values.json ?? false);
      } catch (err) {
        console.error(`m keys ${action}: ${(err as Error).message}`);
        return KEYS_EXIT.failed;
      }
    }
    try {
      if (action === 'rotate') {
        const kid = await rotateKeyDir(dir, { graceMs });
        console.log(`new active key ${shown(kid)} in ${dir}`);
        return KEYS_EXIT.ok;
      }
      const ring = await readKeyRing(dir);
      const now = Date.now();
      const rows = ring.keys.map((k) => {
        const until = k.retired_at ? Date.parse(k.retired_at) + graceMs : undefined;
        const status =
          until === undefined
            ? 'active'
            : until > now
              ? `retired, decrypts until ${new Date(until).toISOString()}`
              : 'expired';
        return { ...k, kid: shown(k.kid), status };
      });
      if (values.json) console.log(JSON.stringify({ dir, keys: rows }, null, 2));
      else if (rows.length === 0) console.log(`no keys in ${dir} (the server creates one on first start)`);
      else for (const r of rows) console.log(`${r.kid}  created ${r.created_at}  ${r.status}`);
      return KEYS_EXIT.ok;
    } catch (err) {
      console.error(`m keys ${action}: ${(err as Error).message}`);
      return KEYS_EXIT.failed;
    }
  },
};

/**
 * MACROSERVICE with `PLATFORM_KEY_ENCRYPTION_KEY`: the gateways' shared key ring in NATS KV. `rotate` adds a
 * key every gateway picks up through its watch of the ring; `list` shows kids and states (never key material).
 */
async function sharedRing(
  config: PlatformConfig,
  kek: KeyEncryptionKey,
  action: 'list' | 'rotate',
  json: boolean,
): Promise<number> {
  if (!config.nats.url) throw new Error('tool.platform.nats.url (PLATFORM_NATS_URL) is required');
  const bus = await NatsBus.connect({ url: config.nats.url, log: () => {}, name: 'm-keys', maxAttempts: 3 });
  try {
    const store = await bus.keyValue<SharedKeyRing>(KEY_RING_BUCKET, { ttlMs: 0 });
    if (action === 'rotate') {
      const ring = await KvKeyStore.open({
        store,
        kek,
        graceMs: config.security.payload_encryption.key_grace_seconds * 1000,
        watch: false,
      });
      const kid = await ring.rotate();
      console.log(`new active key ${kid} in the shared key ring (NATS KV bucket ${KEY_RING_BUCKET})`);
      return KEYS_EXIT.ok;
    }
    const keys = ((await store.get(KEY_RING_KEY))?.value.keys ?? []).map(
      ({ kid, created_at, retired_at }) => ({
        kid,
        created_at,
        retired_at,
      }),
    );
    if (json) console.log(JSON.stringify({ bucket: KEY_RING_BUCKET, keys }, null, 2));
    else
      for (const k of keys)
        console.log(
          `${k.kid}  created ${k.created_at}  ${k.retired_at ? `retired ${k.retired_at}` : 'active'}`,
        );
    return KEYS_EXIT.ok;
  } finally {
    await bus.close();
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      app: { type: 'string' },
      config: { type: 'string' },
      json: { type: 'boolean', default: false },
      batch: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

/** `m keys rewrap`: personal data at rest re-encrypted under the current key (docs/operators.md#rotating-the-key-encryption-key). */
async function rewrap(config: PlatformConfig, batch: number): Promise<number> {
  if (!Number.isInteger(batch) || batch < 1) {
    console.error('m keys rewrap: --batch must be a positive integer');
    return KEYS_EXIT.usage;
  }
  const { loadInstalledApps } = await import('../../../backend/apps');
  const { createDocTypeRegistry } = await import('../../../backend/doctypes/registry');
  const { openDatabase } = await import('../../../backend/db/open-database');
  const { kekSources, openVaultKeys } = await import('../../../backend/vault/vault-keys');
  const { rewrapRecords } = await import('../../../backend/vault/rewrap');
  const { claimDataDir, gatewayDirectoryError, requireExistingDatabase, servicesUnder } = await import(
    '../../../backend/data-dir/data-dir'
  );
  let db: Awaited<ReturnType<typeof openDatabase>> | undefined;
  let owned: { release(): void } | undefined;
  try {
    requireExistingDatabase(config.server.data_dir, config.server.database_url);
    const doctypes = createDocTypeRegistry(await loadInstalledApps(config.apps)).list();
    // The embedded database allows one process: a running server's directory is refused (data_dir_locked).
    if (!config.server.database_url) owned = await claimDataDir(config.server.data_dir, 'm keys rewrap');
    db = await openDatabase({
      dataDir: config.server.data_dir,
      databaseUrl: config.server.database_url,
      optimizeWasm: config.server.pglite_optimize,
    });
    // A gateway's directory holds no records: "done" there would leave every service's records as they
    // were (and a key row would make its database look like one holding personal data).
    const services = servicesUnder(config.server.data_dir);
    if (services.length > 0) {
      const { rows } = await db.query<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM records) AS any');
      if (!rows[0]?.any) {
        throw gatewayDirectoryError(
          config.server.data_dir,
          services,
          'records',
          'rewrap each with --app <app>',
        );
      }
    }
    const keys = await openVaultKeys(db, kekSources(resolve(config.server.data_dir), process.env));
    // DocTypes of no configured app (served with `m serve --app` only, or since removed): their ciphertexts
    // are rewrapped, found by their format, but a value they stored in clear is not told from any other.
    const undefinedDoctypes = new Set<string>();
    const total = await rewrapRecords(db, keys, doctypes, {
      batch,
      onProgress: (p) => {
        if (!p.defined) undefinedDoctypes.add(p.doctype);
        console.log(`${p.doctype}: ${p.checked} checked, ${p.rewrapped} rewrapped`);
      },
    });
    const unconfigured =
      undefinedDoctypes.size === 0
        ? ''
        : ` (${[...undefinedDoctypes].join(', ')}: of no configured app, so only values already encrypted were looked for; to encrypt values they stored in clear before encryption at rest, name their app in apps and run again)`;
    // On PostgreSQL servers write beside the rewrap: what it read is under the new key, what they wrote
    // meanwhile is under whichever key they hold (docs/operators.md#rotating-the-key-encryption-key).
    console.log(
      config.server.database_url
        ? `rewrap done: ${total} records rewritten; every personal value read is under key ${keys.cipher.kekId} (values servers wrote meanwhile are under the key they hold: run again once every server has the new key)${unconfigured}`
        : `rewrap done: ${total} records rewritten; every ${unconfigured ? 'encrypted' : 'personal'} value is under key ${keys.cipher.kekId}${unconfigured}`,
    );
    return KEYS_EXIT.ok;
  } catch (err) {
    console.error(`m keys rewrap: ${(err as Error).message}`);
    return (err as { code?: string }).code === 'config_invalid' ? KEYS_EXIT.config : KEYS_EXIT.failed;
  } finally {
    await db?.close();
    owned?.release();
  }
}
