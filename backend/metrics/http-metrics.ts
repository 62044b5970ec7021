/**
 * Requests as `/metrics` sees them: answered requests by method and status class, and their durations.
 * The first middleware of the app, so refusals of the security chain count too. No path label: paths carry
 * record names, and a label per record would grow without bound.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/env';
import { DurationHistogram, LATENCY_BOUNDS_S, LabelledCounter, type MetricsCollector } from './registry';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The middleware that counts, and the collector that reports. */
export interface RequestMetrics {
  middleware: MiddlewareHandler<AppEnv>;
  collect: MetricsCollector;
}

/** Counts and times every request the app answers. */
export function requestMetrics(): RequestMetrics {
  const answered = new LabelledCounter();
  const durations = new DurationHistogram(LATENCY_BOUNDS_S);
  let inFlight = 0;
  const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
    const start = performance.now();
    inFlight += 1;
    try {
      await next();
    } finally {
      inFlight -= 1;
      const method = METHODS.has(c.req.method) ? c.req.method : 'other';
      const status = `${Math.floor(c.res.status / 100)}xx`;
      answered.add({ method, status });
      durations.observe({ status }, (performance.now() - start) / 1000);
    }
  };
  const collect: MetricsCollector = () => [
    {
      type: 'counter',
      name: 'platform_http_requests',
      help: 'Requests answered, by method and status class.',
      samples: answered.samples(),
    },
    {
      type: 'histogram',
      name: 'platform_http_request_duration_seconds',
      help: 'Time from a request reaching the app to its answer, by status class.',
      bounds: durations.bounds,
      samples: durations.samples(),
    },
    {
      type: 'gauge',
      name: 'platform_http_requests_in_flight',
      help: 'Requests being answered now.',
      samples: [{ value: inFlight }],
    },
  ];
  return { middleware, collect };
}
