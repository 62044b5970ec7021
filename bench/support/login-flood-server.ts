/**
 * The login-flood benchmark's server process: starts the platform (login-flood-platform.ts) and prints one
 * JSON line `{ url, stockUserAuthorization, victim }`; it stops on SIGTERM. A process of its own, as in a
 * deployment, so the load generator does not share the server's event loop.
 */
import { startPlatform } from './login-flood-platform';

const platform = await startPlatform();
const { url, stockUserAuthorization, victim } = platform;
process.stdout.write(`${JSON.stringify({ url, stockUserAuthorization, victim })}\n`);
process.on('SIGTERM', () => {
  void platform.close().finally(() => process.exit(0));
});
