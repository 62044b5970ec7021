import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPlan } from '../../../src/benchmarks/config/load-plan';
import type { LoadPlan } from '../../../src/benchmarks/config/plan';
import { HttpClient } from '../../../src/benchmarks/engine/http-client';
import type { Runtime } from '../../../src/benchmarks/engine/types';
import { VirtualUser } from '../../../src/benchmarks/engine/virtual-user';
import { createRunners } from '../../../src/benchmarks/scenarios';
import type { ScenarioRunner } from '../../../src/benchmarks/scenarios/runner';
import { discoverTarget } from '../../../src/benchmarks/target/discover';
import { createEncoder } from '../../../src/benchmarks/target/encoder';
import { loadFaker } from '../../../src/benchmarks/template/faker-source';
import { fileTempDir } from '../../helpers/file-temp-dirs';

// planFrom compiles plans that may name faker synchronously: it is loaded first, as loadPlanFile does.
await loadFaker();

/** A fresh temporary directory, removed after the test file. */
export function tempDir(prefix = 'load-test-'): string {
  return fileTempDir(prefix);
}

/** Writes `yaml` (and extra files) into a fresh directory and returns the config path. */
export function writeConfig(yaml: string, files: Record<string, string> = {}): string {
  const dir = tempDir();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const path = join(dir, 'load.yaml');
  writeFileSync(path, yaml);
  return path;
}

/** Validates a config or throws with its issues. */
export function planFrom(
  yaml: string,
  env: Record<string, string> = {},
  files: Record<string, string> = {},
): LoadPlan {
  const path = writeConfig(yaml, files);
  const r = loadPlan(yaml, path, env);
  if (!r.ok) throw new Error(r.issues.map((i) => `${i.line}: ${i.path} ${i.message}`).join('\n'));
  return r.plan;
}

/** A thread's runtime for `plan` against its target (discovery included), and its runners. */
export async function runtimeFor(
  plan: LoadPlan,
): Promise<{ rt: Runtime; runners: ScenarioRunner[]; close(): Promise<void> }> {
  const http = new HttpClient({ connections: 4, timeoutMs: 5000 });
  const target = await discoverTarget(plan, http, (url) =>
    new VirtualUser(-1, {
      plan,
      target: { security: null, doctypes: {}, services: {} },
      http,
      encoder: { encode: async (b) => ({ body: JSON.stringify(b), contentType: 'application/json' }) },
    }).send(plan.auth, { method: 'GET', url }),
  );
  const encoder = await createEncoder(target.security, plan.targetUrl);
  const rt: Runtime = { plan, target, http, encoder };
  return { rt, runners: await createRunners(rt), close: () => http.close() };
}
