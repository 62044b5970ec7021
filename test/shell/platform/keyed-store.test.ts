import { describe, expect, it, vi } from 'vitest';
import { KeyedStore } from '../../../src/shell/platform/keyed-store';

/** A loader whose calls the test settles by hand. */
function manualLoader() {
  const calls: Array<{ key: string; resolve(v: string): void; reject(e: unknown): void }> = [];
  const loader = vi.fn(
    (key: string) =>
      new Promise<string>((resolve, reject) => {
        calls.push({ key, resolve, reject });
      }),
  );
  return { loader, calls };
}

/** Lets the store's promise chain run. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('KeyedStore', () => {
  it('shares one in-flight load per key between callers', async () => {
    const { loader, calls } = manualLoader();
    const store = new KeyedStore(loader);

    const first = store.load('crm');
    const second = store.load('crm');
    const other = store.load('stock');
    await tick();
    expect(loader.mock.calls.map(([key]) => key)).toEqual(['crm', 'stock']);
    expect(store.get('crm')).toEqual({ status: 'loading' });

    calls[0]!.resolve('crm views');
    await expect(first).resolves.toBe('crm views');
    await expect(second).resolves.toBe('crm views');
    expect(store.get('crm')).toEqual({ status: 'ready', value: 'crm views' });
    expect(store.get('stock')).toEqual({ status: 'loading' });

    // A loaded key answers from the cache.
    await expect(store.load('crm')).resolves.toBe('crm views');
    expect(loader).toHaveBeenCalledTimes(2);
    calls[1]!.resolve('stock views');
    await other;
  });

  it('keeps a failure until retry, which starts a clean load', async () => {
    const { loader, calls } = manualLoader();
    const store = new KeyedStore(loader);
    const failure = Object.assign(new Error('remote down'), { code: 'remote_load_failed' });

    const first = store.load('crm');
    await tick();
    calls[0]!.reject(failure);
    await expect(first).rejects.toBe(failure);
    expect(store.get('crm')).toEqual({ status: 'error', error: failure });

    // load() does not hammer a failing service: it answers with the recorded failure.
    await expect(store.load('crm')).rejects.toBe(failure);
    expect(loader).toHaveBeenCalledTimes(1);

    const retried = store.retry('crm');
    expect(store.get('crm')).toEqual({ status: 'loading' });
    // A second retry while the first is in flight joins it.
    const joined = store.retry('crm');
    await tick();
    expect(loader).toHaveBeenCalledTimes(2);
    calls[1]!.resolve('crm views');
    await expect(retried).resolves.toBe('crm views');
    await expect(joined).resolves.toBe('crm views');
    expect(store.get('crm')).toEqual({ status: 'ready', value: 'crm views' });
  });

  it('publishes a new snapshot on every change and keeps it stable in between', async () => {
    const { loader, calls } = manualLoader();
    const store = new KeyedStore(loader);
    const seen: unknown[] = [];
    const unsubscribe = store.subscribe(() => seen.push(store.getSnapshot()));
    const initial = store.getSnapshot();

    const loading = store.load('crm');
    expect(store.getSnapshot()).not.toBe(initial);
    expect(store.getSnapshot()).toBe(store.getSnapshot());
    await tick();
    calls[0]!.resolve('v');
    await loading;
    store.set('stock', 'pushed');
    unsubscribe();
    store.set('other', 'unheard');

    expect(seen).toEqual([
      { crm: { status: 'loading' } },
      { crm: { status: 'ready', value: 'v' } },
      { crm: { status: 'ready', value: 'v' }, stock: { status: 'ready', value: 'pushed' } },
    ]);
  });

  it('never leaves an unhandled rejection when only the state is watched', async () => {
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      const store = new KeyedStore<string>(() => Promise.reject(new Error('down')));
      // As the React hooks do: start the load, read the outcome from the state only.
      void store.load('crm');
      await tick();
      void store.retry('crm');
      await tick();
      await tick();
      expect(store.get('crm')).toMatchObject({ status: 'error' });
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });
});

describe('KeyedStore.refresh', () => {
  it('loads a ready key again with its value still shown; a failure keeps the value, a success replaces it', async () => {
    const { loader, calls } = manualLoader();
    const store = new KeyedStore(loader);
    const loaded = store.load('crm');
    await tick();
    calls[0]!.resolve('v1');
    await loaded;

    const failing = store.refresh('crm');
    await tick();
    expect(store.get('crm')).toEqual({ status: 'ready', value: 'v1' });
    calls[1]!.reject(new Error('down'));
    await expect(failing).rejects.toThrow('down');
    expect(store.get('crm')).toEqual({ status: 'ready', value: 'v1' });

    const refreshed = store.refresh('crm');
    expect(store.refresh('crm')).toBe(refreshed);
    await tick();
    calls[2]!.resolve('v2');
    await expect(refreshed).resolves.toBe('v2');
    expect(store.get('crm')).toEqual({ status: 'ready', value: 'v2' });
    expect(loader).toHaveBeenCalledTimes(3);
  });
});
