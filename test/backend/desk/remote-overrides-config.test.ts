import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../backend/config/load-config';
import { platformConfigPayload } from '../../../backend/desk/platform-config';

const payload = (overrides: Record<string, unknown>) =>
  platformConfigPayload(loadConfig({ env: {}, overrides }), 'http://127.0.0.1:8000/desk/', '0.1.0')
    .remoteOverrides;

describe('desk.allow_remote_overrides', () => {
  it('defaults to on for a loopback bind and off otherwise', () => {
    expect(payload({ 'server.host': '127.0.0.1' })).toEqual({ allowed: true, origins: [] });
    expect(payload({ 'server.host': '0.0.0.0' })).toEqual({ allowed: false, origins: [] });
  });

  it('follows the setting and passes desk.override_origins to the Desk', () => {
    expect(
      payload({
        'server.host': '0.0.0.0',
        'desk.allow_remote_overrides': true,
        'desk.override_origins': ['https://dev.example.com'],
      }),
    ).toEqual({ allowed: true, origins: ['https://dev.example.com'] });
    expect(payload({ 'server.host': '127.0.0.1', 'desk.allow_remote_overrides': false })?.allowed).toBe(
      false,
    );
  });
});
