import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort, stopProcess } from './desk-target';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** `npm run dev` (webpack-dev-server with the MSW mocks) on a free port, started by `startDevServer`. */
export interface DevServer {
  /** The Desk's URL, `http://127.0.0.1:<port>/desk/`. */
  deskUrl: string;
  /** Stops the server (SIGTERM, then SIGKILL) and resolves once it has exited. */
  stop(): Promise<void>;
}

/** Starts `scripts/dev.js` on a free port; resolves once webpack has compiled and the server listens. */
export async function startDevServer(): Promise<DevServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(ROOT, 'scripts', 'dev.js'), '--port', String(port)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('compiled') && out.includes('on http://')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`dev server exited with ${code}: ${out}`)));
  });
  return { deskUrl: `http://127.0.0.1:${port}/desk/`, stop: () => stopProcess(child) };
}
