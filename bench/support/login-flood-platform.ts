/**
 * The platform the login-flood benchmark runs against: MONOLITH on a free port over an in-memory database,
 * payload encryption off (the flood measures sign-in, not decryption) and the rate limit out of reach (it
 * would otherwise stop the flood before the login throttle is exercised), a Stock User with an API key and a
 * victim account whose password the flood keeps getting wrong.
 */
import { loadConfig } from '../../backend/config/load-config';
import { openDatabase } from '../../backend/db/open-database';
import { startMonolith } from '../../backend/roots/monolith';
import { MemoryKeyStore } from '../../backend/security/keys/memory-key-store';

/** A running platform for the benchmark. */
export interface FloodPlatform {
  url: string;
  /** `Authorization` of the Stock User whose creates are measured. */
  stockUserAuthorization: string;
  /** The account the flood guesses at. */
  victim: string;
  close(): Promise<void>;
}

/** Starts the platform and its users. */
export async function startPlatform(): Promise<FloodPlatform> {
  const config = loadConfig({
    env: {},
    overrides: {
      'server.port': 0,
      'security.rate_limit.max_requests': 1_000_000_000,
      'security.payload_encryption.mode': 'disabled',
    },
  });
  const database = await openDatabase({ memory: true });
  const keys = await MemoryKeyStore.create({ graceMs: 60_000 });
  const monolith = await startMonolith(
    { ...config, server: { ...config.server, host: '127.0.0.1' } },
    { database, keys, log: () => {} },
  );
  const { users, auth } = monolith.ctx.security;
  await users.addUser('bench.stock', 'bench-stock-password', ['Stock User']);
  await users.addUser('bench.victim', 'bench-victim-password', ['Stock User']);
  const { api_key, api_secret } = await auth.generateApiKey('bench.stock');
  return {
    url: monolith.url,
    stockUserAuthorization: `token ${api_key}:${api_secret}`,
    victim: 'bench.victim',
    async close() {
      await monolith.close();
      await database.close();
    },
  };
}
