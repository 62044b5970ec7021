import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/protocol';
import { httpErrorFrom } from '../../src/sdk/http';

describe('Retry-After', () => {
  const now = Date.parse('2026-11-27T10:00:00Z');

  it('reads delay-seconds and HTTP-dates, a past date as no wait, and nothing from what is malformed', () => {
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Fri, 27 Nov 2026 10:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('Fri, 27 Nov 2026 09:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it("is kept on the SDK's HTTP error of a refused sign-in, and absent without the header", async () => {
    const busy = await httpErrorFrom(
      new Response(JSON.stringify({ error: { code: 'login_busy', message: 'Busy.' } }), {
        status: 503,
        headers: { 'content-type': 'application/json', 'retry-after': '4' },
      }),
    );
    expect(busy).toMatchObject({ code: 'login_busy', status: 503, retryAfterMs: 4_000 });
    const plain = await httpErrorFrom(new Response('{}', { status: 500 }));
    expect(plain.retryAfterMs).toBeUndefined();
  });
});
