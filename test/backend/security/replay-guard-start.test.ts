import { describe, expect, it } from 'vitest';
import { ReplayGuard } from '../../../backend/security/replay/replay-guard';
import { MemorySeenSet } from '../../../backend/security/replay/seen-set';

const START_MS = 1_700_000_000_500;

function guard(now: number) {
  return new ReplayGuard({
    seen: new MemorySeenSet({ now: () => now }),
    windowSeconds: 300,
    clockSkewSeconds: 60,
    notBeforeMs: START_MS,
    now: () => now,
  });
}

const code = async (promise: Promise<void>) =>
  promise.then(
    () => 'accepted',
    (err: { code?: string }) => err.code,
  );

describe('ReplayGuard after a start without the seen ids', () => {
  it('refuses a token whose second ended before the start, inside the window, with replayed', async () => {
    const g = guard(START_MS + 10_000);
    expect(await code(g.check({ iat: Math.floor(START_MS / 1000) - 1, jti: 'before' }))).toBe('replayed');
    expect(await code(g.check({ iat: Math.floor(START_MS / 1000) - 120, jti: 'long-before' }))).toBe(
      'replayed',
    );
  });

  it('accepts a token of the start second or later, once', async () => {
    const g = guard(START_MS + 10_000);
    expect(await code(g.check({ iat: Math.floor(START_MS / 1000), jti: 'same-second' }))).toBe('accepted');
    expect(await code(g.check({ iat: Math.floor(START_MS / 1000) + 5, jti: 'after' }))).toBe('accepted');
    expect(await code(g.check({ iat: Math.floor(START_MS / 1000) + 5, jti: 'after' }))).toBe('replayed');
  });
});
