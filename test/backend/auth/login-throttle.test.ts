import { describe, expect, it } from 'vitest';
import { KvAttemptStore, MemoryAttemptStore } from '../../../backend/auth/login-attempts';
import { LoginThrottle, type ThrottleDecision } from '../../../backend/auth/login-throttle';
import { InProcessBus } from '../../../backend/bus/in-process-bus';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

async function fail(
  throttle: LoginThrottle,
  account: string,
  address = '10.0.0.1',
): Promise<ThrottleDecision> {
  const decision = await throttle.begin(account, address);
  if (decision.allowed) await decision.attempt.failed();
  return decision;
}

describe('LoginThrottle', () => {
  it('refuses the sixth attempt from the guessing address after five failures, whatever the case, and no one else', async () => {
    const c = clock();
    const throttle = new LoginThrottle({ store: new MemoryAttemptStore(), now: c.now });
    for (let i = 0; i < 5; i++) expect((await fail(throttle, 'ada')).allowed).toBe(true);
    const sixth = await throttle.begin('ada', '10.0.0.1');
    expect(sixth).toEqual({ allowed: false, retryAfterSeconds: 60 });
    expect((await throttle.begin('Ada', '10.0.0.1')).allowed).toBe(false);
    // The owner signing in from elsewhere is not locked out by a stranger's guesses.
    expect((await throttle.begin('ada', '10.0.0.2')).allowed).toBe(true);
    const other = await throttle.begin('grace', '10.0.0.1');
    expect(other.allowed).toBe(true);
  });

  it('locks an account everywhere once guesses spread over many addresses reach the slower ceiling', async () => {
    const throttle = new LoginThrottle({ store: new MemoryAttemptStore(), maxAccountFailures: 20 });
    for (let i = 0; i < 20; i++) {
      expect((await fail(throttle, 'Administrator', `10.1.0.${i}`)).allowed).toBe(true);
    }
    expect((await throttle.begin('administrator', '10.2.0.1')).allowed).toBe(false);
    expect((await throttle.begin('grace', '10.2.0.1')).allowed).toBe(true);
  });

  it('does not let a success reset the account-wide ceiling', async () => {
    const throttle = new LoginThrottle({ store: new MemoryAttemptStore(), maxAccountFailures: 8 });
    for (let i = 0; i < 4; i++) await fail(throttle, 'ada', `10.1.0.${i}`);
    const owner = await throttle.begin('ada', '10.9.0.1');
    if (owner.allowed) await owner.attempt.succeeded();
    for (let i = 4; i < 8; i++) await fail(throttle, 'ada', `10.1.0.${i}`);
    expect((await throttle.begin('ada', '10.9.0.1')).allowed).toBe(false);
  });

  it('doubles the lock-out for each further failure, up to the cap, and a success resets', async () => {
    const c = clock();
    const throttle = new LoginThrottle({ store: new MemoryAttemptStore(), now: c.now, maxLockMs: 200_000 });
    for (let i = 0; i < 5; i++) await fail(throttle, 'ada');
    c.advance(60_000);
    expect((await fail(throttle, 'ada')).allowed).toBe(true);
    expect(await throttle.begin('ada', '10.0.0.1')).toEqual({ allowed: false, retryAfterSeconds: 120 });
    c.advance(120_000);
    await fail(throttle, 'ada');
    expect(await throttle.begin('ada', '10.0.0.1')).toEqual({ allowed: false, retryAfterSeconds: 200 });
    c.advance(200_000);
    const right = await throttle.begin('ada', '10.0.0.1');
    expect(right.allowed).toBe(true);
    if (right.allowed) await right.attempt.succeeded();
    for (let i = 0; i < 4; i++) expect((await fail(throttle, 'ada')).allowed).toBe(true);
  });

  it('forgets failures older than the window', async () => {
    const c = clock();
    const throttle = new LoginThrottle({ store: new MemoryAttemptStore(), now: c.now });
    for (let i = 0; i < 4; i++) await fail(throttle, 'ada');
    c.advance(15 * 60_000 + 1);
    for (let i = 0; i < 4; i++) expect((await fail(throttle, 'ada')).allowed).toBe(true);
  });

  it('never throttles many successful sign-ins of one account from one address', async () => {
    const throttle = new LoginThrottle({ store: new MemoryAttemptStore() });
    const decisions = await Promise.all(Array.from({ length: 50 }, () => throttle.begin('ada', '10.0.0.1')));
    for (const d of decisions) if (d.allowed) await d.attempt.succeeded();
    expect(decisions.every((d) => d.allowed)).toBe(true);
    expect((await throttle.begin('ada', '10.0.0.1')).allowed).toBe(true);
  });

  it('locks a client address guessing across many accounts', async () => {
    const throttle = new LoginThrottle({ store: new MemoryAttemptStore(), maxAddressFailures: 10 });
    for (let i = 0; i < 10; i++) expect((await fail(throttle, `user${i}`, '10.9.9.9')).allowed).toBe(true);
    expect((await throttle.begin('someone-else', '10.9.9.9')).allowed).toBe(false);
    expect((await throttle.begin('someone-else', '10.9.9.8')).allowed).toBe(true);
  });

  it('shares counters between gateways through a key-value bucket', async () => {
    const bus = new InProcessBus();
    try {
      const kv = await bus.keyValue<never>('login_attempts', { ttlMs: 3_600_000 });
      const one = new LoginThrottle({ store: new KvAttemptStore(kv) });
      const two = new LoginThrottle({ store: new KvAttemptStore(kv) });
      for (let i = 0; i < 5; i++) await fail(i % 2 ? one : two, 'ada');
      expect((await one.begin('ada', '10.0.0.1')).allowed).toBe(false);
      expect((await two.begin('ada', '10.0.0.1')).allowed).toBe(false);
    } finally {
      await bus.close();
    }
  });

  it('runs sign-ins of one account one at a time, so a burst of guesses checks at most five passwords', async () => {
    const throttle = new LoginThrottle({ store: new MemoryAttemptStore() });
    let checked = 0;
    const guess = () =>
      throttle.oneAtATime('ada', async () => {
        const decision = await throttle.begin('ada', '10.0.0.1');
        if (!decision.allowed) return 'locked';
        checked++;
        await decision.attempt.failed();
        return 'wrong';
      });
    const answers = await Promise.all(Array.from({ length: 20 }, guess));
    expect(checked).toBe(5);
    expect(answers.filter((a) => a === 'locked')).toHaveLength(15);
  });

  it('holds refusals up to its limit at once and answers those beyond it at once', async () => {
    const waiting: (() => void)[] = [];
    const asked: number[] = [];
    const throttle = new LoginThrottle({
      store: new MemoryAttemptStore(),
      refusalHoldMs: 5000,
      maxHeldRefusals: 2,
      sleep: (ms) => {
        asked.push(ms);
        return new Promise((resolve) => waiting.push(resolve));
      },
    });
    const answered: number[] = [];
    const holds = [1, 2, 3].map((n) => throttle.holdRefusal().then(() => answered.push(n)));
    await holds[2];
    // Two are held for the configured time; the third found no room and was answered at once.
    expect(asked).toEqual([5000, 5000]);
    expect(answered).toEqual([3]);
    waiting.shift()!();
    await holds[0];
    expect(answered).toEqual([3, 1]);
    // The room it left is taken by the next refusal.
    const fourth = throttle.holdRefusal().then(() => answered.push(4));
    expect(asked).toHaveLength(3);
    for (const release of waiting.splice(0)) release();
    await Promise.all([holds[1], fourth]);
    expect(answered).toEqual([3, 1, 2, 4]);
  });

  it('stops holding a refusal when its client disconnects', async () => {
    const throttle = new LoginThrottle({ store: new MemoryAttemptStore(), refusalHoldMs: 3_600_000 });
    const client = new AbortController();
    const held = throttle.holdRefusal(client.signal);
    client.abort();
    // Without the abort this waits an hour, and the test times out.
    await held;
    // A client gone before the refusal was held is not held at all.
    await throttle.holdRefusal(client.signal);
  });
});
