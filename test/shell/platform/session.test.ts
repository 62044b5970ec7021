import { HttpResponse, http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { frameworkMDataProvider } from '../../../src/sdk/data';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import { withSessionGuard } from '../../../src/shell/platform/create-platform';
import { isUnauthorized, SessionStore } from '../../../src/shell/platform/session';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';

let backend: TestBackend;
beforeAll(async () => {
  backend = await startBackend();
});
afterEach(() => {
  backend.server.resetHandlers();
  backend.requests.length = 0;
  backend.env.store.clear();
});
afterAll(() => backend.server.close());

/** The Desk's data provider (the SDK's, over the mock gateway) behind the session guard. */
function guardedProvider(session: SessionStore) {
  const provider = frameworkMDataProvider({ discovery: new DiscoveryClient({ gatewayUrl: ORIGIN }) });
  return withSessionGuard(provider, session);
}

const answer = (status: number, code: string) =>
  http.get(`${ORIGIN}/api/resource/:doctype`, () =>
    HttpResponse.json({ error: { code, message: 'No.' } }, { status }),
  );

describe('SessionStore', () => {
  it('records sign-in and sign-out, and notifies only on a change', () => {
    const session = new SessionStore({ status: 'signed-out' });
    const listener = vi.fn();
    session.subscribe(listener);

    session.signedIn('Administrator');
    expect(session.getSnapshot()).toEqual({ status: 'signed-in', user: 'Administrator' });
    session.signedOut('expired');
    session.signedOut();
    expect(session.getSnapshot()).toEqual({ status: 'signed-out', reason: 'expired' });
    expect(listener).toHaveBeenCalledTimes(2);
  });

  it('treats 401 answers and the unauthorized code as a lost session, nothing else', () => {
    expect(isUnauthorized({ status: 401 })).toBe(true);
    expect(isUnauthorized({ statusCode: 401 })).toBe(true);
    expect(isUnauthorized({ code: 'unauthorized' })).toBe(true);
    expect(isUnauthorized({ status: 403, code: 'forbidden' })).toBe(false);
    expect(isUnauthorized(undefined)).toBe(false);
  });
});

describe('withSessionGuard', () => {
  it('signs the Desk out as expired when the data API answers 401, and still rejects the call', async () => {
    backend.server.use(answer(401, 'unauthorized'));
    const session = new SessionStore({ status: 'signed-in', user: 'Administrator' });
    const provider = guardedProvider(session);

    await expect(provider.getList({ resource: 'stock.Item' })).rejects.toMatchObject({ status: 401 });

    expect(session.getSnapshot()).toEqual({ status: 'signed-out', reason: 'expired' });
    expect(backend.to('/api/resource/stock.Item', 'GET')).toHaveLength(1);
  });

  it('keeps the session on other failures', async () => {
    backend.server.use(answer(403, 'forbidden'));
    const session = new SessionStore({ status: 'signed-in', user: 'Administrator' });

    await expect(guardedProvider(session).getList({ resource: 'stock.Item' })).rejects.toMatchObject({
      status: 403,
    });

    expect(session.getSnapshot()).toEqual({ status: 'signed-in', user: 'Administrator' });
  });

  it('passes answers through unchanged and leaves getApiUrl synchronous', async () => {
    const session = new SessionStore({ status: 'signed-in' });
    const provider = guardedProvider(session);
    await provider.create({ resource: 'stock.Item', variables: { item_code: 'A-1', item_name: 'Anvil' } });

    const list = await provider.getList({ resource: 'stock.Item' });

    expect(list).toMatchObject({ total: 1, data: [{ item_code: 'A-1', item_name: 'Anvil' }] });
    expect(typeof provider.getApiUrl()).toBe('string');
    expect(session.getSnapshot().status).toBe('signed-in');
  });
});
