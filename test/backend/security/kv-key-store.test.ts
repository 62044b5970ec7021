import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { KeyValueStore, KvEvent, Unsubscribe } from '../../../backend/bus/bus';
import { InProcessBus } from '../../../backend/bus/in-process-bus';
import { keyEncryptionKey } from '../../../backend/security/keys/key-encryption-key';
import {
  KEY_RING_BUCKET,
  KEY_RING_KEY,
  KvKeyStore,
  type SharedKeyRing,
} from '../../../backend/security/keys/kv-key-store';

const GRACE_MS = 60_000;
const kek = keyEncryptionKey(randomBytes(32));
const opened: KvKeyStore[] = [];
afterEach(() => {
  for (const ring of opened.splice(0)) ring.close();
});

async function bucket(): Promise<KeyValueStore<SharedKeyRing>> {
  // The in-process bucket reads a TTL of 0 as "expire at once" (NATS: "never"), so a long one stands in.
  return new InProcessBus().keyValue<SharedKeyRing>(KEY_RING_BUCKET, { ttlMs: 86_400_000 });
}

async function open(
  store: KeyValueStore<SharedKeyRing>,
  extra: Partial<Parameters<typeof KvKeyStore.open>[0]> = {},
): Promise<KvKeyStore> {
  const ring = await KvKeyStore.open({ store, kek, graceMs: GRACE_MS, ...extra });
  opened.push(ring);
  return ring;
}

/**
 * The same bucket as another gateway sees it before a write reaches it: its watch reports the snapshot it
 * started with and nothing after, and its reads are counted.
 */
function laggingView(store: KeyValueStore<SharedKeyRing>) {
  const view = {
    bucket: store.bucket,
    ttlMs: store.ttlMs,
    reads: 0,
    async get(key: string) {
      view.reads++;
      return store.get(key);
    },
    put: (key: string, value: SharedKeyRing) => store.put(key, value),
    create: (key: string, value: SharedKeyRing) => store.create(key, value),
    update: (key: string, value: SharedKeyRing, revision: number) => store.update(key, value, revision),
    delete: (key: string) => store.delete(key),
    entries: () => store.entries(),
    /** The gateway's watch listener: the test reports events to it by hand. */
    listener: undefined as ((event: KvEvent<SharedKeyRing>) => void) | undefined,
    async watch(listener: (event: KvEvent<SharedKeyRing>) => void): Promise<Unsubscribe> {
      view.listener = listener;
      listener({ type: 'snapshot', entries: await store.entries() });
      return () => {};
    },
  };
  return view;
}

describe('KvKeyStore (the key ring MACROSERVICE gateways share)', () => {
  it('stores the private keys wrapped, never in clear', async () => {
    const store = await bucket();
    const ring = await open(store);
    const stored = (await store.get(KEY_RING_KEY))!.value;
    expect(stored.keys.map((k) => k.kid)).toEqual([(await ring.active()).kid]);
    expect(JSON.stringify(stored)).not.toContain('PRIVATE KEY');
    await expect(
      KvKeyStore.open({ store, kek: keyEncryptionKey(randomBytes(32)), graceMs: GRACE_MS }),
    ).rejects.toMatchObject({ code: 'config_invalid' });
  });

  it('a rotation by another process reaches a running gateway through its watch; the old key keeps decrypting', async () => {
    const store = await bucket();
    const gateway = await open(store);
    const old = await gateway.active();
    const cli = await open(store, { watch: false });
    const kid = await cli.rotate();

    expect((await gateway.active()).kid).toBe(kid);
    expect((await gateway.usable()).map((k) => k.kid)).toEqual([kid, old.kid]);
    expect(await gateway.find(old.kid)).toBeDefined();
  });

  it('a gateway the write has not reached reads the ring once for an unknown kid before refusing it', async () => {
    const store = await bucket();
    const lagging = laggingView(store);
    const gateway = await open(lagging, { unknownKidCooldownMs: 60_000 });
    const old = await gateway.active();
    const kid = await (await open(store, { watch: false })).rotate();
    expect((await gateway.active()).kid).toBe(old.kid); // not seen yet

    const readsBefore = lagging.reads;
    // Several requests carrying the new kid at once share one read of the store.
    const found = await Promise.all([1, 2, 3].map(() => gateway.find(kid)));
    expect(found.map((k) => k?.kid)).toEqual([kid, kid, kid]);
    expect(lagging.reads - readsBefore).toBe(1);
    expect((await gateway.active()).kid).toBe(kid);
    expect(await gateway.find(old.kid)).toBeDefined();
  });

  it('reads the store at most once per cooldown for kids that are not in the ring', async () => {
    const store = await bucket();
    const lagging = laggingView(store);
    const gateway = await open(lagging, { unknownKidCooldownMs: 50 });
    const readsBefore = lagging.reads;
    const found = await Promise.all(['x', 'y', 'z', 'x'].map((kid) => gateway.find(kid)));
    expect(found).toEqual([undefined, undefined, undefined, undefined]);
    expect(lagging.reads - readsBefore).toBe(1);
    // A later request waits for the cooldown, then reads once more.
    expect(await gateway.find('w')).toBeUndefined();
    expect(lagging.reads - readsBefore).toBe(2);
  });

  it('takes the ring of a watch snapshot after NATS lost its store, though its revision starts again', async () => {
    const store = await bucket();
    const lagging = laggingView(store);
    const gateway = await open(lagging);
    const old = await gateway.active();
    // NATS came back empty and another gateway wrote a new ring: revision 1 again.
    const other = await bucket();
    const kid = (await (await open(other, { watch: false })).active()).kid;
    const rewritten = (await other.get(KEY_RING_KEY))!;
    lagging.listener!({ type: 'snapshot', entries: [] });
    lagging.listener!({ type: 'snapshot', entries: [{ ...rewritten, revision: 1 }] });
    expect((await gateway.active()).kid).toBe(kid);
    expect((await gateway.usable()).map((k) => k.kid)).toEqual([kid]);
    expect(kid).not.toBe(old.kid);
  });

  it('keeps serving the keys it holds when a ring it cannot unwrap is written', async () => {
    const store = await bucket();
    const lines: string[] = [];
    const gateway = await open(store, { log: (line) => lines.push(line) });
    const held = await gateway.active();
    const other = await KvKeyStore.open({
      store,
      kek: keyEncryptionKey(randomBytes(32)),
      graceMs: GRACE_MS,
      watch: false,
    }).catch(() => undefined);
    expect(other).toBeUndefined();
    const current = (await store.get(KEY_RING_KEY))!;
    await store.update(
      KEY_RING_KEY,
      { keys: [{ ...current.value.keys[0]!, kid: 'forged', wrapped: 'AAAA.AAAA.AAAA' }] },
      current.revision,
    );
    expect((await gateway.active()).kid).toBe(held.kid);
    expect(lines.join('\n')).toContain('not applied');
    expect(lines.join('\n')).not.toContain('AAAA');
  });
});
