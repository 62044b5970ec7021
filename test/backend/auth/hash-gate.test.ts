import { describe, expect, it } from 'vitest';
import { HashGate } from '../../../backend/auth/hash-gate';

describe('HashGate', () => {
  it('runs at most `concurrency` tasks at once and refuses beyond the queue with login_busy', async () => {
    const gate = new HashGate({ concurrency: 2, maxQueued: 2 });
    let running = 0;
    let peak = 0;
    const releases: Array<() => void> = [];
    const task = () =>
      gate.run(async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise<void>((r) => releases.push(r));
        running--;
        return 'done';
      });
    const accepted = [task(), task(), task(), task()];
    await expect(task()).rejects.toMatchObject({ code: 'login_busy', status: 503 });
    while (releases.length > 0 || running > 0) {
      releases.shift()?.();
      await new Promise((r) => setTimeout(r, 0));
    }
    expect(await Promise.all(accepted)).toEqual(['done', 'done', 'done', 'done']);
    expect(peak).toBe(2);
  });

  it('drops a queued task whose signal aborts, and never runs one aborted before it starts', async () => {
    const gate = new HashGate({ concurrency: 1, maxQueued: 4 });
    let release!: () => void;
    const ran: string[] = [];
    const first = gate.run(async () => {
      ran.push('first');
      await new Promise<void>((r) => {
        release = r;
      });
    });
    const leaving = new AbortController();
    const left = gate.run(async () => ran.push('left'), leaving.signal);
    const staying = gate.run(async () => ran.push('staying'));
    expect(gate.waiting).toBe(2);
    leaving.abort();
    await expect(left).rejects.toMatchObject({ code: 'login_busy', status: 503 });
    expect(gate.waiting).toBe(1);
    const gone = new AbortController();
    gone.abort();
    await expect(gate.run(async () => ran.push('gone'), gone.signal)).rejects.toMatchObject({
      code: 'login_busy',
    });
    release();
    await first;
    await staying;
    expect(ran).toEqual(['first', 'staying']);
    expect(gate.started).toBe(2);
    expect(gate.waiting).toBe(0);
  });
});
