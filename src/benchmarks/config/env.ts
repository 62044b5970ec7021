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

/** The placeholder a dry run shows for an unset secret variable. */
export function unsetPlaceholder(name: string): string {
  return `<unset ${name}>`;
}

/** Tells whether `path` is a secret of an auth object (`auth.token`, `targets[2].auth.password`). */
function isSecretPath(path: ReadonlyArray<string | number>): boolean {
  return path.length >= 2 && path[path.length - 2] === 'auth' && SECRET_KEYS.has(String(path.at(-1)));
}

/**
 * Replaces `${ENV_NAME}` references in every string of the tree with the environment's values.
 * A reference to an unset variable is an issue naming it; the value is left unresolved. With
 * `placeholders` (dry run), an unset variable inside an auth secret becomes {@link unsetPlaceholder}.
 */
export function substituteEnv(
  value: unknown,
  env: Record<string, string | undefined>,
  src: YamlSource,
  issues: ConfigIssue[],
  path: (string | number)[] = [],
  placeholders = false,
): unknown {
  if (typeof value === 'string') {
    return value.replace(ENV_REF, (ref, name: string) => {
      const v = env[name];
      if (v === undefined) {
        if (placeholders && isSecretPath(path)) return unsetPlaceholder(name);
        issues.push(src.issue('missing_env', path, `environment variable ${name} is not set`));
        return ref;
      }
      return v;
    });
  }
  const sub = (v: unknown, seg: string | number) =>
    substituteEnv(v, env, src, issues, [...path, seg], placeholders);
  if (Array.isArray(value)) return value.map((v, i) => sub(v, i));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = sub(v, k);
    return out;
  }
  return value;
}

/** The set variables among those the tree references, with their values (what a plan depends on). */
export function referencedEnv(
  value: unknown,
  env: Record<string, string | undefined>,
  out: Record<string, string> = {},
): Record<string, string> {
  if (typeof value === 'string') {
    for (const m of value.matchAll(ENV_REF)) {
      const v = env[m[1]!];
      if (v !== undefined) out[m[1]!] = v;
    }
  } else if (value && typeof value === 'object') {
    for (const v of Object.values(value)) referencedEnv(v, env, out);
  }
  return out;
}
