import { type Executor, shardUsers, sleep, timedIteration, weightedPicker } from '../executor';
import { VirtualUser } from '../virtual-user';

/**
 * Time in seconds of the `k`-th arrival when the rate ramps linearly from 0 to `rate` over `ramp` seconds
 * and then holds: arrivals up to t are `rate t^2 / 2 ramp` during the ramp and `rate (t - ramp/2)` after.
 */
export function arrivalTime(k: number, rate: number, ramp: number): number {
  if (ramp > 0 && k < (rate * ramp) / 2) return Math.sqrt((2 * k * ramp) / rate);
  return k / rate + ramp / 2;
}

/**
 * The open model (constant arrival rate, as k6's `constant-arrival-rate`): requests arrive at the target
 * rate whatever the target's latency; each arrival is served by an idle user (users log in as they spawn,
 * `users.peak` at most). Latency is measured from the arrival's intended time, so a slow target or a
 * late generator shows in the percentiles instead of silently lowering the rate (no coordinated
 * omission). An arrival with no idle user is dropped and counted.
 */
export const openModel: Executor = async ({ rt, runners, recorder, shard, startAt, signal }) => {
  const { users, durationSeconds, model } = rt.plan;
  if (model.kind !== 'open') throw new Error('openModel needs a rate');
  const rate = model.ratePerSecond / shard.count;
  const ramp = users.rampUpSeconds;
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
  const dispatch = (intended: number) => {
    const user = idle.pop();
    recorder.arrival(!user);
    if (!user) return;
    const p = timedIteration(pick(), user, recorder, intended).finally(() => {
      idle.push(user);
      inFlight.delete(p);
    });
    inFlight.add(p);
  };
  for (;;) {
    // Dispatch every arrival that is due, then wait (always yielding to I/O) until the next one.
    const now = performance.now();
    let due = arrivalTime(k + phase, rate, ramp);
    while (due < endS && origin + due * 1000 <= now) {
      dispatch(origin + due * 1000);
      k++;
      due = arrivalTime(k + phase, rate, ramp);
    }
    if (due >= endS || signal.aborted) break;
    const wait = origin + due * 1000 - performance.now();
    await (wait >= 1 ? sleep(wait, signal) : new Promise<void>((r) => setImmediate(r)));
  }
  await Promise.all(inFlight);
  await Promise.all(spawned);
};
