import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadPlanFile } from '../../../src/benchmarks/config/load-plan';
import { runLoadTest } from '../../../src/benchmarks/run';
import { type RecordingServer, startRecordingServer } from '../helpers/recording-server';
import { tempDir, writeConfig } from '../helpers/runtime';

let server: RecordingServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

/**
 * An open-model run against a recording server. 500 users at most: an arrival is dropped only when every
 * user is busy, which with 50 happened whenever the shared machine slowed the server past 100 ms.
 */
async function openRun(rate: string, seconds: number, batchMs?: number) {
  server = await startRecordingServer();
  const path = writeConfig(`target_url: ${server.url}
auth: { mode: none }
users: { peak: 500 }
rate: ${rate}
${seconds ? `duration_seconds: ${seconds}\n` : ''}generator: { max_event_loop_lag_ms: 60000${batchMs === undefined ? '' : `, batch_ms: ${batchMs}`} }
thresholds: { p95_ms: 600000 }
targets: [{ type: endpoint, name: hit, method: GET, path: /hit }]
`);
  const loaded = await loadPlanFile(path, {});
  if (!loaded.ok) throw new Error('invalid');
  const { result } = await runLoadTest({ plan: loaded.plan, outDir: tempDir(), live: { write: () => true } });
  const scheduled = result.timeline.reduce((n, p) => n + p.scheduled, 0);
  const dropped = result.timeline.reduce((n, p) => n + p.dropped, 0);
  return { result, scheduled, dropped };
}

describe('the open model', () => {
  it('sends exactly the planned arrivals: 500 asked in a second, 500 scheduled and sent', async () => {
    const { result, scheduled, dropped } = await openRun('{ requests_per_second: 500 }', 1);
    expect(scheduled).toBe(500);
    // The first arrival, due at second 0, finds the first user: none is dropped.
    expect(dropped).toBe(0);
    expect(result.total.count).toBe(500);
    expect(server!.received.filter((r) => r.path === '/hit')).toHaveLength(result.total.count);
  });

  it('follows rate stages: the arrivals equal the integral of the planned rate', async () => {
    // 0 -> 100/s over 1 s (50 arrivals), then 100/s for 1 s (100).
    const { scheduled } = await openRun(
      '{ stages: [{ duration_seconds: 1, target: 100 }, { duration_seconds: 1, target: 100 }] }',
      0,
    );
    expect(scheduled).toBe(150);
  });

  /**
   * Counted, not timed: the executor's wake-ups are the runs of its timer callback, `onWake`, each armed
   * by a new timer or by re-arming one that has fired.
   */
  function countWakeUps() {
    const timeouts = vi.spyOn(globalThis, 'setTimeout');
    const timeoutPrototype = Object.getPrototypeOf(setTimeout(() => undefined, 0)) as NodeJS.Timeout;
    const refreshes = vi.spyOn(timeoutPrototype, 'refresh');
    return () => {
      const wakers = new Set(
        timeouts.mock.calls.flatMap(([fn], i) =>
          fn.name === 'onWake' ? [timeouts.mock.results[i]!.value] : [],
        ),
      );
      return wakers.size + refreshes.mock.contexts.filter((t) => wakers.has(t)).length;
    };
  }

  it('wakes about once per arrival with batch_ms 2, on timers, without spinning: 500 asked in a second, 500 sent', async () => {
    const wakeUpsOf = countWakeUps();
    const immediates = vi.spyOn(globalThis, 'setImmediate');
    const { result, scheduled, dropped } = await openRun('{ requests_per_second: 500 }', 1, 2);
    const wakeUps = wakeUpsOf();
    expect(scheduled).toBe(500);
    expect(result.total.count + dropped).toBe(500);
    // One per arrival when the timers fire on time (arrivals close together share one); a timer that
    // fires before its arrival may send costs one more. Spinning would cost hundreds per arrival.
    expect(wakeUps).toBeGreaterThan(0);
    expect(wakeUps).toBeLessThanOrEqual(2 * 500);
    // Immediates: at most one per pass of the event loop that read responses (and the server's own).
    expect(immediates.mock.calls.length).toBeLessThanOrEqual(2 * 500);
  });

  it('sends the arrivals due within batch_ms (default 20) in one wake-up: 500 asked in a second, 500 sent', async () => {
    const wakeUpsOf = countWakeUps();
    const { result, scheduled, dropped } = await openRun('{ requests_per_second: 500 }', 1);
    expect(scheduled).toBe(500);
    expect(result.total.count + dropped).toBe(500);
    expect(server!.received.filter((r) => r.path === '/hit')).toHaveLength(result.total.count);
    // Wake-ups are at least 19 ms apart (20 less the millisecond a timer is set ahead): about 50 in 1 s,
    // where one per arrival would be 500.
    expect(wakeUpsOf()).toBeGreaterThan(0);
    expect(wakeUpsOf()).toBeLessThanOrEqual(60);
  });
});
