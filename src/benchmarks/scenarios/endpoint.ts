import type { EndpointScenarioPlan } from '../config/plan';
import { importFunction } from '../engine/load-module';
import { harnessError } from '../errors';
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
  return {
    plan,
    async iterate(user) {
      let json: unknown = plan.body?.();
      if (factory) {
        json = await factory({
          user: user.id,
          scenario: plan.label,
          seed: rt.plan.seed,
        } satisfies BodyFactoryContext);
        if (!json || typeof json !== 'object') {
          throw harnessError(
            'factory_failed',
            `body_factory ${plan.bodyFactory!.spec} must return an object`,
          );
        }
      }
      return user.send(plan.auth, {
        method: plan.method,
        url: joinUrl(rt.plan.targetUrl, String(plan.path())),
        headers: plan.headers() as Record<string, string>,
        json,
      });
    },
  };
};
