import { describe, expect, it } from 'vitest';
import { isLoopbackHost, refuseDefaultPasswordOffLoopback } from '../../../backend/auth/default-password';

describe('the default Administrator password', () => {
  it('knows loopback addresses', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost'])
      expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'desk.example.com', '192.168.1.2']) {
      expect(isLoopbackHost(host)).toBe(false);
    }
  });

  it('is refused off loopback with config_invalid naming PLATFORM_ADMIN_PASSWORD, and kept on loopback', async () => {
    await expect(refuseDefaultPasswordOffLoopback('0.0.0.0', async () => true)).rejects.toMatchObject({
      code: 'config_invalid',
      message: expect.stringContaining('PLATFORM_ADMIN_PASSWORD'),
    });
    await expect(refuseDefaultPasswordOffLoopback('0.0.0.0', async () => false)).resolves.toBeUndefined();
    await expect(refuseDefaultPasswordOffLoopback('127.0.0.1', async () => true)).resolves.toBeUndefined();
  });
});
