import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { isSdkError } from '../../../src/sdk/errors';
import { type FederationRuntime, RemoteLoader } from '../../../src/sdk/remotes';
import { entryKey, integrityPlugin, verifyIntegrity } from '../../../src/sdk/remotes/integrity';

const ENTRY = 'window.notes = {};\n';
const sri = (text: string) => `sha384-${createHash('sha384').update(text).digest('base64')}`;
const serving =
  (text: string): typeof fetch =>
  async () =>
    new Response(text, { status: 200 });

describe('remote entry integrity', () => {
  it('compares the sha384 of the bytes served with the published hash', async () => {
    expect(await verifyIntegrity('http://x/remoteEntry.js', sri(ENTRY), serving(ENTRY))).toEqual({
      status: 'match',
      actual: sri(ENTRY),
    });
    expect(await verifyIntegrity('http://x/remoteEntry.js', sri(ENTRY), serving(`${ENTRY}//x`))).toEqual({
      status: 'mismatch',
      actual: sri(`${ENTRY}//x`),
    });
    const down: typeof fetch = async () => new Response('', { status: 503 });
    expect(await verifyIntegrity('http://x/remoteEntry.js', sri(ENTRY), down)).toEqual({ status: 'unknown' });
  });

  it('keys entries without query or fragment; the plugin stays out of the way outside a browser', () => {
    expect(entryKey('http://x/remoteEntry.js?t=1#a')).toBe('http://x/remoteEntry.js');
    expect(
      integrityPlugin(() => sri(ENTRY)).createScript({ url: 'http://x/remoteEntry.js' }),
    ).toBeUndefined();
  });

  it('registers the integrity hook once, and fails a changed entry with remote_integrity_failed, no retry', async () => {
    const plugins: unknown[] = [];
    let loads = 0;
    const runtime: FederationRuntime = {
      registerRemotes: () => {},
      loadRemote: async () => {
        loads++;
        throw new Error('ScriptNetworkError');
      },
      preloadRemote: async () => {},
      registerPlugins: (p) => plugins.push(...p),
    };
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const loader = new RemoteLoader({ runtime, fetch: serving(`${ENTRY}// tampered\n`) });
    loader.register('notes', { url: 'http://x/remoteEntry.js', integrity: sri(ENTRY) });
    loader.register('other', { url: 'http://y/remoteEntry.js', integrity: sri('y') });
    // One integrity hook for every entry (beside the shared-version check every runtime gets).
    expect(plugins.map((p) => (p as { name: string }).name).sort()).toEqual([
      'desk-remote-integrity',
      'desk-remote-shared-versions',
    ]);
    expect(loader.integrityOf('notes')).toBe(sri(ENTRY));

    const error = await loader.load('notes', './views').catch((e: unknown) => e);
    expect(isSdkError(error) && error.code).toBe('remote_integrity_failed');
    expect((error as Error).message).toContain('does not match the integrity hash');
    expect(loads).toBe(1);
    expect(String(logged.mock.calls[0]?.[0])).toContain(`published ${sri(ENTRY)}`);
    logged.mockRestore();
  });

  it('keeps remote_load_failed when the entry still matches (another cause)', async () => {
    const runtime: FederationRuntime = {
      registerRemotes: () => {},
      loadRemote: async () => {
        throw new Error('chunk failed');
      },
      preloadRemote: async () => {},
    };
    const loader = new RemoteLoader({ runtime, fetch: serving(ENTRY), retries: 0 });
    loader.register('notes', { url: 'http://x/remoteEntry.js', integrity: sri(ENTRY) });
    const error = await loader.load('notes', './views').catch((e: unknown) => e);
    expect(isSdkError(error) && error.code).toBe('remote_load_failed');
  });
});
