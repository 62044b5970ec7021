import type { ConfigIssue, ConfigPath, YamlSource } from './issues';

/**
 * `${ENV_NAME}` references (docs/load-testing.md#auth-providers: secret values are supplied this way, never
 * inline).
 */
const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Auth keys whose values are secrets and must come from the environment. */
const SECRET_KEYS = new Set(['password', 'key', 'token']);

/**
 * What may surround `${...}` references in a secret value: separators and a leading scheme word, so
 * `token ${API_KEY}:${API_SECRET}` and `Bearer ${TOKEN}` are accepted but `hunter2` or `abc${X}` are not.
 */
const SECRET_FRAME = /^(?:(?:token|Bearer|Basic) )?(?:\$\{[A-Za-z_][A-Za-z0-9_]*\}[:. _-]?)+$/;

/**
 * Rejects inline secrets in every auth object (top level and per scenario): a `password`, `key` or `token`
 * must be `${ENV_NAME}` references (optionally framed as `token ${A}:${B}` or `Bearer ${T}`).
 */
export function checkInlineSecrets(raw: unknown, src: YamlSource): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const check = (auth: unknown, path: ConfigPath) => {
    if (!auth || typeof auth !== 'object') return;
    for (const [k, v] of Object.entries(auth)) {
      if (!SECRET_KEYS.has(k) || typeof v !== 'string') continue;
      if (!SECRET_FRAME.test(v)) {
        issues.push(
          src.issue(
            'inline_secret',
            [...path, k],
            `"${k}" must come from the environment, e.g. \${LOAD_${k.toUpperCase()}}; inline secrets are refused`,
          ),
        );
      }
    }
  };
  const root = raw as { auth?: unknown; targets?: unknown } | null;
  check(root?.auth, ['auth']);
  if (Array.isArray(root?.targets)) {
    root.targets.forEach((t, i) => {
      check((t as { auth?: unknown })?.auth, ['targets', i, 'auth']);
    });
  }
  return issues;
}

/**
 * Replaces `${ENV_NAME}` references in every string of the tree with the environment's values.
 * A reference to an unset variable is an issue naming it; the value is left unresolved.
 */
export function substituteEnv(
  value: unknown,
  env: Record<string, string | undefined>,
  src: YamlSource,
  issues: ConfigIssue[],
  path: (string | number)[] = [],
): unknown {
  if (typeof value === 'string') {
    return value.replace(ENV_REF, (ref, name: string) => {
      const v = env[name];
      if (v === undefined) {
        issues.push(src.issue('missing_env', path, `environment variable ${name} is not set`));
        return ref;
      }
      return v;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => substituteEnv(v, env, src, issues, [...path, i]));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = substituteEnv(v, env, src, issues, [...path, k]);
    return out;
  }
  return value;
}
