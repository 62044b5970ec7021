import type { RpcScenarioPlan } from '../config/plan';
import { joinUrl, type ScenarioFactory } from './runner';

/** The service of a dotted RPC method: its first segment (`crm.api.customer_count` -> `crm`). */
export function rpcService(method: string): string {
  return method.split('.')[0]!;
}

/**
 * `type: rpc` (docs/load-testing.md#scenarios): `POST <apiUrl>/method/<dotted.name>` with the rendered
 * `kwargs` as the JSON body and the positional `args` under `args`
 * (docs/http-api.md#doctype-data-api-and-rpc), routed to the owning service.
 */
export const rpcScenario: ScenarioFactory<RpcScenarioPlan> = (plan, rt) => {
  const service = rpcService(plan.method);
  const apiUrl = rt.target.services[service] ?? joinUrl(rt.plan.targetUrl, '/api');
  const url = joinUrl(apiUrl, `/method/${plan.method}`);
  return {
    plan,
    iterate(user) {
      const json: Record<string, unknown> = { ...((plan.kwargs?.() as Record<string, unknown>) ?? {}) };
      if (plan.args) json.args = plan.args();
      return user.send(plan.auth, { method: 'POST', url, json, service });
    },
  };
};
