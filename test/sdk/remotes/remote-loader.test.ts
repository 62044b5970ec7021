import { createInstance } from '@module-federation/enhanced/runtime';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isSdkError } from '../../../src/sdk/errors';
import { type FederationRuntime, RemoteLoader } from '../../../src/sdk/remotes';

/** A runtime whose remotes answer from a table: a module, an Error to throw, or 'hang'. */
function fakeRuntime(answers: Record<string, Array<unknown | Error | 'hang'>>) {
  const calls = { register: [] as unknown[][], load: [] as string[], preload: [] as unknown[] };
  const runtime: FederationRuntime = {
    registerRemotes: (remotes, options) => {
      calls.register.push([remotes, options]);
    },
    loadRemote: async <T>(id: string) => {
      calls.load.push(id);
      const next = answers[id]?.shift();
      if (next === 'hang') return new Promise<T | null>(() => {});
      if (next instanceof Error) throw next;
      return (next ?? null) as T | null;
    },
    preloadRemote: async (options) => {
      calls.preload.push(options);
      if (options[0]?.nameOrAlias === 'dead') throw new Error('entry 404');
    },
  };
  return { runtime, calls };
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('RemoteLoader', () => {
  it('registers a remote from its manifest once, replaces a changed entry, and skips data-only services', () => {
    const { runtime, calls } = fakeRuntime({});
    const loader = new RemoteLoader({ runtime });
    expect(loader.register('crm', { url: 'http://desk.test/desk/assets/crm/remoteEntry.js' })).toBe(true);
    expect(loader.register('crm', { url: 'http://desk.test/desk/assets/crm/remoteEntry.js' })).toBe(true);
    expect(loader.register('crm', { url: 'http://cdn.test/crm/remoteEntry.js' })).toBe(true);
    expect(loader.register('stock', { url: null })).toBe(false);

    expect(calls.register).toEqual([
      [[{ name: 'crm', entry: 'http://desk.test/desk/assets/crm/remoteEntry.js' }], { force: false }],
      [[{ name: 'crm', entry: 'http://cdn.test/crm/remoteEntry.js' }], { force: true }],
    ]);
    expect(loader.isRegistered('stock')).toBe(false);
  });

  it('loads an exposed module and runs the before/after hooks', async () => {
    const module = { default: 'CustomerList' };
    const { runtime, calls } = fakeRuntime({ 'crm/CustomerList': [module] });
    const loader = new RemoteLoader({ runtime });
    const events: string[] = [];
    loader.hooks.on('beforeLoadRemote', (e) => events.push(`before ${e.service} ${e.exposed} #${e.attempt}`));
    loader.hooks.on('afterLoadRemote', (e) => events.push(`after ${e.service} #${e.attempt}`));
    loader.register('crm', { url: 'http://desk.test/crm.js' });

    expect(await loader.load('crm', './CustomerList')).toBe(module);
    expect(calls.load).toEqual(['crm/CustomerList']);
    expect(events).toEqual(['before crm ./CustomerList #1', 'after crm #1']);
  });

  it('retries once after a failure, registering the remote afresh', async () => {
    const module = { ok: true };
    const { runtime, calls } = fakeRuntime({ 'crm/Form': [new Error('chunk failed'), module] });
    const loader = new RemoteLoader({ runtime });
    loader.register('crm', { url: 'http://desk.test/crm.js' });

    expect(await loader.load('crm', './Form')).toBe(module);
    expect(calls.load).toHaveLength(2);
    expect(calls.register.at(-1)).toEqual([
      [{ name: 'crm', entry: 'http://desk.test/crm.js' }],
      { force: true },
    ]);
  });

  it('fails a dead remote with remote_load_failed for that remote only', async () => {
    const { runtime } = fakeRuntime({
      'crm/List': [new Error('ECONNREFUSED'), new Error('ECONNREFUSED')],
      'stock/List': [{ ok: 'stock' }],
    });
    const loader = new RemoteLoader({ runtime });
    const failures: string[] = [];
    loader.hooks.on('loadRemoteError', (e) => failures.push(`${e.service}:${e.error.code}`));
    loader.register('crm', { url: 'http://desk.test/crm.js' });
    loader.register('stock', { url: 'http://desk.test/stock.js' });

    const [crm, stock] = await Promise.allSettled([loader.load('crm', 'List'), loader.load('stock', 'List')]);
    expect(crm.status === 'rejected' && isSdkError(crm.reason) && crm.reason.code).toBe('remote_load_failed');
    expect(stock).toEqual({ status: 'fulfilled', value: { ok: 'stock' } });
    expect(failures).toEqual(['crm:remote_load_failed']);
  });

  it('times out a hanging remote with remote_timeout after one retry (fake timers)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { runtime, calls } = fakeRuntime({ 'crm/List': ['hang', 'hang'] });
    const loader = new RemoteLoader({ runtime, timeoutMs: 1_000 });
    loader.register('crm', { url: 'http://desk.test/crm.js' });

    const pending = loader.load('crm', 'List').catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls.load).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1_000);
    const error = await pending;
    expect(isSdkError(error) && error.code).toBe('remote_timeout');
  });

  it('refuses to load or preload a service without a registered remote', async () => {
    const loader = new RemoteLoader({ runtime: fakeRuntime({}).runtime });
    await expect(loader.load('crm', 'List')).rejects.toMatchObject({ code: 'remote_not_registered' });
    await expect(loader.preload('crm')).rejects.toMatchObject({ code: 'remote_not_registered' });
  });

  it('preloads through the runtime when asked to', async () => {
    const { runtime, calls } = fakeRuntime({});
    const loader = new RemoteLoader({ runtime });
    loader.register('crm', { url: 'http://desk.test/crm.js' });
    loader.register('dead', { url: 'http://desk.test/dead.js' });

    await loader.preload('crm');
    expect(calls.preload).toEqual([[{ nameOrAlias: 'crm' }]]);
    await expect(loader.preload('dead')).rejects.toMatchObject({ code: 'remote_load_failed' });
  });

  it('warms a service by registering its remote only: no entry is preloaded or loaded (no document here)', async () => {
    const { runtime, calls } = fakeRuntime({});
    const loader = new RemoteLoader({ runtime });
    await loader.warm('crm', { url: 'http://desk.test/crm.js' });
    await loader.warm('stock', { url: null });

    expect(loader.isRegistered('crm')).toBe(true);
    expect(loader.isRegistered('stock')).toBe(false);
    expect(calls.register).toEqual([[[{ name: 'crm', entry: 'http://desk.test/crm.js' }], { force: false }]]);
    expect(calls.preload).toEqual([]);
    expect(calls.load).toEqual([]);
  });

  it('fails an unreachable remote with remote_load_failed through the real Module Federation runtime', async () => {
    const runtime = createInstance({ name: 'sdk_test_host', remotes: [] });
    const loader = new RemoteLoader({ runtime, timeoutMs: 5_000 });
    const attempts: number[] = [];
    loader.hooks.on('beforeLoadRemote', (e) => attempts.push(e.attempt));
    loader.register('crm', { url: 'http://127.0.0.1:9/remoteEntry.js' }); // nothing listens on port 9
    vi.spyOn(console, 'warn').mockImplementation(() => {}); // the runtime warns when the retry re-registers

    const error = await loader.load('crm', './views').catch((e: unknown) => e);
    expect(isSdkError(error) && error.code).toBe('remote_load_failed');
    expect(attempts).toEqual([1, 2]);
  });
});
