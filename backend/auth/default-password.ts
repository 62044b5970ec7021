import { isIP } from 'node:net';
import { PlatformError } from '../http/errors';

/** The environment variable holding Administrator's first password. */
export const ADMIN_PASSWORD_ENV = 'PLATFORM_ADMIN_PASSWORD';

/** Administrator's password when `PLATFORM_ADMIN_PASSWORD` is not set: tolerated on loopback only. */
export const DEFAULT_ADMIN_PASSWORD = 'admin';

/** True when `host` only accepts connections from this machine (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || bare.startsWith('::ffff:127.');
  return false;
}

/**
 * Refuses to serve other machines while Administrator can sign in with the default password: on a
 * non-loopback bind address, `config_invalid` (exit 78 from `m serve`) naming `PLATFORM_ADMIN_PASSWORD`.
 * `stillDefault` checks the stored password (so an Administrator created earlier with `admin` is caught too).
 * On loopback the default stays usable and the caller logs its warning.
 */
export async function refuseDefaultPasswordOffLoopback(
  host: string,
  stillDefault: () => Promise<boolean>,
): Promise<void> {
  if (isLoopbackHost(host)) return;
  if (!(await stillDefault())) return;
  throw new PlatformError(
    'config_invalid',
    `Administrator's password is the default "${DEFAULT_ADMIN_PASSWORD}" and the server binds ${host}, which other machines can reach: set ${ADMIN_PASSWORD_ENV} (first start) or change the password with "m user passwd Administrator".`,
  );
}
