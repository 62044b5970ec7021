/**
 * What the log says of an unexpected error (docs/security.md#personal-data-stays-out-of-errors-and-logs): its
 * name, its code and where it was thrown, never its message, which app code may have composed from a
 * decrypted value; the answer is the one 500 `internal_error` body.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { handleError } from '../../../backend/http/errors';

const EMAIL = 'ada.error-log@example.com';

function appThrowing(err: Error) {
  const logged: string[] = [];
  const app = new Hono();
  app.onError(handleError((line) => logged.push(line)));
  app.post('/api/method/clinic.api.boom', () => {
    throw err;
  });
  return { app, logged };
}

describe('the log of an unexpected error', () => {
  it('names the error and where it was thrown, not the value its message quotes', async () => {
    const { app, logged } = appThrowing(new Error(`no patient with ${EMAIL}`));
    const res = await app.request('/api/method/clinic.api.boom', { method: 'POST' });
    expect(res.status).toBe(500);
    const body = await res.text();
    expect(JSON.parse(body).error.code).toBe('internal_error');
    expect(body).not.toContain(EMAIL);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(
      /^POST \/api\/method\/clinic\.api\.boom -> 500 internal_error: Error at test\/backend\/http\/error-log\.test\.ts:\d+:\d+$/,
    );
    expect(logged[0]).not.toContain(EMAIL);
  });

  it("keeps a system or database error's code", async () => {
    const { app, logged } = appThrowing(
      Object.assign(new TypeError(`${EMAIL} refused`), { code: 'ECONNREFUSED' }),
    );
    await app.request('/api/method/clinic.api.boom', { method: 'POST' });
    expect(logged[0]).toContain(
      '500 internal_error: TypeError (ECONNREFUSED) at test/backend/http/error-log.test.ts:',
    );
    expect(logged[0]).not.toContain(EMAIL);
  });
});
