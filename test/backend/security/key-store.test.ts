import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileKeyStore } from '../../../backend/security/keys/file-key-store';
import { readKeyRing, rotateKeyDir } from '../../../backend/security/keys/key-dir';
import { MemoryKeyStore } from '../../../backend/security/keys/memory-key-store';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function keyDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'desk-keys-'));
  dirs.push(dir);
  return join(dir, 'keys');
}

describe('FileKeyStore', () => {
  it('creates a 2048-bit key pair on first start, the private key file readable by the owner only', async () => {
    const dir = keyDir();
    const store = await FileKeyStore.open({ dir, graceMs: 60_000 });
    const active = await store.active();
    const pems = readdirSync(dir).filter((f) => f.endsWith('.pem'));
    expect(pems).toEqual([`${active.kid}.pem`]);
    expect(statSync(join(dir, pems[0]!)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o077).toBe(0);
    expect(Buffer.from(active.publicJwk.n, 'base64url').length * 8).toBeGreaterThanOrEqual(2048);
    // A second start reuses the key.
    const again = await FileKeyStore.open({ dir, graceMs: 60_000 });
    expect((await again.active()).kid).toBe(active.kid);
  });

  it('picks up `m keys rotate` from another process while running, and keeps the old key decrypting', async () => {
    const dir = keyDir();
    const store = await FileKeyStore.open({ dir, graceMs: 60_000, refreshMs: 0, unknownKidCooldownMs: 0 });
    const old = await store.active();
    const kid = await rotateKeyDir(dir, { graceMs: 60_000 });
    expect(await store.find(kid)).toBeDefined();
    expect((await store.active()).kid).toBe(kid);
    expect(await store.find(old.kid)).toBeDefined();
    expect((await store.usable()).map((k) => k.kid)).toEqual([kid, old.kid]);
  });

  it('stops decrypting with a retired key after the grace period and deletes it on the next rotation', async () => {
    const dir = keyDir();
    let now = Date.parse('2030-01-01T00:00:00Z');
    const clock = () => now;
    const store = await FileKeyStore.open({ dir, graceMs: 1_000, now: clock, refreshMs: 0 });
    const first = await store.active();
    await rotateKeyDir(dir, { graceMs: 1_000, now: clock });
    expect(await store.find(first.kid)).toBeDefined();
    now += 1_001;
    expect(await store.find(first.kid)).toBeUndefined();
    await rotateKeyDir(dir, { graceMs: 1_000, now: clock });
    const ring = await readKeyRing(dir);
    expect(ring.keys.map((k) => k.kid)).not.toContain(first.kid);
    expect(readdirSync(dir)).not.toContain(`${first.kid}.pem`);
  });
});

describe('MemoryKeyStore', () => {
  it('rotates to a new kid and honours the grace period on its clock', async () => {
    let now = 0;
    const store = await MemoryKeyStore.create({ graceMs: 10, now: () => now });
    const first = await store.active();
    const second = await store.rotate();
    expect(second.kid).not.toBe(first.kid);
    expect((await store.usable()).map((k) => k.kid)).toEqual([second.kid, first.kid]);
    now = 10;
    expect(await store.find(first.kid)).toBeUndefined();
    expect((await store.usable()).map((k) => k.kid)).toEqual([second.kid]);
  });
});
