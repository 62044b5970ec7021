import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ServeProcess, signIn, spawnM, startServe } from './helpers/serve-process';

const temp = mkdtempSync(join(tmpdir(), 'fault-datadir-'));
const running = new Set<ServeProcess>();
afterAll(async () => {
  await Promise.all([...running].map((s) => s.stop()));
  rmSync(temp, { recursive: true, force: true });
});

async function serve(dataDir: string, extra: string[] = []): Promise<ServeProcess> {
  const s = await startServe(dataDir, extra);
  running.add(s);
  return s;
}

/** Every path under `dir` whose mode gives group or others any access. */
async function openToOthers(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { recursive: true })) {
    const path = join(dir, entry);
    const info = await stat(path).catch(() => undefined);
    if (info && (info.mode & 0o077) !== 0) found.push(path);
  }
  return found;
}

describe('one server per data directory', () => {
  it('refuses a second m serve on the same data directory with exit 1 naming the holder PID', async () => {
    const dataDir = join(temp, 'shared');
    const first = await serve(dataDir);
    const second = spawnM(['serve', '--port', '0', '--data-dir', dataDir]);
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(`PID ${first.child.pid}`);
    // The first one is untouched.
    expect((await fetch(`${first.url}/api/gateway/remotes`)).status).toBe(200);
    expect(await first.stop()).toBe(0);
    running.delete(first);
    expect(existsSync(join(dataDir, 'server.lock'))).toBe(false);
  });

  it('loses no acknowledged record when killed with SIGKILL during 200 creates, and takes over the stale lock', async () => {
    const dataDir = join(temp, 'killed');
    const first = await serve(dataDir);
    const session = await signIn(first.url);
    const acknowledged: string[] = [];
    let killed = false;
    const create = async (i: number) => {
      try {
        const res = await fetch(`${first.url}/api/resource/crm.Lead`, {
          method: 'POST',
          headers: { ...session, 'content-type': 'application/json' },
          body: JSON.stringify({ lead_name: `Kill test ${i}`, source: 'Website' }),
        });
        if (res.status === 201)
          acknowledged.push(((await res.json()) as { data: { name: string } }).data.name);
      } catch {
        // the connection died with the server: not acknowledged
      }
      if (!killed && acknowledged.length >= 60) {
        killed = true;
        first.child.kill('SIGKILL');
      }
    };
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < 200) await create(next++);
      }),
    );
    await first.exited;
    running.delete(first);
    expect(killed).toBe(true);
    expect(acknowledged.length).toBeGreaterThanOrEqual(60);
    expect(existsSync(join(dataDir, 'server.lock'))).toBe(true); // left behind by the killed process

    const second = await serve(dataDir);
    const again = await signIn(second.url);
    for (const name of acknowledged) {
      const res = await fetch(`${second.url}/api/resource/crm.Lead/${encodeURIComponent(name)}`, {
        headers: { cookie: again.cookie },
      });
      expect(res.status, name).toBe(200);
    }
    expect(new Set(acknowledged).size).toBe(acknowledged.length);
    await second.stop();
    running.delete(second);
  });

  it('keeps the data directory private (0700, no file readable by others) and writes and removes --pid-file', async () => {
    const dataDir = join(temp, 'private');
    const pidFile = join(temp, 'serve.pid');
    const s = await serve(dataDir, ['--pid-file', pidFile]);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(await openToOthers(dataDir)).toEqual([]);
    expect(Number(readFileSync(pidFile, 'utf8').trim())).toBe(s.child.pid);
    expect(await s.stop()).toBe(0);
    running.delete(s);
    expect(existsSync(pidFile)).toBe(false);
  });

  it('lets m keys rotate run against a running server, even several at once, without losing a key', async () => {
    const dataDir = join(temp, 'keys');
    const s = await serve(dataDir);
    const before = (await (await fetch(`${s.url}/api/v1/security/jwks`)).json()) as {
      keys: { kid: string }[];
    };
    const rotations = Array.from({ length: 3 }, () => spawnM(['keys', 'rotate', '--data-dir', dataDir]));
    expect(await Promise.all(rotations.map((r) => r.exited))).toEqual([0, 0, 0]);
    const ring = JSON.parse(readFileSync(join(dataDir, 'keys', 'keyring.json'), 'utf8')) as {
      keys: { kid: string; retired_at: string | null }[];
    };
    expect(ring.keys).toHaveLength(before.keys.length + 3);
    expect(ring.keys.filter((k) => k.retired_at === null)).toHaveLength(1);
    for (const k of ring.keys) expect(existsSync(join(dataDir, 'keys', `${k.kid}.pem`))).toBe(true);
    // The running server serves the new active key once it re-reads the ring.
    let kids: string[] = [];
    for (let i = 0; i < 40 && !kids.includes(ring.keys[0]!.kid); i++) {
      await new Promise((r) => setTimeout(r, 500));
      kids = (
        (await (await fetch(`${s.url}/api/v1/security/jwks`)).json()) as { keys: { kid: string }[] }
      ).keys.map((k) => k.kid);
    }
    expect(kids).toContain(ring.keys[0]!.kid);
  });
});
