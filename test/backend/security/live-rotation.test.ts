import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FileKeyStore } from '../../../backend/security/keys/file-key-store';
import { readKeyRing } from '../../../backend/security/keys/key-dir';
import { keysCommand } from '../../../src/cli/commands/keys';
import { createTestApp, type TestApp } from '../../helpers/test-app';
import { sdkJwe, sendJose } from './jwe-support';

const LEADS = '/api/resource/crm.Lead';
let t: TestApp;
let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'desk-rotation-'));
  const keys = await FileKeyStore.open({ dir: join(dataDir, 'keys'), graceMs: 3_600_000 });
  t = await createTestApp({ config: { 'security.payload_encryption.mode': 'strict' }, keys });
});
afterAll(async () => {
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('key rotation while requests flow (file key store, `m keys rotate`)', () => {
  it('keeps requests encrypted to the old key succeeding and accepts the new key at once', async () => {
    const old = await t.ctx.security.keys.active();
    const send = async (i: number) =>
      (await sendJose(t, 'POST', LEADS, await sdkJwe(t.ctx, 'POST', LEADS, { lead_name: `L${i}` }, old.kid)))
        .status;
    vi.spyOn(console, 'log').mockImplementation(() => {});
    // Requests to the old key are in flight while another process (the CLI) rotates the key ring.
    const [before, rotated, after] = await Promise.all([
      Promise.all([0, 1, 2, 3].map(send)),
      keysCommand.run(['rotate', '--data-dir', dataDir]),
      Promise.all([4, 5, 6, 7].map(send)),
    ]);
    vi.restoreAllMocks();
    expect(rotated).toBe(0);
    for (const status of [...before, ...after]) expect(status).toBeLessThan(300);

    const ring = await readKeyRing(join(dataDir, 'keys'));
    const fresh = ring.keys[0]!.kid;
    expect(fresh).not.toBe(old.kid);
    // A client that already fetched the new key is served before the periodic re-read comes round.
    const jwe = await sendJose(
      t,
      'POST',
      LEADS,
      await sdkJwe(t.ctx, 'POST', LEADS, { lead_name: 'New' }, fresh),
    );
    expect(jwe.status).toBeLessThan(300);
    expect((await send(8)) < 300).toBe(true);
  });
});
