import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileKeyStore } from '../../../backend/security/keys/file-key-store';
import { readKeyRing, rotateKeyDir } from '../../../backend/security/keys/key-dir';
import { UnknownKidReads } from '../../../backend/security/keys/key-store';
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

describe('UnknownKidReads', () => {
  /** A ring whose reads take the store's state when they start and apply it when released. */
  function ring() {
    const state = { written: new Set<string>(), held: new Set<string>(), reads: 0 };
    const gates: Array<() => void> = [];
    const read = async () => {
      state.reads++;
      const snapshot = new Set(state.written);
      await new Promise<void>((release) => gates.push(release));
      state.held = snapshot;
    };
    const releaseAll = async () => {
      while (gates.length > 0) {
        gates.shift()?.();
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    return { state, read, releaseAll };
  }

  it('a kid written while a read is under way is found by a second read, not refused by the stale one', async () => {
    const { state, read, releaseAll } = ring();
    const reads = new UnknownKidReads(read, 0);
    const lookup = () => (state.held.has('new') ? 'new' : undefined);

    const early = reads.find(reads.arrived(), lookup); // starts read 1, which sees no `new`
    await new Promise((resolve) => setImmediate(resolve));
    state.written.add('new'); // a rotation elsewhere; its client then sends a JWE naming it
    const late = reads.find(reads.arrived(), lookup);
    await releaseAll();

    expect(await late).toBe('new');
    expect(await early).toBeUndefined();
    expect(state.reads).toBe(2);
  });

  it('requests naming unknown kids at the same time share one read', async () => {
    const { state, read, releaseAll } = ring();
    const reads = new UnknownKidReads(read, 0);
    const arrivals = Array.from({ length: 20 }, () => reads.arrived());
    const lookups = arrivals.map((arrival) => reads.find(arrival, () => undefined));
    // One arriving after that read started cannot trust it: it waits for the next, which it would share.
    const later = reads.find(reads.arrived(), () => undefined);
    await releaseAll();

    expect(await Promise.all(lookups)).toEqual(Array(20).fill(undefined));
    expect(await later).toBeUndefined();
    expect(state.reads).toBe(2);
  });

  it('a kid already held costs no read, and a failing read refuses instead of throwing', async () => {
    let reads = 0;
    const failing = new UnknownKidReads(async () => {
      reads++;
      throw new Error('store unreachable');
    }, 0);
    expect(await failing.find(failing.arrived(), () => 'held')).toBe('held');
    expect(reads).toBe(0);
    expect(await failing.find(failing.arrived(), () => undefined)).toBeUndefined();
    expect(reads).toBe(1);
  });
});
