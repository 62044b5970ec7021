import { z } from 'zod';
import { expectSchema, statusList } from './schema-expect';
import { flowStepSchema, thinkTime } from './schema-flow';
import { thresholdsSchema } from './schema-thresholds';

/**
 * The load-test YAML schema (docs/load-testing.md#configuration), in its YAML spelling. Defaults are those of
 * docs/load-testing.md#reference-targets: `duration_seconds` 300, scenario `weight` 1, DocType `mix`
 * `{read: 1.0}`, `expect_status` `[200]`; the thresholds default to the reference targets (p95 below 200 ms,
 * error rate below 1 %). Keys beyond the spec (`rate`, `users.think_time_seconds`, `thresholds`, `generator`,
 * `http`, scenario `label`) are what operators need to run it; every one is documented in
 * docs/load-testing.md. Unknown keys are errors so a typo never silently falls back to a default.
 */

const positiveInt = z.int().positive();
const nonEmpty = z.string().min(1);

/** One stage: ramp linearly from the previous stage's target (0 at first) to `target` over its duration. */
const stagesSchema = z
  .array(
    z.strictObject({
      duration_seconds: z.number().positive(),
      target: z.number().min(0),
    }),
  )
  .min(1, 'give at least one stage');

/** Auth provider objects (docs/load-testing.md#auth-providers); secret values must be `${ENV_NAME}` references. */
const authSchema = z.discriminatedUnion('mode', [
  z.strictObject({
    mode: z.literal('session'),
    login_url: nonEmpty.default('/api/method/login'),
    username: nonEmpty,
    password: nonEmpty,
  }),
  z.strictObject({
    mode: z.literal('api_key'),
    header_name: nonEmpty.default('Authorization'),
    key: nonEmpty,
  }),
  z.strictObject({ mode: z.literal('bearer'), token: nonEmpty }),
  z.strictObject({ mode: z.literal('none') }),
  z.strictObject({ mode: z.literal('custom'), factory: nonEmpty }),
]);

const common = {
  name: nonEmpty,
  /** Name shown in reports; defaults to `name` (lets two scenarios share a DocType). */
  label: nonEmpty.optional(),
  weight: positiveInt.default(1),
  auth: authSchema.optional(),
  thresholds: thresholdsSchema.optional(),
  /** Checks on every response (status, JSON fields, headers, time). */
  expect: expectSchema.optional(),
  /** Rows of a CSV or JSON file, one per iteration, as `{{ data.<column> }}`. */
  data: z
    .strictObject({
      file: nonEmpty.regex(/\.(csv|json)$/i, 'a data file is .csv or .json'),
      mode: z.enum(['sequential', 'random', 'unique']).default('sequential'),
    })
    .optional(),
};

const ratio = z.number().min(0);

const doctypeScenario = z.strictObject({
  type: z.literal('doctype'),
  ...common,
  name: z.string().regex(/^[a-z][a-z0-9_]*\.[A-Z][A-Za-z0-9]*$/, 'a DocType name is <app>.<DocType>'),
  mix: z
    .strictObject({
      read: ratio.optional(),
      create: ratio.optional(),
      update: ratio.optional(),
      delete: ratio.optional(),
    })
    .refine((m) => Object.values(m).some((v) => (v ?? 0) > 0), 'at least one ratio must be above 0')
    .default({ read: 1.0 }),
  filters: z.record(z.string(), z.unknown()).optional(),
  payload_overrides: z.record(z.string(), z.unknown()).optional(),
});

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

const endpointScenario = z
  .strictObject({
    type: z.literal('endpoint'),
    ...common,
    method: z
      .string()
      .transform((m) => m.toUpperCase())
      .pipe(z.enum(HTTP_METHODS)),
    path: z.string().regex(/^\//, 'a path starts with "/"'),
    headers: z.record(z.string(), z.string()).optional(),
    body: z.record(z.string(), z.unknown()).optional(),
    body_factory: nonEmpty.optional(),
    /** Shorthand of `expect: { status: [...] }`. */
    expect_status: statusList.optional(),
  })
  .refine((s) => !(s.body && s.body_factory), {
    message: 'give either body or body_factory, not both',
    path: ['body_factory'],
  });

const rpcScenario = z.strictObject({
  type: z.literal('rpc'),
  ...common,
  method: z
    .string()
    .regex(
      /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$/,
      'an RPC method is a dotted name, e.g. crm.api.customer_count',
    ),
  args: z.array(z.unknown()).optional(),
  kwargs: z.record(z.string(), z.unknown()).optional(),
  /** Shorthand of `expect: { status: [...] }`. */
  expect_status: statusList.optional(),
});

/** `type: flow`: ordered steps per iteration, values captured by one step used by the next ones. */
const flowScenario = z.strictObject({
  type: z.literal('flow'),
  ...common,
  steps: z.array(flowStepSchema).min(1, 'a flow needs at least one step'),
});

/** One scenario; `type` selects the shape. */
const scenarioSchema = z.discriminatedUnion('type', [
  doctypeScenario,
  endpointScenario,
  rpcScenario,
  flowScenario,
]);

/** The whole load-test file. */
export const loadConfigSchema = z.strictObject({
  target_url: z.url({ protocol: /^https?$/, error: 'target_url must be an http(s) URL' }),
  auth: authSchema,
  users: z
    .strictObject({
      /** Simulated users at peak (closed model), or the most concurrent users (open model). */
      peak: positiveInt.default(10),
      ramp_up_seconds: z.number().min(0).optional(),
      /** Users started per second; wins over ramp_up_seconds when both are given. */
      spawn_rate: z.number().positive().optional(),
      /** `Host` header the users send (virtual hosting); default the authority of target_url. */
      host: nonEmpty.optional(),
      /** Pause between a user's requests: seconds, or a uniform [min, max] range. Closed model only. */
      think_time_seconds: thinkTime.optional(),
      /** Closed model: users over time, each stage ramping linearly to its target. */
      stages: stagesSchema.optional(),
    })
    .prefault({}),
  /** Open model: a target request rate; present means arrival-rate executor. */
  rate: z
    .strictObject({
      requests_per_second: z.number().positive().optional(),
      requests_per_minute: z.number().positive().optional(),
      /** Arrival rate over time (requests per second), each stage ramping linearly to its target. */
      stages: stagesSchema.optional(),
    })
    .refine(
      (r) =>
        [r.requests_per_second, r.requests_per_minute, r.stages].filter((v) => v !== undefined).length === 1,
      'give exactly one of requests_per_second, requests_per_minute or stages',
    )
    .optional(),
  /** Default 300, or the sum of the stages' durations. */
  duration_seconds: positiveInt.optional(),
  seed: z.record(z.string(), z.unknown()).default({}),
  targets: z.array(scenarioSchema).min(1, 'at least one scenario is needed'),
  thresholds: thresholdsSchema.prefault({}),
  generator: z
    .strictObject({
      /** Worker threads generating load (1 = the main thread only). */
      workers: z.int().min(1).max(64).default(1),
      /** Event-loop delay (p99, ms) above which the generator is saturated. */
      max_event_loop_lag_ms: z.number().positive().default(100),
      /** Open model: fraction of the target rate that must be achieved. */
      min_achieved_rate: z.number().min(0).max(1).default(0.95),
      /**
       * Open model: a wake-up sends every arrival due within this many ms, the later ones early (each
       * measured from its sending). 2 keeps one wake-up per arrival.
       */
      batch_ms: z.number().min(2).max(100).default(20),
    })
    .prefault({}),
  /**
   * Ask the target for `Server-Timing` on every request (`X-Platform-Timing: 1`) and report each
   * scenario's time per server stage; the server answers it to System Managers only.
   */
  server_timing: z.boolean().default(false),
  http: z
    .strictObject({
      timeout_seconds: z.number().positive().default(30),
      /** Connections per origin and worker; default min(users.peak, 512). */
      connections: positiveInt.optional(),
    })
    .prefault({}),
});
// Rules across keys are checked on the raw values (cross-keys.ts), so they are reported together with the
// schema's own problems instead of only once those are fixed.

/** The validated YAML, defaults applied. */
export type LoadConfig = z.output<typeof loadConfigSchema>;
/** One validated auth provider object. */
export type AuthConfig = z.output<typeof authSchema>;
/** Validated thresholds (any key may be absent). */
export type ThresholdsConfig = z.output<typeof thresholdsSchema>;
