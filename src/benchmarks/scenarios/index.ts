import type { ScenarioPlan } from '../config/plan';
import { DataFeeder } from '../data/feeder';
import type { Runtime } from '../engine/types';
import { endpointScenario } from './endpoint';
import { rpcScenario } from './rpc';
import type { ScenarioRunner } from './runner';

/**
 * Builds the runner of each scenario of the plan, by `type`; a scenario with a data file gets this
 * thread's share of its rows as it is built.
 */
export function createRunners(rt: Runtime): Promise<ScenarioRunner[]> {
  const shard = rt.shard ?? { index: 0, count: 1 };
  return Promise.all(
    rt.plan.scenarios.map(async (s: ScenarioPlan): Promise<ScenarioRunner> => {
      const runner = await createRunner(s, rt);
      // Runners are plain objects (their methods own properties): the copy keeps them.
      return s.data ? { ...runner, feeder: new DataFeeder(s.data, shard) } : runner;
    }),
  );
}

/**
 * The runner of one scenario. The doctype and flow scenarios generate records with faker: they (and it)
 * are loaded only by a plan that has one.
 */
async function createRunner(s: ScenarioPlan, rt: Runtime): Promise<ScenarioRunner> {
  switch (s.type) {
    case 'doctype':
      return (await import('./doctype')).doctypeScenario(s, rt);
    case 'endpoint':
      return endpointScenario(s, rt);
    case 'rpc':
      return rpcScenario(s, rt);
    case 'flow':
      return (await import('./flow')).flowScenario(s, rt);
  }
}
