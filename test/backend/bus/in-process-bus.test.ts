import { describe, expect, it } from 'vitest';
import { InProcessBus } from '../../../backend/bus/in-process-bus';
import { subjectMatches } from '../../../backend/bus/subject-match';

describe('InProcessBus', () => {
  it('expires a key silently once the bucket TTL has passed since its last write', async () => {
    let clock = 0;
    const bus = new InProcessBus({ now: () => clock });
    const kv = await bus.keyValue<number>('b', { ttlMs: 1_000 });
    const events: string[] = [];
    await kv.watch((e) => events.push(e.type));
    await kv.put('a', 1);
    clock = 900;
    await kv.put('a', 2); // a heartbeat
    clock = 1_800;
    expect((await kv.get('a'))?.value).toBe(2);
    clock = 1_900;
    expect(await kv.get('a')).toBeNull();
    expect(await kv.entries()).toEqual([]);
    expect(events).toEqual(['snapshot', 'put', 'put']);
    await expect(kv.create('a', 3)).resolves.toBeGreaterThan(0);
  });

  it('refuses keys NATS would refuse and publishing after close', async () => {
    const bus = new InProcessBus();
    const kv = await bus.keyValue('b', { ttlMs: 1_000 });
    await expect(kv.put('a b', 1)).rejects.toMatchObject({ code: 'kv_invalid_key' });
    await bus.close();
    await expect(bus.publish('x', 1)).rejects.toMatchObject({ code: 'bus_closed' });
  });
});

describe('subjectMatches', () => {
  it('follows the NATS wildcard rules', () => {
    expect(subjectMatches('infra.>', 'infra.schema.discovery')).toBe(true);
    expect(subjectMatches('infra.>', 'infra')).toBe(false);
    expect(subjectMatches('infra.*', 'infra.schema.discovery')).toBe(false);
    expect(subjectMatches('infra.*.discovery', 'infra.schema.discovery')).toBe(true);
    expect(subjectMatches('infra.schema', 'infra.schema.discovery')).toBe(false);
  });
});
