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

  /** A gate on a clock the test moves, and a way to start held tasks and finish them one by one. */
  function heldGate(options: ConstructorParameters<typeof HashGate>[0]) {
    let now = 0;
    const gate = new HashGate({ ...options, now: () => now });
    const releases: Array<() => void> = [];
    const runs: Array<Promise<unknown>> = [];
    const hold = () => {
      const run = gate.run(() => new Promise<void>((r) => releases.push(r)));
      runs.push(run);
      return run;
    };
    const retryAfter = async (): Promise<number> => {
      const error = await gate.run(async () => 'ran').catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'login_busy', status: 503 });
      return Number((error as { headers: Record<string, string> }).headers['Retry-After']);
    };
    return {
      gate,
      hold,
      retryAfter,
      advance: (ms: number) => {
        now += ms;
      },
      /** Finishes the oldest running task and lets the next one start. */
      finishOne: async () => {
        releases.shift()!();
        await new Promise((r) => setTimeout(r, 0));
      },
      settle: async () => {
        while (releases.length > 0) {
          releases.shift()!();
          await new Promise((r) => setTimeout(r, 0));
        }
        await Promise.all(runs);
      },
    };
  }

  it('queues only what its slots get through within maxWaitMs, at the estimated duration', async () => {
    // 1,000 ms a sign-in over 2 slots: 500 ms a turn, so 4 s of wait admits 8 waiting.
    const g = heldGate({ concurrency: 2, maxWaitMs: 4_000, initialWorkMs: 1_000 });
    for (let i = 0; i < 2 + 8; i++) void g.hold();
    expect(g.gate.waiting).toBe(8);
    expect(await g.retryAfter()).toBeGreaterThanOrEqual(1);
    expect(g.gate.waiting).toBe(8);
    await g.settle();
  });

  it('hands refused sign-ins turns one share apart, so they come back one after another', async () => {
    const g = heldGate({ concurrency: 2, maxWaitMs: 4_000, initialWorkMs: 1_000 });
    for (let i = 0; i < 2 + 8; i++) void g.hold();
    // A turn is 500 ms: the first refused may come back once one has left the queue, each next 500 ms later.
    const told: number[] = [];
    for (let i = 0; i < 6; i++) told.push(await g.retryAfter());
    expect(told).toEqual([1, 1, 2, 2, 3, 3]);
    // Time passing does not move the turns already handed out: the next comes after the last one.
    g.advance(1_000);
    expect(await g.retryAfter()).toBe(3);
    await g.settle();
  });

  it('caps Retry-After at maxRetryAfterSeconds', async () => {
    const g = heldGate({ concurrency: 1, maxWaitMs: 1_000, initialWorkMs: 10_000, maxRetryAfterSeconds: 15 });
    void g.hold();
    const told: number[] = [];
    for (let i = 0; i < 3; i++) told.push(await g.retryAfter());
    expect(told).toEqual([10, 15, 15]);
    await g.settle();
  });

  it('learns how long a sign-in takes from the ones it runs', async () => {
    const g = heldGate({ concurrency: 1, maxWaitMs: 10_000, initialWorkMs: 1_000 });
    expect(g.gate.workMs).toBe(1_000);
    // Sign-ins that take 100 ms each move the estimate towards 100 ms.
    for (let i = 0; i < 20; i++) {
      const run = g.hold();
      g.advance(100);
      await g.finishOne();
      await run;
    }
    expect(g.gate.workMs).toBeGreaterThan(100);
    expect(g.gate.workMs).toBeLessThan(115);
    // Now 10 s of wait admits about a hundred waiting, where the first estimate admitted ten.
    void g.hold();
    for (let i = 0; i < 50; i++) void g.hold();
    expect(g.gate.waiting).toBe(50);
    await g.settle();
  });
});
