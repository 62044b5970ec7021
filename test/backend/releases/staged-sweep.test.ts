import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../backend/db/database';
import { openPglite } from '../../../backend/db/pglite';
import { sha384Of } from '../../../backend/releases/release-files';
import { ReleaseService } from '../../../backend/releases/release-service';
import { buildFiles, crmFingerprint } from './support';

const HOUR = 3_600_000;
let db: Database;
const root = mkdtempSync(join(tmpdir(), 'desk-staged-sweep-'));
let clock = Date.UTC(2026, 0, 1);
const logged: string[] = [];

beforeAll(async () => {
  db = await openPglite();
});
afterAll(async () => {
  await db.close();
  rmSync(root, { recursive: true, force: true });
});

function open(): Promise<ReleaseService> {
  return ReleaseService.open({
    db,
    root,
    keep: 10,
    stagedMaxAgeMs: HOUR,
    running: () => crmFingerprint(),
    log: (line) => logged.push(line),
    now: () => clock,
  });
}

/** Starts a publication of `label`'s build and uploads only its remoteEntry.js: it stays staged. */
async function startPublication(releases: ReleaseService, label: string): Promise<string> {
  const files = Object.entries(buildFiles(label)).map(([path, text]) => ({
    path,
    bytes: new TextEncoder().encode(text),
  }));
  const { version } = await releases.stage(
    'crm',
    {
      packageVersion: '1.0.0',
      files: files.map((f) => ({ path: f.path, sha384: sha384Of(f.bytes), size: f.bytes.byteLength })),
      mfManifest: null,
      fingerprint: crmFingerprint(),
    },
    { user: 'Administrator' },
  );
  const entry = files.find((f) => f.path === 'remoteEntry.js')!;
  const answer = await releases.upload('crm', version, [entry], { user: 'Administrator' });
  expect(answer.state).toBe('staged');
  return version;
}

describe('publications never finished', () => {
  it('are removed with their files once older than releases.staged_max_age_hours, at the next publication and at the next start', async () => {
    const releases = await open();
    const abandoned = await startPublication(releases, 'abandoned');
    expect(existsSync(join(root, 'crm', abandoned, 'remoteEntry.js'))).toBe(true);

    // Within the age nothing is touched; past it, the next publication removes the record and its files.
    clock += HOUR / 2;
    const recent = await startPublication(releases, 'recent');
    expect((await releases.get('crm', abandoned))?.state).toBe('staged');
    clock += HOUR;
    const latest = await startPublication(releases, 'latest');
    expect(await releases.get('crm', abandoned)).toBeUndefined();
    expect(existsSync(join(root, 'crm', abandoned))).toBe(false);
    expect((await releases.get('crm', recent))?.state).toBe('staged');
    expect(logged).toContain(`release crm ${abandoned} removed (publication not finished in time)`);

    // A process starting later sweeps as well.
    clock += 2 * HOUR;
    const reopened = await open();
    for (const version of [recent, latest]) {
      expect(await reopened.get('crm', version)).toBeUndefined();
      expect(existsSync(join(root, 'crm', version))).toBe(false);
    }
  });
});
