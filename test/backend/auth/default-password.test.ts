import { describe, expect, it } from 'vitest';
import { isLoopbackHost, refuseDefaultPasswordOffLoopback } from '../../../backend/auth/default-password';

describe('the default Administrator password', () => {
  it('knows loopback addresses', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost'])
      expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'desk.example.com', '192.168.1.2']) {
      expect(isLoopbackHost(host)).toBe(false);
    }
  });

  it('is refused off loopback with config_invalid naming PLATFORM_ADMIN_PASSWORD, and kept on loopback', async () => {
    await expect(refuseDefaultPasswordOffLoopback('0.0.0.0', async () => true)).rejects.toMatchObject({
      code: 'config_invalid',
      message: expect.stringContaining('PLATFORM_ADMIN_PASSWORD'),
    });
    await expect(refuseDefaultPasswordOffLoopback('0.0.0.0', async () => false)).resolves.toBeUndefined();
    await expect(refuseDefaultPasswordOffLoopback('127.0.0.1', async () => true)).resolves.toBeUndefined();
  });
});

describe('m serve with the default password', () => {
  it('exits 78 naming PLATFORM_ADMIN_PASSWORD when binding a non-loopback address', async () => {
    const { spawn } = await import('node:child_process');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { ROOT_DIR } = await import('../../../backend/roots/context');
    const dataDir = mkdtempSync(join(tmpdir(), 'desk-default-pw-'));
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, PLATFORM_DATA_DIR: dataDir };
      delete env.PLATFORM_ADMIN_PASSWORD;
      delete env.PLATFORM_MODE;
      delete env.PLATFORM_DATABASE_URL;
      const child = spawn(
        process.execPath,
        [join(ROOT_DIR, 'bin', 'm.js'), 'serve', '--host', '0.0.0.0', '--port', '0'],
        { cwd: ROOT_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let err = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        err += chunk.toString();
      });
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(78);
      expect(err).toContain('PLATFORM_ADMIN_PASSWORD');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
