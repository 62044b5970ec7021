import { rmSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loadPlanFile, planFromSource } from '../../../src/benchmarks/config/load-plan';
import { runLoadTest } from '../../../src/benchmarks/run';
import { type RecordingServer, startRecordingServer } from '../helpers/recording-server';
import { tempDir, writeConfig } from '../helpers/runtime';

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('generator threads and the validated plan', () => {
  it('keeps the exact text, the referenced variables only, and the overrides', async () => {
    const path = writeConfig(`target_url: http://127.0.0.1:1
auth: { mode: bearer, token: "\${LOAD_TOKEN}" }
targets: [{ type: endpoint, name: e, method: GET, path: /x }]
`);
    const r = await loadPlanFile(path, { LOAD_TOKEN: 't', UNRELATED: 'u' }, { workers: 3 });
    if (!r.ok) throw new Error('invalid');
    expect(r.plan.source.env).toEqual({ LOAD_TOKEN: 't' });
    expect(r.plan.source.overrides).toEqual({ workers: 3 });
    rmSync(path);
    // Compiled again from the source alone, with the file gone: the same plan.
    const copy = await planFromSource(r.plan.source, path);
    expect(copy.generator.workers).toBe(3);
    expect(copy.auth).toEqual({ mode: 'bearer', token: 't' });
  });

  it('two threads run the plan the main thread validated, although the file changed meanwhile and the variables were never in process.env', async () => {
    server = await startRecordingServer();
    const path = writeConfig(`target_url: ${server.url}
auth: { mode: bearer, token: "\${LOAD_THREAD_TOKEN}" }
users: { peak: 2, think_time_seconds: 0.02 }
duration_seconds: 1
generator: { workers: 2, max_event_loop_lag_ms: 60000 }
thresholds: { p95_ms: 600000 }
targets: [{ type: endpoint, name: validated, method: GET, path: /validated }]
`);
    const loaded = await loadPlanFile(path, { LOAD_THREAD_TOKEN: 'from-the-cli-env' });
    if (!loaded.ok) throw new Error('invalid');
    // The file now says something else (and is not even valid): the threads must not read it.
    writeFileSync(path, 'target_url: http://127.0.0.1:1\ntargets: [{ type: endpoint, path: /changed }]\n');
    const { result } = await runLoadTest({
      plan: loaded.plan,
      outDir: tempDir(),
      live: { write: () => true },
    });
    expect(result.config.workers).toBe(2);
    expect(result.total.count).toBeGreaterThan(0);
    const hits = server.received.filter((r) => r.path === '/validated');
    expect(server.received.filter((r) => r.path === '/changed')).toHaveLength(0);
    expect(hits.every((r) => r.headers.authorization === 'Bearer from-the-cli-env')).toBe(true);
    expect(result.total.count).toBe(hits.length);
  });
});
