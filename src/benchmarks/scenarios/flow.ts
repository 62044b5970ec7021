import { faker } from '@faker-js/faker/locale/en';
import type { CheckFailure } from '../checks/judge';
import { judge } from '../checks/judge';
import type { FlowScenarioPlan, FlowStepPlan } from '../config/plan';
import { thinkMs } from '../engine/executor';
import { jsonOf } from '../engine/http-client';
import type { HttpResponse } from '../engine/http-message';
import type { RequestSpec, Runtime } from '../engine/types';
import type { VirtualUser } from '../engine/virtual-user';
import { errorCode, harnessError } from '../errors';
import { createPayload, updatePayload } from '../target/payload';
import type { RenderContext } from '../template/template';
import { rpcService } from './rpc';
import { joinUrl, type ScenarioFactory } from './runner';

/** Records asked for by a list step. */
const PAGE_LENGTH = 20;

type StepSender = (user: VirtualUser, ctx: RenderContext) => Promise<HttpResponse>;

/** Builds how one step sends its request (target lookups done once, here). */
function stepSender(step: FlowStepPlan, plan: FlowScenarioPlan, rt: Runtime): StepSender {
  const r = step.request;
  const send = (user: VirtualUser, spec: RequestSpec) => user.send(plan.auth, spec);
  if (r.type === 'endpoint') {
    return (user, ctx) =>
      send(user, {
        method: r.method,
        url: joinUrl(rt.plan.targetUrl, String(r.path(ctx))),
        headers: r.headers(ctx) as Record<string, string>,
        json: r.body?.(ctx),
      });
  }
  if (r.type === 'rpc') {
    const service = rpcService(r.method);
    const url = joinUrl(
      rt.target.services[service] ?? joinUrl(rt.plan.targetUrl, '/api'),
      `/method/${r.method}`,
    );
    return (user, ctx) => {
      const json: Record<string, unknown> = { ...((r.kwargs?.(ctx) as Record<string, unknown>) ?? {}) };
      if (r.args) json.args = r.args(ctx);
      return send(user, { method: 'POST', url, json, service });
    };
  }
  const target = rt.target.doctypes[r.doctype];
  if (!target) throw harnessError('target_mismatch', `the target does not know ${r.doctype}`);
  const base = joinUrl(target.apiUrl, `/resource/${r.doctype}`);
  const common = { service: target.owner, schema: target.schema };
  const recordUrl = (ctx: RenderContext) => `${base}/${encodeURIComponent(String(r.id?.(ctx) ?? ''))}`;
  const overrides = (ctx: RenderContext) => r.overrides?.(ctx) as Record<string, unknown> | undefined;
  switch (r.op) {
    case 'create':
      return async (user, ctx) => {
        const res = await send(user, {
          ...common,
          method: 'POST',
          url: base,
          json: createPayload(target.schema, faker, overrides(ctx)),
        });
        const name = res.status < 300 ? createdName(res) : undefined;
        if (name)
          rt.created?.add({
            doctype: r.doctype,
            url: `${base}/${encodeURIComponent(name)}`,
            service: target.owner,
            auth: plan.auth,
          });
        return res;
      };
    case 'read':
      return (user, ctx) => send(user, { ...common, method: 'GET', url: recordUrl(ctx) });
    case 'update':
      return (user, ctx) =>
        send(user, {
          ...common,
          method: 'PUT',
          url: recordUrl(ctx),
          json: updatePayload(target.schema, faker, overrides(ctx)),
        });
    case 'delete':
      return async (user, ctx) => {
        const url = recordUrl(ctx);
        const res = await send(user, { ...common, method: 'DELETE', url });
        if (res.status < 300 || res.status === 404) rt.created?.remove(url);
        return res;
      };
    case 'list':
      return (user, ctx) => {
        const q = new URLSearchParams({ limit_page_length: String(PAGE_LENGTH) });
        if (r.filters) q.set('filters', JSON.stringify(r.filters(ctx)));
        return send(user, { ...common, method: 'GET', url: `${base}?${q}` });
      };
  }
}

function createdName(res: HttpResponse): string | undefined {
  const name = (jsonOf(res) as { data?: { name?: unknown } } | undefined)?.data?.name;
  return typeof name === 'string' ? name : undefined;
}

/** Reads a step's captures into `vars`; a capture that finds nothing is a failure of the step. */
function capture(step: FlowStepPlan, res: HttpResponse, vars: Record<string, unknown>): CheckFailure[] {
  const failures: CheckFailure[] = [];
  let parsed: { v: unknown } | undefined;
  const body = () => {
    parsed ??= { v: jsonOf(res) };
    return parsed.v;
  };
  for (const c of step.captures) {
    const v = c.read(res, body);
    if (v === undefined || v === null)
      failures.push({ check: `capture ${c.name}`, reason: `${c.from} not found` });
    else vars[c.name] = v;
  }
  return failures;
}

/**
 * `type: flow`: the steps run in order for one user, each judged by its own checks; values captured by a
 * step are `{{ vars.<name> }}` to the later ones. Every step is recorded in its own series (latency from
 * its own start; the first from the iteration's start, so the open model's queueing shows there) and the
 * whole flow in the scenario's (latency from start to the last response, the steps' `think_seconds`
 * pauses left out). The first step that fails ends the iteration: the flow counts one failure whose check
 * is `step <name>`, with that step's reason. A pause between steps cut short by the end of the run ends
 * the iteration too, with its steps recorded and the flow not.
 */
export const flowScenario: ScenarioFactory<FlowScenarioPlan> = (plan, rt) => {
  const senders = plan.steps.map((s) => stepSender(s, plan, rt));
  return {
    plan,
    async iterate(user, iterCtx) {
      const ctx: RenderContext = { vars: {}, data: iterCtx?.data };
      let last: HttpResponse | undefined;
      for (const [i, step] of plan.steps.entries()) {
        last = await senders[i]!(user, ctx);
        const { outcome } = judge(step.checks, last, 0, ctx);
        if (outcome !== 'ok' || capture(step, last, ctx.vars!).length > 0) break;
        const ms = thinkMs(step.think);
        if (ms > 0 && !(await user.pause(ms))) break;
      }
      return last!;
    },
    async timed(user, recorder, startedMs, iterCtx) {
      const ctx: RenderContext = { vars: {}, data: iterCtx?.data };
      let stepStart = startedMs;
      let status = 0;
      // Time spent in the steps' pauses: the flow's latency is its requests' time, not its users'.
      let paused = 0;
      for (const [i, step] of plan.steps.entries()) {
        let res: HttpResponse;
        try {
          res = await senders[i]!(user, ctx);
        } catch (err) {
          const code = errorCode(err);
          recorder.error(step.slot, code);
          recorder.error(plan.index, code, [{ check: `step ${step.name}`, reason: `no response (${code})` }]);
          return false;
        }
        const now = performance.now();
        if (recorder.timesServer) {
          // The step's stages, and the flow's: per request, whichever step sent it.
          recorder.serverTiming(step.slot, res);
          recorder.serverTiming(plan.index, res);
        }
        const judged = judge(step.checks, res, now - stepStart, ctx);
        const failures = judged.outcome === 'ok' ? capture(step, res, ctx.vars!) : judged.failures;
        const outcome = failures.length > 0 ? 'failed' : judged.outcome;
        recorder.record(step.slot, (now - stepStart) * 1000, outcome, res.status, failures);
        if (outcome !== 'ok') {
          const first = failures[0];
          const reason = first ? `${first.check}: ${first.reason}` : `throttled (${res.status})`;
          recorder.record(plan.index, (now - startedMs - paused) * 1000, outcome, res.status, [
            { check: `step ${step.name}`, reason },
          ]);
          return true;
        }
        status = res.status;
        stepStart = now;
        if (i === plan.steps.length - 1) break;
        const ms = thinkMs(step.think);
        if (ms > 0) {
          const full = await user.pause(ms);
          stepStart = performance.now();
          paused += stepStart - now;
          if (!full) return true;
        }
      }
      recorder.record(plan.index, (performance.now() - startedMs - paused) * 1000, 'ok', status);
      // The last step's pause follows the flow's record: the user reads what the flow ended on.
      const last = thinkMs(plan.steps[plan.steps.length - 1]!.think);
      if (last > 0) await user.pause(last);
      return true;
    },
  };
};
