import { afterEach, describe, expect, it, vi } from 'vitest';
import { ADMINISTRATOR } from '../../../backend/auth/auth-service';
import { DEFAULT_ADMIN_PASSWORD } from '../../../backend/auth/default-password';
import { loadConfig } from '../../../backend/config/load-config';
import { openDatabase } from '../../../backend/db/open-database';
import { createSecurityContext } from '../../../backend/roots/security';
import { MemoryKeyStore } from '../../../backend/security/keys/memory-key-store';

async function build(adminPassword: string | undefined) {
  const db = await openDatabase({ memory: true });
  const lines: string[] = [];
  const security = await createSecurityContext({
    config: loadConfig({ file: 'platform.toml', env: {} }),
    db,
    log: (line) => lines.push(line),
    keys: await MemoryKeyStore.create({ graceMs: 86_400_000 }),
    adminPassword,
  });
  return {
    security,
    lines,
    async close() {
      security.close();
      await db.close();
    },
  };
}

describe('createSecurityContext', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('creates Administrator with the password the root passes, and the log line never shows it', async () => {
    const password = 'a-password-handed-over-by-the-root';
    const { security, lines, close } = await build(password);
    try {
      expect(await security.auth.checkPassword(ADMINISTRATOR, password)).toBe(true);
      expect(await security.auth.checkPassword(ADMINISTRATOR, DEFAULT_ADMIN_PASSWORD)).toBe(false);
      expect(lines).toEqual(['created user Administrator with the password from PLATFORM_ADMIN_PASSWORD']);
    } finally {
      await close();
    }
  });

  it('reads no environment itself: without a password from the root, Administrator gets the default', async () => {
    vi.stubEnv('PLATFORM_ADMIN_PASSWORD', 'a-password-only-in-process-env');
    const { security, lines, close } = await build(undefined);
    try {
      expect(await security.auth.checkPassword(ADMINISTRATOR, DEFAULT_ADMIN_PASSWORD)).toBe(true);
      expect(await security.auth.checkPassword(ADMINISTRATOR, 'a-password-only-in-process-env')).toBe(false);
      expect(lines.join('\n')).toMatch(/WARNING: .*default password "admin"; set PLATFORM_ADMIN_PASSWORD/);
    } finally {
      await close();
    }
  });
});
