import { type Executor, shardUsers, sleep, timedIteration, weightedPicker } from '../executor';
import { ArrivalClock } from '../stages';
import { VirtualUser } from '../virtual-user';

/**
 * How early an arrival may be sent: arrivals due within this many ms are dispatched together, and the
 * timer is set to wake this much before the next one. Timers fire with millisecond granularity; waking
 * early and sending the arrival at once keeps the schedule exact without spinning on the event loop.
 */
const EARLY_MS = 1;

/**
 * The open model (arrival rate, as k6's `ramping-arrival-rate`): requests arrive at the planned rate
 * (`rate.stages`, or the constant rate ramped over `users.ramp_up_seconds`) whatever the target's latency;
 * each arrival is served by an idle user (users log in as they spawn, `users.peak` at most). Latency runs
 * from the arrival's intended time (or from its sending, if that was earlier), so a slow target or a late
 * generator shows in the percentiles instead of silently lowering the rate (no coordinated omission). An
 * arrival with no idle user is dropped and counted.
 */
export const openModel: Executor = async ({ rt, runners, recorder, shard, startAt, signal }) => {
  const { users, durationSeconds, model } = rt.plan;
  if (model.kind !== 'open') throw new Error('openModel needs a rate');
  const clock = new ArrivalClock(model.stages, shard.count);
  const endS = durationSeconds;
  const pick = weightedPicker(runners);
  const idle: VirtualUser[] = [];
  const inFlight = new Set<Promise<unknown>>();

  const spawned = shardUsers(users.peak, shard).map(async (id) => {
    const spawnAt = Number.isFinite(users.spawnRate) ? startAt + (id / users.spawnRate) * 1000 : startAt;
    if (spawnAt >= startAt + durationSeconds * 1000) return;
    await sleep(spawnAt - Date.now(), signal);
    if (signal.aborted) return;
    const user = new VirtualUser(id, rt);
    await user.prepare().catch(() => undefined);
    recorder.activeUsers++;
    idle.push(user);
  });

  // Offsets the shards' arrival grids so that together they stay evenly spaced.
  const phase = shard.index / shard.count;
  // performance.now() of second 0, so intended times and completion share one monotonic clock.
  const origin = performance.now() - (Date.now() - startAt);
  let k = 0;
  // One timer at a time and one abort listener for the whole run (not one per wait): at hundreds of
  // arrivals a second, listener churn is a measurable share of the generator's CPU.
  let wake: (() => void) | undefined;
  const onAbort = () => wake?.();
  signal.addEventListener('abort', onAbort, { once: true });
  const waitMs = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, ms);
    });
  const dispatch = (startedMs: number) => {
    const user = idle.pop();
    recorder.arrival(!user);
    if (!user) return;
    const p = timedIteration(pick(), user, recorder, startedMs).finally(() => {
      idle.push(user);
      inFlight.delete(p);
    });
    inFlight.add(p);
  };
  for (;;) {
    const now = performance.now();
    let due = clock.timeOf(k + phase);
    while (due < endS && origin + due * 1000 <= now + EARLY_MS) {
      dispatch(Math.min(origin + due * 1000, now));
      k++;
      due = clock.timeOf(k + phase);
    }
    if (due >= endS || signal.aborted) break;
    await waitMs(Math.max(1, origin + due * 1000 - EARLY_MS - performance.now()));
  }
  signal.removeEventListener('abort', onAbort);
  await Promise.all(inFlight);
  await Promise.all(spawned);
};
