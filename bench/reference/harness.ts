import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import type { LoadResult } from '../../src/benchmarks/report/result';
import { ROOT, type ServedPlatform } from './server';

/** The reference plan next to this file. */
export const PLAN_FILE = join(import.meta.dirname, 'plan.yaml');

/** What one run changes in the plan. */
export interface LoadShape {
  users: number;
  rampUpSeconds: number;
  requestsPerMinute: number;
  durationSeconds: number;
}

/** The reference run's shape, as `plan.yaml` states it. */
export function referenceShape(planFile = PLAN_FILE): LoadShape {
  const plan = parse(readFileSync(planFile, 'utf8'));
  return {
    users: plan.users.peak,
    rampUpSeconds: plan.users.ramp_up_seconds,
    requestsPerMinute: plan.rate.requests_per_minute,
    durationSeconds: plan.duration_seconds,
  };
}

/**
 * Runs `m benchmark` once with the plan reshaped to `shape`, against `platform`, watching the server's
 * process from /proc (`--watch-pid`); the harness's own output goes to `<outDir>/harness.log`. Resolves to
 * its `result.json`.
 */
export async function runHarness(
  platform: ServedPlatform,
  shape: LoadShape,
  outDir: string,
  planFile = PLAN_FILE,
): Promise<LoadResult> {
  mkdirSync(outDir, { recursive: true });
  const plan = parse(readFileSync(planFile, 'utf8'));
  plan.users.peak = shape.users;
  plan.users.ramp_up_seconds = shape.rampUpSeconds;
  plan.rate.requests_per_minute = shape.requestsPerMinute;
  plan.duration_seconds = shape.durationSeconds;
  const config = join(outDir, 'plan.yaml');
  writeFileSync(config, stringify(plan));
  const args = ['--config', config, '--target-url', platform.url, '--watch-pid', String(platform.pid)];
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'm.js'), 'benchmark', ...args, '--out', outDir], {
    cwd: ROOT,
    env: { ...process.env, REFERENCE_PASSWORD: platform.password },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(join(outDir, 'harness.log'));
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const [code] = (await once(child, 'exit')) as [number | null];
  try {
    return JSON.parse(readFileSync(join(outDir, 'result.json'), 'utf8')) as LoadResult;
  } catch {
    throw new Error(`m benchmark exited with ${code} without a result; see ${join(outDir, 'harness.log')}`);
  }
}
