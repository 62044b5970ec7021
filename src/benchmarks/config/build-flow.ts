import { compileCaptures, compileChecks } from '../checks/checks';
import type { CompileAt } from './compile-at';
import type { ConfigIssue, ConfigPath, YamlSource } from './issues';
import type { FlowStepPlan, StepRequest } from './plan';
import type { FlowStepConfig } from './schema-flow';
import { thresholdsOf } from './thresholds';

/** Statuses a DocType operation answers with by default (the data API: 201 create, 204 delete accepted). */
const DOCTYPE_STATUS: Record<string, number[]> = {
  create: [200, 201],
  read: [200],
  update: [200],
  delete: [200, 204],
  list: [200],
};

function defaultName(s: FlowStepConfig, i: number): string {
  if (s.type === 'doctype') return `${i + 1}-${s.op}`;
  if (s.type === 'rpc') return `${i + 1}-${s.method}`;
  return `${i + 1}-${s.method.toLowerCase()}`;
}

/**
 * Resolves the steps of a flow. Templates of a step may use `{{ vars.<name> }}` for any variable
 * captured by an earlier step (a later or unknown one is a problem at its YAML position, since it could
 * only ever render empty); step names must be unique within the flow. Each step gets its own measured
 * series, numbered from `firstSlot`.
 */
export function buildFlowSteps(
  steps: FlowStepConfig[],
  path: ConfigPath,
  firstSlot: number,
  compile: CompileAt,
  src: YamlSource,
  issues: ConfigIssue[],
  dataColumns?: string[],
): FlowStepPlan[] {
  const data = dataColumns && new Set(dataColumns);
  const vars = new Set<string>();
  const names = new Map<string, number>();
  return steps.map((s, i) => {
    const at = [...path, i];
    const scope = { vars: new Set(vars), data };
    const name = s.name ?? defaultName(s, i);
    if (names.has(name)) {
      issues.push(
        src.issue('duplicate_step', [...at, 'name'], `"${name}" is also step ${names.get(name)! + 1}`),
      );
    }
    names.set(name, i);
    let request: StepRequest;
    let status: number[];
    if (s.type === 'doctype') {
      status = DOCTYPE_STATUS[s.op]!;
      request = {
        type: 'doctype',
        doctype: s.doctype,
        op: s.op,
        id: s.id === undefined ? undefined : compile(s.id, [...at, 'id'], scope),
        overrides: s.payload_overrides && compile(s.payload_overrides, [...at, 'payload_overrides'], scope),
        filters: s.filters && compile(s.filters, [...at, 'filters'], scope),
      };
    } else if (s.type === 'endpoint') {
      status = [200];
      request = {
        type: 'endpoint',
        method: s.method,
        path: compile(s.path, [...at, 'path'], scope),
        headers: compile(s.headers ?? {}, [...at, 'headers'], scope),
        body: s.body && compile(s.body, [...at, 'body'], scope),
      };
    } else {
      status = [200];
      request = {
        type: 'rpc',
        method: s.method,
        args: s.args && compile(s.args, [...at, 'args'], scope),
        kwargs: s.kwargs && compile(s.kwargs, [...at, 'kwargs'], scope),
      };
    }
    for (const v of Object.keys(s.capture ?? {})) vars.add(v);
    return {
      name,
      slot: firstSlot + i,
      request,
      checks: compileChecks(s.expect, status, (v, p) => compile(v, [...at, 'expect', ...p], scope)),
      captures: compileCaptures(s.capture),
      think:
        typeof s.think_seconds === 'number'
          ? [s.think_seconds, s.think_seconds]
          : (s.think_seconds ?? [0, 0]),
      thresholds: s.thresholds && thresholdsOf(s.thresholds, {}),
    };
  });
}
