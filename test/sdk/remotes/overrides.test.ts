import { describe, expect, it } from 'vitest';
import { isAllowedOverrideUrl, OVERRIDES_STORAGE_KEY, RemoteOverrides } from '../../../src/sdk/remotes';

function memoryStorage() {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (k: string) => items.get(k) ?? null,
    setItem: (k: string, v: string) => void items.set(k, v),
    removeItem: (k: string) => void items.delete(k),
  };
}

const policy = { allowed: true, origins: ['https://dev.example.com'] };

describe('remote overrides', () => {
  it('accepts only http://localhost, http://127.0.0.1 and the listed origins', () => {
    expect(isAllowedOverrideUrl('http://localhost:3001/remoteEntry.js', policy)).toBe(true);
    expect(isAllowedOverrideUrl('http://127.0.0.1:5000/remoteEntry.js', policy)).toBe(true);
    expect(isAllowedOverrideUrl('https://dev.example.com/notes/remoteEntry.js', policy)).toBe(true);
    expect(isAllowedOverrideUrl('https://localhost.evil.com/remoteEntry.js', policy)).toBe(false);
    expect(isAllowedOverrideUrl('http://evil.com/remoteEntry.js', policy)).toBe(false);
    expect(isAllowedOverrideUrl('javascript:alert(1)', policy)).toBe(false);
    expect(isAllowedOverrideUrl('http://user:pw@localhost/remoteEntry.js', policy)).toBe(false);
  });

  it('captures ?override= once into storage, drops it from the query and replaces the entry without integrity', () => {
    const storage = memoryStorage();
    const overrides = new RemoteOverrides(policy, storage);
    const { refused, rest } = overrides.capture(
      '?a=1&override=notes=http://localhost:3001/remoteEntry.js&override=crm=http://evil.com/x.js',
    );
    expect(rest).toBe('?a=1');
    expect(refused).toEqual([{ service: 'crm', url: 'http://evil.com/x.js', reason: 'invalid_origin' }]);
    expect(JSON.parse(storage.items.get(OVERRIDES_STORAGE_KEY)!)).toEqual({
      notes: 'http://localhost:3001/remoteEntry.js',
    });
    expect(
      overrides.apply('notes', { url: 'http://desk/notes/remoteEntry.js', integrity: 'sha384-x' }),
    ).toEqual({
      url: 'http://localhost:3001/remoteEntry.js',
    });
    expect(overrides.apply('crm', { url: 'http://desk/crm/remoteEntry.js', integrity: 'sha384-y' })).toEqual({
      url: 'http://desk/crm/remoteEntry.js',
      integrity: 'sha384-y',
    });
    overrides.reset('notes');
    expect(overrides.list()).toEqual({});
  });

  it('does nothing when the Desk does not allow overrides, even with stored entries', () => {
    const storage = memoryStorage();
    storage.setItem(OVERRIDES_STORAGE_KEY, JSON.stringify({ notes: 'http://localhost:3001/remoteEntry.js' }));
    const overrides = new RemoteOverrides({ allowed: false, origins: [] }, storage);
    expect(overrides.list()).toEqual({});
    expect(overrides.set('notes', 'http://localhost:3001/remoteEntry.js')).toEqual({
      ok: false,
      reason: 'not_allowed',
    });
    expect(overrides.apply('notes', { url: 'http://desk/x.js' })).toEqual({ url: 'http://desk/x.js' });
  });
});
