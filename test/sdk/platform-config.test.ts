import { describe, expect, it } from 'vitest';
import { isSdkError, SdkError } from '../../src/sdk/errors';
import { readPlatformConfig } from '../../src/sdk/platform-config';

const valid = {
  mode: 'monolith',
  gatewayUrl: '',
  deskBase: '/desk/',
  coreServices: ['crm', 'stock'],
  securityConfigUrl: '/api/v1/security/config',
  version: '0.1.0',
};

describe('readPlatformConfig', () => {
  it('returns the validated config, without unknown members', () => {
    expect(readPlatformConfig({ __PLATFORM_CONFIG__: { ...valid, extra: 1 } })).toEqual(valid);
  });

  it('fails with platform_config_invalid when the config is missing', () => {
    expect(() => readPlatformConfig({})).toThrow(
      expect.objectContaining({ code: 'platform_config_invalid' }),
    );
  });

  it('names every invalid field at once', () => {
    const error = (() => {
      try {
        readPlatformConfig({
          __PLATFORM_CONFIG__: { ...valid, mode: 'cluster', coreServices: 'crm', version: 1 },
        });
      } catch (e) {
        return e;
      }
    })();
    expect(isSdkError(error) && error.code).toBe('platform_config_invalid');
    expect((error as SdkError).fields?.map((f) => f.field)).toEqual(['mode', 'version', 'coreServices']);
  });
});

describe('isSdkError', () => {
  it('recognises SDK errors by brand and shape, not by class identity', () => {
    const fromAnotherCopy = Object.assign(new Error('x'), { name: 'SdkError', code: 'remote_timeout' });
    expect(isSdkError(new SdkError('http_error', 'x', { status: 500 }))).toBe(true);
    expect(isSdkError(fromAnotherCopy)).toBe(true);
    expect(isSdkError(new Error('x'))).toBe(false);
    expect(isSdkError({ code: 'x' })).toBe(false);
  });
});
