import type { ScenarioPlan } from '../config/plan';
import { DataFeeder } from '../data/feeder';
import type { Runtime } from '../engine/virtual-user';
import { doctypeScenario } from './doctype';
import { endpointScenario } from './endpoint';
import { flowScenario } from './flow';
import { rpcScenario } from './rpc';
import type { ScenarioRunner } from './runner';

/** Builds the runner of each scenario of the plan, by `type`. */
export async function createRunners(rt: Runtime): Promise<ScenarioRunner[]> {
  const runners = await Promise.all(rt.plan.scenarios.map((s: ScenarioPlan) => createRunner(s, rt)));
  for (const r of runners) {
    if (r.plan.data) r.feeder = new DataFeeder(r.plan.data, rt.shard ?? { index: 0, count: 1 });
  }
  return runners;
}

async function createRunner(s: ScenarioPlan, rt: Runtime): Promise<ScenarioRunner> {
  switch (s.type) {
    case 'doctype':
      return doctypeScenario(s, rt);
    case 'endpoint':
      return endpointScenario(s, rt);
    case 'rpc':
      return rpcScenario(s, rt);
    case 'flow':
      return flowScenario(s, rt);
  }
}
