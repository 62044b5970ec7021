import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, type ServeProcess, signIn, spawnM, startServe } from './helpers/serve-process';

// One data directory and two servers on it, one after the other: the first is started fresh (so the modes
// checked are the ones the server itself creates), answers the checks that need a running server, and is then
// killed with SIGKILL mid-load; the second starts on the directory the killed one left behind. Starting a
// server (PGlite's first initialisation above all) is what costs time here, so each start serves every check
// it can. The steps run in order and each names what it relies on.
const temp = mkdtempSync(join(tmpdir(), 'fault-datadir-'));
const dataDir = join(temp, 'data');
const pidFile = join(temp, 'serve.pid');
const lockFile = join(dataDir, 'server.lock');
// The second server reads a platform.toml that still spells `server.trusted_proxies` the older way.
const legacyToml = join(temp, 'legacy.toml');
writeFileSync(legacyToml, '[tool.platform.security]\ntrusted_proxies = ["127.0.0.1"]\n');
const running = new Set<ServeProcess>();
let first: ServeProcess;
let second: ServeProcess | undefined;

async function serve(extra: string[] = []): Promise<ServeProcess> {
  const s = await startServe(dataDir, ['--pid-file', pidFile, ...extra]);
  running.add(s);
  return s;
}

beforeAll(async () => {
  first = await serve();
});
afterAll(async () => {
  await Promise.all([...running].map((s) => s.stop()));
  rmSync(temp, { recursive: true, force: true });
});

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

async function jwksKids(url: string): Promise<string[]> {
  const body = (await (await fetch(`${url}/api/v1/security/jwks`)).json()) as { keys: { kid: string }[] };
  return body.keys.map((k) => k.kid);
}

/** Polls `condition` until it holds; fails naming `what` after 60 s. */
async function until(what: string, condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('one server per data directory', () => {
  it('refuses a second m serve on the same data directory with exit 1 naming the holder PID', async () => {
    const intruder = spawnM(['serve', '--port', '0', '--data-dir', dataDir]);
    expect(await intruder.exited).toBe(1);
    expect(intruder.output()).toContain(`PID ${first.child.pid}`);
    // The first one is untouched.
    expect((await fetch(`${first.url}/api/gateway/remotes`)).status).toBe(200);
  });

  it('keeps the data directory it creates private (0700, no file readable by others) and writes --pid-file', async () => {
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(await openToOthers(dataDir)).toEqual([]);
    expect(Number(readFileSync(pidFile, 'utf8').trim())).toBe(first.child.pid);
  });

  it('lets m keys rotate run against the running server, even several at once, without losing a key', async () => {
    const before = await jwksKids(first.url);
    const rotations = Array.from({ length: 3 }, () => spawnM(['keys', 'rotate', '--data-dir', dataDir]));
    expect(await Promise.all(rotations.map((r) => r.exited))).toEqual([0, 0, 0]);
    const ring = JSON.parse(readFileSync(join(dataDir, 'keys', 'keyring.json'), 'utf8')) as {
      keys: { kid: string; retired_at: string | null }[];
    };
    expect(ring.keys).toHaveLength(before.length + 3);
    expect(ring.keys.filter((k) => k.retired_at === null)).toHaveLength(1);
    for (const k of ring.keys) expect(existsSync(join(dataDir, 'keys', `${k.kid}.pem`))).toBe(true);
    // The running server publishes the new active key once it re-reads the ring.
    const newest = ring.keys[0]!.kid;
    await until('the server publishes the new key', async () => (await jwksKids(first.url))[0] === newest);
    expect(await jwksKids(first.url)).toEqual(ring.keys.map((k) => k.kid));
  });

  it('loses no acknowledged record when killed with SIGKILL during 200 creates; the next start takes over the stale lock and tightens modes', async () => {
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
    // Left behind by the killed process.
    expect(JSON.parse(readFileSync(lockFile, 'utf8')).pid).toBe(first.child.pid);

    // As an older version left them: the directory and a file readable by others. The next start tightens them.
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'keys', 'keyring.json'), 0o644);

    second = await serve(['--config', legacyToml]);
    expect(JSON.parse(readFileSync(lockFile, 'utf8')).pid).toBe(second.child.pid);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(await openToOthers(dataDir)).toEqual([]);
    const again = await signIn(second.url);
    for (const name of acknowledged) {
      const res = await fetch(`${second.url}/api/resource/crm.Lead/${encodeURIComponent(name)}`, {
        headers: { cookie: again.cookie },
      });
      expect(res.status, name).toBe(200);
    }
    expect(new Set(acknowledged).size).toBe(acknowledged.length);
  });

  it('reads the older spelling security.trusted_proxies as server.trusted_proxies, warning once at start', async () => {
    expect(second, 'the server started after the kill').toBeDefined();
    const warnings = second!.output().match(/^m serve: warning: .*$/gm) ?? [];
    expect(warnings).toEqual([
      `m serve: warning: tool.platform.security.trusted_proxies is deprecated (set in ${legacyToml}); rename it to tool.platform.server.trusted_proxies`,
    ]);
    // 127.0.0.1 is a trusted proxy of this server: its X-Forwarded-Proto https makes the cookie Secure.
    const login = (proto: string) =>
      fetch(`${second!.url}/api/method/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: second!.url, 'x-forwarded-proto': proto },
        body: JSON.stringify({ usr: 'Administrator', pwd: ADMIN_PASSWORD }),
      });
    expect((await login('https')).headers.get('set-cookie')).toMatch(/;\s*Secure/i);
    expect((await login('http')).headers.get('set-cookie')).not.toMatch(/Secure/i);
  });

  it('stops cleanly on SIGTERM, removing its lock and its --pid-file', async () => {
    expect(second, 'the server started after the kill').toBeDefined();
    expect(Number(readFileSync(pidFile, 'utf8').trim())).toBe(second!.child.pid);
    expect(await second!.stop()).toBe(0);
    running.delete(second!);
    expect(existsSync(lockFile)).toBe(false);
    expect(existsSync(pidFile)).toBe(false);
  });
});
