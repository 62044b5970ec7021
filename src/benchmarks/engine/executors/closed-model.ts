import { type Executor, shardUsers, sleep, timedIteration, weightedPicker } from '../executor';
import { VirtualUser } from '../virtual-user';

/** Pause after a request that got no response, so a dead target is not hammered in a tight loop. */
const ERROR_BACKOFF_MS = 100;

/**
 * The closed user model (ramping users): `users.peak` users start at `users.spawn_rate` per second; each
 * logs in, then loops until the duration is over: pick a scenario by weight, send, wait its think time.
 * The request rate follows from the users, their think time and the target's latency; latency is measured
 * from the moment each request starts.
 */
export const closedModel: Executor = async ({ rt, runners, recorder, shard, startAt, signal }) => {
  const { users, durationSeconds } = rt.plan;
  const endAt = startAt + durationSeconds * 1000;
  const pick = weightedPicker(runners);
  const [thinkMin, thinkMax] = users.thinkTime;
  const runUser = async (id: number) => {
    const spawnAt = Number.isFinite(users.spawnRate) ? startAt + (id / users.spawnRate) * 1000 : startAt;
    if (spawnAt >= endAt) return;
    await sleep(spawnAt - Date.now(), signal);
    if (signal.aborted || Date.now() >= endAt) return;
    const user = new VirtualUser(id, rt);
    recorder.activeUsers++;
    // A failed login is retried (and recorded) by the first request that needs it.
    await user.prepare().catch(() => undefined);
    while (!signal.aborted && Date.now() < endAt) {
      const ok = await timedIteration(pick(), user, recorder, performance.now());
      const think = thinkMin + Math.random() * (thinkMax - thinkMin);
      const pause = Math.max(think * 1000, ok ? 0 : ERROR_BACKOFF_MS);
      if (pause > 0) await sleep(Math.min(pause, endAt - Date.now()), signal);
    }
    recorder.activeUsers--;
  };
  await Promise.all(shardUsers(users.peak, shard).map(runUser));
};
