import { type Executor, shardUsers, sleep, thinkMs, timedIteration, weightedPicker } from '../executor';
import { userWindows } from '../stages';
import { VirtualUser } from '../virtual-user';

/** Pause after a request that got no response, so a dead target is not hammered in a tight loop. */
const ERROR_BACKOFF_MS = 100;

/**
 * The closed user model (ramping users, k6's `ramping-vus`): the number of running users follows the
 * plan's stages (`users.stages`, or 0 to `users.peak` over the ramp-up, then held). User `i` runs while
 * the planned count is above `i`, so users start in order as it rises and the last ones stop first as it
 * falls (a request in flight finishes). A running user logs in once, then loops: pick a scenario by
 * weight, send, wait its think time. The request rate follows from the users, their think time and the
 * target's latency; latency is measured from the moment each request starts.
 */
export const closedModel: Executor = async ({ rt, runners, recorder, shard, startAt, signal, pause }) => {
  const { users, durationSeconds, model } = rt.plan;
  const pick = weightedPicker(runners);
  const runUser = async (id: number) => {
    let user: VirtualUser | undefined;
    for (const [from, to] of userWindows(model.stages, id, durationSeconds)) {
      await sleep(startAt + from * 1000 - Date.now(), signal);
      const until = startAt + to * 1000;
      if (signal.aborted) return;
      if (Date.now() >= until) continue;
      recorder.activeUsers++;
      if (!user) {
        user = new VirtualUser(id, rt, pause);
        // A failed login is retried (and recorded) by the first request that needs it.
        await user.prepare().catch(() => undefined);
      }
      while (!signal.aborted && Date.now() < until) {
        const ok = await timedIteration(pick(), user, recorder, performance.now());
        const thinkOrBackoffMs = Math.max(thinkMs(users.thinkTime), ok ? 0 : ERROR_BACKOFF_MS);
        if (thinkOrBackoffMs > 0) await sleep(Math.min(thinkOrBackoffMs, until - Date.now()), signal);
      }
      recorder.activeUsers--;
    }
  };
  await Promise.all(shardUsers(users.peak, shard).map(runUser));
};
