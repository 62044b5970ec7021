import type { AuthPlan } from '../../config/plan';
import { type Executor, shardUsers, sleep, timedIteration, weightedPicker } from '../executor';
import { ArrivalClock } from '../stages';
import { VirtualUser } from '../virtual-user';

/**
 * How long before an arrival's time the executor wakes for it. Node's timers fire on a millisecond clock
 * read at the start of the event-loop turn, so a timer can fire up to about a millisecond before the
 * exact time it was set for; waking this early and sending what is due within `generator.batch_ms` (at
 * least 2) sends each arrival on the first wake-up instead of sleeping once more for the remaining
 * fraction of a millisecond.
 */
const WAKE_AHEAD_MS = 1;

/**
 * The longest sleep between wake-ups: the open model measures the event-loop delay from how late its own
 * wake-ups come (no monitor waking the process on its own), so at very low rates it still wakes this often.
 */
const MAX_SLEEP_MS = 50;

/** Auth providers whose users must log in before their first request (the others send fixed headers). */
function needsLogin(auth: AuthPlan): boolean {
  return auth.mode === 'session' || auth.mode === 'custom';
}

/**
 * The open model (arrival rate, as k6's `ramping-arrival-rate`): requests arrive at the planned rate
 * (`rate.stages`, or the constant rate ramped over `users.ramp_up_seconds`) whatever the target's latency;
 * each arrival is served by an idle user (`users.peak` at most, spawned at `users.spawn_rate`). Latency
 * runs from the arrival's intended time (or from its sending, if that was earlier), so a slow target or a
 * late generator shows in the percentiles instead of silently lowering the rate (no coordinated omission).
 * An arrival with no idle user is dropped and counted.
 *
 * A wake-up sends every arrival due within `generator.batch_ms` (default 20): at moderate rates the
 * process being woken is most of a generator's cost, and arrivals sent together also tend to have their
 * responses read in one pass of the event loop. The later arrivals of a batch go early (never late),
 * each measured from its own sending, so no latency is shortened or lengthened by the batching; the
 * target sees the planned rate in bursts of at most that length.
 *
 * Users that log in (session, custom auth) do so as they spawn, so the first requests are not slowed by
 * it. Users with fixed headers hold no state, so a spawned user is only made when an arrival finds no idle
 * one: the pool grows to the concurrency the target actually needs, not to `users.peak` objects.
 */
export const openModel: Executor = async ({ rt, runners, recorder, shard, startAt, signal, pause }) => {
  const { users, durationSeconds, model } = rt.plan;
  const batchMs = rt.plan.generator.batchMs;
  if (model.kind !== 'open') throw new Error('openModel needs a rate');
  const clock = new ArrivalClock(model.stages, shard.count);
  const endS = durationSeconds;
  const endMs = durationSeconds * 1000;
  const pick = weightedPicker(runners);
  // Requests in flight, and the resolver of the final wait for them.
  let busy = 0;
  let drained: (() => void) | undefined;
  /** A user and the callback that makes it idle again after an iteration (one closure per user). */
  interface Slot {
    user: VirtualUser;
    done: () => void;
  }
  const slotOf = (user: VirtualUser): Slot => {
    const slot: Slot = {
      user,
      done: () => {
        idle.push(slot);
        if (--busy === 0) drained?.();
      },
    };
    return slot;
  };
  const idle: Slot[] = [];
  const ids = shardUsers(users.peak, shard);
  const spawnMs = (id: number) => (Number.isFinite(users.spawnRate) ? (id / users.spawnRate) * 1000 : 0);
  const eager = rt.plan.scenarios.some((s) => needsLogin(s.auth));
  // Lazy users: how many are spawned by now, and how many of those were made.
  let spawned = 0;
  let made = 0;

  const spawning = eager
    ? ids.map(async (id) => {
        if (spawnMs(id) >= endMs) return;
        await sleep(startAt + spawnMs(id) - Date.now(), signal);
        if (signal.aborted) return;
        const user = new VirtualUser(id, rt, pause);
        await user.prepare().catch(() => undefined);
        recorder.activeUsers++;
        idle.push(slotOf(user));
      })
    : [];

  // Offsets the shards' arrival grids so that together they stay evenly spaced.
  const phase = shard.index / shard.count;
  // performance.now() of second 0, so intended times and completion share one monotonic clock.
  const origin = performance.now() - (Date.now() - startAt);
  const dispatch = (startedMs: number) => {
    let slot = idle.pop();
    if (!slot && made < spawned) slot = slotOf(new VirtualUser(ids[made++]!, rt, pause));
    recorder.arrival(!slot);
    if (!slot) return;
    busy++;
    // timedIteration records its own failures; the user is idle again however it ends.
    timedIteration(pick(), slot.user, recorder, startedMs).then(slot.done, slot.done);
  };
  // The schedule runs from timer callbacks, one timer at a time and one abort listener for the whole
  // run: no promise, listener or timer per arrival beyond the wake-up itself.
  await new Promise<void>((finished) => {
    // The next arrival and its time in seconds.
    let k = 0;
    let due = clock.timeOf(phase);
    let timer: NodeJS.Timeout | undefined;
    let sleptAt = 0;
    let sleepMs = 0;
    // Aborted: read on every wake-up, a flag of its own rather than the signal's getter.
    let stopped = signal.aborted;
    // One timer per sleep length, re-armed with `refresh()` once it has fired: a new timer per wake-up is
    // an object to allocate and register as an async resource, and re-arming the timer that is firing
    // keeps Node's list for its length, which is otherwise dropped and made again. At a steady rate the
    // sleeps take two or three lengths (MAX_SLEEP_MS at most).
    const wakers = new Map<number, NodeJS.Timeout>();
    /** Sends what is due at `now` (performance.now()) and sleeps until the next arrival. */
    const tick = (now: number) => {
      if (!eager) {
        // Users spawned by the latest arrival this wake-up may send (arrivals go up to batchMs early:
        // the first one, due at second 0, must find the first user).
        const horizon = now - origin + batchMs;
        while (spawned < ids.length && spawnMs(ids[spawned]!) <= horizon && spawnMs(ids[spawned]!) < endMs)
          spawned++;
        recorder.activeUsers = spawned;
      }
      // Every arrival due within batchMs goes now: the first on time, the others early, each measured
      // from its sending. The next wake-up is then at least batchMs - WAKE_AHEAD_MS away.
      while (due < endS && origin + due * 1000 <= now + batchMs) {
        dispatch(Math.min(origin + due * 1000, now));
        k++;
        due = clock.timeOf(k + phase);
      }
      if (due >= endS || stopped) {
        signal.removeEventListener('abort', onAbort);
        finished();
        return;
      }
      // Whole milliseconds: Node's timers count whole milliseconds, and a fractional delay fires once at
      // the whole part and again a millisecond later.
      sleepMs = Math.min(MAX_SLEEP_MS, Math.max(1, Math.round(origin + due * 1000 - now - WAKE_AHEAD_MS)));
      // Node counts a timer from the event loop's time, taken before this wake-up's callbacks ran: the
      // wake-up's own start is the closer base for its lateness (and saves a clock read).
      sleptAt = now;
      timer = wakers.get(sleepMs);
      if (timer) timer.refresh();
      else {
        timer = setTimeout(onWake, sleepMs);
        wakers.set(sleepMs, timer);
      }
    };
    const onWake = () => {
      const now = performance.now();
      recorder.lagSample(Math.max(0, now - sleptAt - sleepMs));
      tick(now);
    };
    const onAbort = () => {
      stopped = true;
      clearTimeout(timer);
      tick(performance.now());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    tick(performance.now());
  });
  if (busy > 0) await new Promise<void>((resolve) => (drained = resolve));
  await Promise.all(spawning);
};
