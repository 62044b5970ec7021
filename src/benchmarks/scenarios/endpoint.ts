import type { EndpointScenarioPlan } from '../config/plan';
import { importFunction } from '../engine/load-module';
import type { RequestSpec } from '../engine/types';
import type { VirtualUser } from '../engine/virtual-user';
import { harnessError } from '../errors';
import { constantOf, type RenderContext } from '../template/template';
import { joinUrl, type ScenarioFactory } from './runner';

/** What a `body_factory` receives on every call. */
export interface BodyFactoryContext {
  /** The calling user's number. */
  user: number;
  /** The scenario's label. */
  scenario: string;
  /** The config's `seed` data. */
  seed: Record<string, unknown>;
}

/**
 * `type: endpoint` (docs/load-testing.md#scenarios): `method` to `target_url` + the rendered `path`, with
 * rendered `headers`, and a JSON body from `body` (rendered) or `body_factory` (a module export
 * `(ctx: BodyFactoryContext) => object`, awaited when it returns a promise).
 */
export const endpointScenario: ScenarioFactory<EndpointScenarioPlan> = async (plan, rt) => {
  const factory = plan.bodyFactory ? await importFunction(plan.bodyFactory) : undefined;
  // A path or headers without templates are built once (the headers object is only read).
  const fixedPath = constantOf(plan.path);
  const fixedUrl = fixedPath && joinUrl(rt.plan.targetUrl, String(fixedPath.value));
  const fixedHeaders = constantOf(plan.headers)?.value as Record<string, string> | undefined;
  const send = (user: VirtualUser, ctx: RenderContext | undefined, json: unknown) =>
    user.send(plan.auth, {
      method: plan.method,
      url: fixedUrl ?? joinUrl(rt.plan.targetUrl, String(plan.path(ctx))),
      headers: fixedHeaders ?? (plan.headers(ctx) as Record<string, string>),
      json,
    });
  if (!factory) {
    if (fixedUrl && fixedHeaders && !plan.body) {
      // Nothing to render: every iteration sends the same request object.
      const spec: RequestSpec = { method: plan.method, url: fixedUrl, headers: fixedHeaders };
      return { plan, iterate: (user) => user.send(plan.auth, spec) };
    }
    // Without a factory an iteration is the request itself (no extra async step per request).
    return { plan, iterate: (user, ctx) => send(user, ctx, plan.body?.(ctx)) };
  }
  return {
    plan,
    async iterate(user, ctx) {
      const json = await factory({
        user: user.id,
        scenario: plan.label,
        seed: rt.plan.seed,
      } satisfies BodyFactoryContext);
      if (!json || typeof json !== 'object') {
        throw harnessError('factory_failed', `body_factory ${plan.bodyFactory!.spec} must return an object`);
      }
      return send(user, ctx, json);
    },
  };
};
