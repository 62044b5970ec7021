/**
 * `GET /metrics`: the process's metrics in the OpenMetrics text format (docs/operators.md#metrics), for a
 * System Manager or a holder of the `Metrics Reader` role (a scraper's API key belongs to a user with that
 * role and nothing else). Everyone else gets the API's usual 401 or 403.
 */
import { Hono } from 'hono';
import type { Logger } from '../context';
import type { AppEnv } from '../http/env';
import { unauthorized } from '../middleware/auth';
import { forbidden } from '../permissions/guard';
import { METRICS_READER, SYSTEM_MANAGER } from '../permissions/model';
import { rolesOf } from '../permissions/routes';
import { OPEN_METRICS_CONTENT_TYPE, renderOpenMetrics } from './open-metrics';
import type { MetricsRegistry } from './registry';

export { METRICS_READER };

/** Path of the metrics endpoint (where Prometheus looks by default). */
export const METRICS_PATH = '/metrics';

/** The route over `registry`. */
export function metricsRoutes({ registry, log }: { registry: MetricsRegistry; log: Logger }): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get(METRICS_PATH, async (c) => {
    const principal = c.get('principal');
    if (!principal) throw unauthorized();
    const roles = rolesOf(principal);
    if (!roles.includes(SYSTEM_MANAGER) && !roles.includes(METRICS_READER)) {
      throw forbidden('read', 'the metrics');
    }
    const text = renderOpenMetrics(await registry.collect(log));
    return c.body(text, 200, { 'Content-Type': OPEN_METRICS_CONTENT_TYPE, 'Cache-Control': 'no-store' });
  });
  return routes;
}
