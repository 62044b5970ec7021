/**
 * Booting the Desk: without a usable `__PLATFORM_CONFIG__` the page shows a readable alert naming what is
 * wrong instead of a blank screen, and nothing is requested; with one, the first screen renders at once.
 */
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import './support/react-act';

type BootWindow = Window & { __PLATFORM_CONFIG__?: unknown; __DESK_BOOT__?: unknown };

const fetchSpy = vi.fn<typeof fetch>(() => Promise.reject(new Error('no network in this test')));

beforeEach(() => {
  vi.resetModules();
  vi.stubGlobal('fetch', fetchSpy);
  document.head.innerHTML = '';
  document.body.innerHTML = '<div id="root"></div>';
});

afterEach(() => {
  delete (window as BootWindow).__PLATFORM_CONFIG__;
  delete (window as BootWindow).__DESK_BOOT__;
  fetchSpy.mockClear();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

/** Imports the bootstrap module (it boots on import) and lets React commit the first render. */
async function boot(): Promise<HTMLElement> {
  await act(async () => {
    await import('../../src/shell/bootstrap');
  });
  return document.getElementById('root')!;
}

describe('boot', () => {
  it('shows an alert saying the configuration is missing when there is none', async () => {
    const root = await boot();

    const alert = root.querySelector('[role="alert"]');
    expect(alert?.querySelector('h1')?.textContent).toBe('The Desk cannot start');
    expect(alert?.textContent).toContain('__PLATFORM_CONFIG__ is missing or not an object.');
    expect(alert?.textContent).toContain('platform_config_invalid');
    expect(fetchSpy).not.toHaveBeenCalled();
    expect((window as BootWindow).__DESK_BOOT__).toBeUndefined();
  });

  it('names every invalid field when the configuration is malformed', async () => {
    (window as BootWindow).__PLATFORM_CONFIG__ = {
      mode: 'cluster',
      gatewayUrl: '',
      deskBase: '/desk/',
      coreServices: 'crm',
      securityConfigUrl: '/api/v1/security/config',
      version: '1.0.0',
    };
    const root = await boot();

    const alert = root.querySelector('[role="alert"]');
    const items = [...(alert?.querySelectorAll('li') ?? [])].map((li) => li.textContent);
    expect(items).toEqual([
      'mode: must be "monolith" or "macroservice"',
      'coreServices: must be a list of service names',
    ]);
    expect(alert?.textContent).toContain('platform_config_invalid');
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('boots to the sign-in screen with a valid configuration and reports unreachable services', async () => {
    (window as BootWindow).__PLATFORM_CONFIG__ = {
      mode: 'monolith',
      gatewayUrl: 'http://desk.test',
      deskBase: '/desk/',
      coreServices: ['crm', 'stock'],
      securityConfigUrl: 'http://desk.test/api/v1/security/config',
      version: '1.0.0',
    };
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const root = await boot();

    expect(root.textContent).not.toContain('The Desk cannot start');
    // The sign-in screen's code loads on demand.
    await vi.waitFor(() => expect(root.querySelector('button[type="submit"]')?.textContent).toBe('Sign in'));
    // Every request fails here: prewarm settles anyway and names the services it could not warm.
    await vi.waitFor(() => expect((window as BootWindow).__DESK_BOOT__).toBeDefined());
    expect((window as BootWindow).__DESK_BOOT__).toMatchObject({ failed: ['crm', 'stock'] });
    expect(fetchSpy).toHaveBeenCalled();
    expect(warn).toHaveBeenCalledWith('Desk: services unavailable at boot: crm, stock');
  });
});
