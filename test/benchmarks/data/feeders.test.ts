import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatIssues } from '../../../src/benchmarks/config/issues';
import { loadPlan, loadPlanFile } from '../../../src/benchmarks/config/load-plan';
import { DataFeeder } from '../../../src/benchmarks/data/feeder';
import { parseCsv } from '../../../src/benchmarks/data/parse-data';
import { formatSummary } from '../../../src/benchmarks/report/summary-table';
import { runLoadTest } from '../../../src/benchmarks/run';
import { type RecordingServer, startRecordingServer } from '../helpers/recording-server';
import { tempDir, writeConfig } from '../helpers/runtime';

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('data files', () => {
  it('parses CSV with quoted commas, quotes and newlines', () => {
    expect(parseCsv('user,note\r\nann,"a, ""b""\nc"\n\nbob,x\n')).toEqual({
      ok: true,
      columns: ['user', 'note'],
      rows: [
        { user: 'ann', note: 'a, "b"\nc' },
        { user: 'bob', note: 'x' },
      ],
    });
    expect(parseCsv('a,b\n1\n')).toEqual({ ok: false, message: 'row 2 has 1 fields, the header 2' });
  });

  it('splits unique rows between threads without repeating one, then runs out', () => {
    const plan = {
      file: 'u.csv',
      mode: 'unique' as const,
      columns: ['u'],
      rows: [0, 1, 2, 3, 4].map((u) => ({ u })),
    };
    const taken = [0, 1].flatMap((index) => {
      const f = new DataFeeder(plan, { index, count: 2 });
      const out: unknown[] = [];
      for (let row = f.next(); row; row = f.next()) out.push(row.u);
      return out;
    });
    expect(taken.sort()).toEqual([0, 1, 2, 3, 4]);
    const seq = new DataFeeder({ ...plan, mode: 'sequential' }, { index: 0, count: 1 });
    expect(Array.from({ length: 7 }, () => seq.next()!.u)).toEqual([0, 1, 2, 3, 4, 0, 1]);
  });

  it('reports an unknown column or a data template without a data file at its line and column', () => {
    const r = loadPlan(
      `target_url: http://127.0.0.1:1
auth: { mode: none }
targets:
  - { type: endpoint, name: a, method: GET, path: "/a/{{ data.nope }}", data: { file: users.csv } }
  - { type: endpoint, name: b, method: GET, path: "/b/{{ data.user }}" }
  - { type: endpoint, name: c, method: GET, path: /c, data: { file: missing.json } }
`,
      join(writeConfig('', { 'users.csv': 'user\nann\n' }), '..', 'load.yaml'),
      {},
    );
    if (r.ok) throw new Error('expected issues');
    expect(formatIssues('load.yaml', r.issues).split('\n')).toEqual([
      'load.yaml:4:51  unknown_template  targets[0].path: the data file has no column "nope"',
      'load.yaml:5:51  unknown_template  targets[1].path: {{ data.user }} needs a data feeder (data: { file: ... })',
      expect.stringMatching(
        /^load\.yaml:6:69 {2}data_file {2}targets\[2\]\.data\.file: cannot read missing\.json/,
      ),
    ]);
  });

  it('feeds each row once in unique mode across two threads, read once by the main thread, and says when they ran out', async () => {
    server = await startRecordingServer();
    const path = writeConfig(
      `target_url: ${server.url}
auth: { mode: none }
users: { peak: 2, think_time_seconds: 0.05 }
duration_seconds: 1
generator: { workers: 2, max_event_loop_lag_ms: 60000 }
thresholds: { p95_ms: 600000 }
targets:
  - type: endpoint
    name: signup
    method: POST
    path: "/signup/{{ data.user }}"
    body: { email: "{{ data.email }}" }
    data: { file: users.csv, mode: unique }
`,
      { 'users.csv': 'user,email\nann,ann@example.com\nbob,bob@example.com\ncid,cid@example.com\n' },
    );
    const loaded = await loadPlanFile(path, {});
    if (!loaded.ok) throw new Error('invalid');
    // Once validated, the data file disappears: the threads must use the rows they were given.
    rmSync(join(path, '..', 'users.csv'));
    const { result } = await runLoadTest({
      plan: loaded.plan,
      outDir: tempDir(),
      live: { write: () => true },
    });
    const out = formatSummary(result);
    const hits = server.received.filter((r) => r.path.startsWith('/signup/'));
    expect(hits.map((r) => r.path).sort()).toEqual(['/signup/ann', '/signup/bob', '/signup/cid']);
    expect(hits.map((r) => JSON.parse(r.body).email).sort()).toEqual([
      'ann@example.com',
      'bob@example.com',
      'cid@example.com',
    ]);
    expect(result.scenarios[0]!.statuses['error:data_exhausted']).toBeGreaterThan(0);
    expect(out).toMatch(/data exhausted: signup: its unique rows ran out; \d+ iteration\(s\) had no row/);
  });
});
