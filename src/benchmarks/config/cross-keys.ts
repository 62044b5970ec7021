import type { ConfigIssue, YamlSource } from './issues';

type Obj = Record<string, unknown>;

const objectAt = (v: unknown): Obj | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;

/**
 * Rules that join several keys of the file, checked on its raw values (after environment substitution
 * and overrides) so they are reported in the same pass as the schema's problems: think time only in the
 * closed model; stages in one place, and not beside the ramp-up keys or `duration_seconds` they replace.
 */
export function crossKeyIssues(raw: Obj, src: YamlSource): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const issue = (path: (string | number)[], message: string) =>
    issues.push(src.issue('invalid_value', path, message));
  const users = objectAt(raw.users) ?? {};
  const rate = objectAt(raw.rate);
  if (rate && users.think_time_seconds !== undefined)
    issue(
      ['users', 'think_time_seconds'],
      'think_time_seconds applies to the closed user model; remove it or remove rate',
    );
  if (rate && users.stages !== undefined)
    issue(['users', 'stages'], 'with rate, the stages of the arrival rate go under rate.stages');
  const where = users.stages !== undefined ? 'users' : rate?.stages !== undefined ? 'rate' : undefined;
  if (where) {
    for (const key of ['ramp_up_seconds', 'spawn_rate']) {
      if (users[key] !== undefined) issue(['users', key], `${where}.stages replace ${key}; remove one`);
    }
    if (raw.duration_seconds !== undefined)
      issue(['duration_seconds'], `${where}.stages set the duration; remove duration_seconds`);
    const stages = where === 'users' ? users.stages : rate?.stages;
    if (Array.isArray(stages) && stages.length > 0 && stages.every((s) => objectAt(s)?.target === 0))
      issue([where, 'stages'], 'every stage has target 0');
  }
  return issues;
}
