/**
 * A full disk (docs/operators.md#disk-full): a real `m serve` whose data directory is on a small tmpfs that a
 * file then fills. Writes answer 507 `insufficient_storage` and keep nothing of themselves (the leads listed
 * are exactly those answered 201), reads are still answered, and once the file is deleted writes succeed
 * again without a restart. A start on the full device prints a sentence naming the data directory and the
 * lack of space, and exits 74 (EX_IOERR). Mounting needs root: as anyone else the file fails, saying so.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAll, type ServeProcess, signIn, spawnM, startServe } from './helpers/serve-process';

const temp = mkdtempSync(join(tmpdir(), 'fault-disk-full-'));
const mountPoint = join(temp, 'small');
const dataDir = join(mountPoint, 'data');
const filler = join(mountPoint, 'filler');
let mounted = false;
const started: ServeProcess[] = [];

beforeAll(() => {
  if (process.getuid?.() !== 0) {
    throw new Error(
      'test/faults/disk-full.test.ts mounts a small tmpfs for the data directory: run it as root (mount -t tmpfs needs CAP_SYS_ADMIN)',
    );
  }
  mkdirSync(mountPoint);
  // Room for the embedded database (about 40 MB once created) and little more.
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=96m,mode=0700', 'tmpfs', mountPoint]);
  mounted = true;
});

afterAll(async () => {
  for (const server of started) await server.stop();
  killAll(started.map((s) => s.child.pid!).filter(Boolean));
  if (mounted) execFileSync('umount', [mountPoint]);
  rmSync(temp, { recursive: true, force: true });
});

/** Writes `filler` until the device has no byte left: 1 MiB pieces, then 4 KiB ones. */
function fillDevice(): void {
  const fd = openSync(filler, 'a');
  try {
    for (const size of [1 << 20, 4096]) {
      const piece = Buffer.alloc(size, 0x78);
      for (;;) {
        try {
          writeSync(fd, piece);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

const lead = (n: number) => ({ lead_name: `Disk full ${n} ${'x'.repeat(100)}`, source: 'y'.repeat(120) });

function createLead(server: ServeProcess, session: Record<string, string>, n: number) {
  return fetch(`${server.url}/api/resource/crm.Lead`, {
    method: 'POST',
    headers: { ...session, 'content-type': 'application/json' },
    body: JSON.stringify(lead(n)),
  });
}

async function leadNames(server: ServeProcess, session: Record<string, string>): Promise<string[]> {
  const filters = encodeURIComponent(JSON.stringify([['lead_name', 'like', 'Disk full %']]));
  const res = await fetch(
    `${server.url}/api/resource/crm.Lead?limit=1000&fields=["lead_name"]&filters=${filters}`,
    { headers: { cookie: session.cookie! } },
  );
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { data: { lead_name: string }[] }).data.map((r) => r.lead_name).sort();
}

describe('m serve on a full disk', () => {
  it('answers writes 507 with nothing half-stored, keeps serving reads, and writes again once space is back', async () => {
    const server = await startServe(dataDir);
    started.push(server);
    const session = await signIn(server.url);
    const stored: string[] = [];
    expect((await createLead(server, session, 0)).status).toBe(201);
    stored.push(lead(0).lead_name);

    fillDevice();
    // Rows go into pages the tables already have until one needs a new page: within a few hundred writes.
    let refused: Response | undefined;
    for (let n = 1; n <= 400 && !refused; n++) {
      const res = await createLead(server, session, n);
      if (res.status === 201) stored.push(lead(n).lead_name);
      else refused = res;
    }
    expect(refused, 'no write was refused on the full device').toBeDefined();
    expect(refused!.status).toBe(507);
    expect(((await refused!.json()) as { error: { code: string } }).error.code).toBe('insufficient_storage');
    // Nothing of the refused write is kept, and reads are answered on the full device.
    expect(await leadNames(server, session)).toEqual(stored.sort());
    expect(server.output()).toMatch(/-> 507 insufficient_storage/);

    rmSync(filler);
    const after = await createLead(server, session, 1000);
    expect(after.status).toBe(201);
    stored.push(lead(1000).lead_name);
    expect(await leadNames(server, session)).toEqual(stored.sort());
    expect(await server.stop()).toBe(0);
  }, 180_000);

  it('refuses to start on the full device: a sentence naming the data directory and exit code 74', async () => {
    // The server of the test before, stopped here too if that test failed before stopping it.
    for (const server of started) await server.stop();
    fillDevice();
    try {
      const run = spawnM(['serve', '--port', '0', '--data-dir', dataDir]);
      expect(await run.exited, run.output()).toBe(74);
      expect(run.output()).toContain(
        `the device holding the data directory ${dataDir} has no space left; free some space there`,
      );
    } finally {
      rmSync(filler, { force: true });
    }
  }, 120_000);
});
