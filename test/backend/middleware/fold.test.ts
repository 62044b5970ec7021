import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppEnv } from '../../../backend/http/env';
import { errorResponse, handleError, PlatformError } from '../../../backend/http/errors';
import { chainSteps, middlewareChain } from '../../../backend/middleware/chain';
import { type ChainStep, foldSteps, stepMiddleware } from '../../../backend/middleware/step';
import { createTestApp, type TestApp } from '../../helpers/test-app';
import { errorOf } from '../security/jwe-support';

/** What the steps and the handler did, in order. */
let log: string[] = [];

/** A step that records its enter and leave; `behaviour` decides what its enter does. */
function step(
  name: string,
  behaviour: 'pass' | 'async' | 'throw' | 'answer' = 'pass',
  options: { leave?: boolean } = {},
): ChainStep {
  const s: ChainStep = {
    name,
    enter(c) {
      log.push(`enter ${name}`);
      switch (behaviour) {
        case 'pass':
          return undefined;
        case 'async':
          return Promise.resolve().then(() => {
            log.push(`resolved ${name}`);
            return undefined;
          });
        case 'throw':
          throw new PlatformError('forbidden', `${name} refuses`, { status: 403 });
        case 'answer':
          return errorResponse(c, 429, 'rate_limited', `${name} answers`);
      }
    },
  };
  if (options.leave) {
    s.leave = (c) => {
      log.push(`leave ${name} ${c.res.status}${c.error ? ` ${c.error.message}` : ''}`);
    };
  }
  return s;
}

/** An app with the given steps in front of one route, folded (the app's form) or as separate middleware. */
function appWith(steps: ChainStep[], folded: boolean): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const onError = handleError(() => {});
  app.onError(onError);
  if (folded) app.use('*', foldSteps(steps, onError));
  else for (const s of steps) app.use('*', stepMiddleware(s));
  app.get('/x', (c) => {
    log.push('handler');
    return c.json({ ok: true });
  });
  app.get('/boom', () => {
    log.push('handler');
    throw new PlatformError('conflict', 'handler fails', { status: 409 });
  });
  return app;
}

/** Runs `path` through both forms of the same steps; they must answer and behave alike. */
async function both(make: () => ChainStep[], path = '/x') {
  const runs = [];
  for (const folded of [true, false]) {
    log = [];
    const res = await appWith(make(), folded).request(path);
    runs.push({ status: res.status, body: await res.json(), log });
  }
  expect(runs[0]).toEqual(runs[1]);
  return runs[0]!;
}

describe('foldSteps', () => {
  it('runs every step in order, then the handler, then the leaves last first', async () => {
    const run = await both(() => [
      step('a', 'pass', { leave: true }),
      step('b'),
      step('c', 'pass', { leave: true }),
    ]);
    expect(run.status).toBe(200);
    expect(run.log).toEqual(['enter a', 'enter b', 'enter c', 'handler', 'leave c 200', 'leave a 200']);
  });

  it('awaits a step that returns a promise and goes on with the next', async () => {
    const run = await both(() => [step('a', 'pass', { leave: true }), step('b', 'async'), step('c')]);
    expect(run.log).toEqual(['enter a', 'enter b', 'resolved b', 'enter c', 'handler', 'leave a 200']);
  });

  it('stops at a step that throws: its error answer, later steps and the handler skipped, earlier ones leave', async () => {
    const run = await both(() => [
      step('a', 'pass', { leave: true }),
      step('b', 'throw'),
      step('c', 'pass', { leave: true }),
    ]);
    expect(run.status).toBe(403);
    expect(run.body).toEqual({ error: { code: 'forbidden', message: 'b refuses' } });
    expect(run.log).toEqual(['enter a', 'enter b', 'leave a 403 b refuses']);
  });

  it('stops at a step that throws after an awaited one', async () => {
    const run = await both(() => [step('a', 'async', { leave: true }), step('b', 'throw'), step('c')]);
    expect(run.status).toBe(403);
    expect(run.log).toEqual(['enter a', 'resolved a', 'enter b', 'leave a 403 b refuses']);
  });

  it('stops at a step that answers: that answer, earlier steps leave on it', async () => {
    const run = await both(() => [step('a', 'pass', { leave: true }), step('b', 'answer'), step('c')]);
    expect(run.status).toBe(429);
    expect(run.body).toEqual({ error: { code: 'rate_limited', message: 'b answers' } });
    expect(run.log).toEqual(['enter a', 'enter b', 'leave a 429']);
  });

  it('lets the steps leave on the error answer of a handler that throws', async () => {
    const run = await both(
      () => [step('a', 'pass', { leave: true }), step('b', 'async', { leave: true })],
      '/boom',
    );
    expect(run.status).toBe(409);
    expect(run.log).toEqual([
      'enter a',
      'enter b',
      'resolved b',
      'handler',
      'leave b 409 handler fails',
      'leave a 409 handler fails',
    ]);
  });

  it('calls the next handler synchronously when no step waits and none leaves', () => {
    const chain = foldSteps(
      [step('a'), step('b')],
      handleError(() => {}),
    );
    const calls: string[] = [];
    const next = () => {
      calls.push('next');
      return Promise.resolve();
    };
    log = [];
    // biome-ignore lint/suspicious/noExplicitAny: a bare context is enough for steps that read nothing
    chain({} as any, next);
    expect(log).toEqual(['enter a', 'enter b']);
    expect(calls).toEqual(['next']);
  });
});

describe('securityChain (the app mounts the folded chain)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ config: { 'security.payload_encryption.mode': 'strict' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('folds the steps in the priority order of the table, as the separate middleware run', () => {
    const names = (list: Array<{ name: string }>) => list.map((s) => s.name);
    expect(names(chainSteps(t.ctx))).toEqual(names(middlewareChain(t.ctx)));
    expect(names(chainSteps(t.ctx))).toHaveLength(8);
  });

  it('refuses a broken URL (6) before an anonymous request to a protected path is 401 (50)', async () => {
    const res = await t.app.request('/api/resource/crm.Lead?name=%zz');
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe('invalid_url');
  });

  it('refuses a plaintext write in strict mode (15) before the missing credential (50)', async () => {
    const res = await t.app.request('/api/resource/crm.Lead', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'x' }),
    });
    expect(res.status).toBe(415);
    expect((await errorOf(res)).code).toBe('encryption_required');
  });

  it('refuses a bad Idempotency-Key (30) before the credential is checked (50)', async () => {
    const res = await t.app.request('/api/method/crm.api.ping', {
      method: 'POST',
      headers: { authorization: 'token nosuchkey:nosuchsecret', 'idempotency-key': 'k'.repeat(256) },
    });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe('invalid_idempotency_key');
  });

  it('answers 401 with the one body when the last step finds no principal', async () => {
    const res = await t.app.request('/api/method/crm.api.ping', {
      method: 'POST',
      headers: { authorization: 'token nosuchkey:nosuchsecret' },
    });
    expect(res.status).toBe(401);
    expect((await errorOf(res)).code).toBe('unauthorized');
  });
});
