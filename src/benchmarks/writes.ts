import type { LoadPlan } from './config/plan';

/**
 * What the plan's DocType scenarios and flow steps will write into the target's database, one line per
 * scenario (`crm.Customer: create 20%, update 10%, delete 10%`, `flow signup: create crm.Customer`).
 * Empty when the plan only reads. Endpoint and RPC requests are not listed: what they do is the
 * target's business, which the harness cannot know.
 */
export function plannedWrites(plan: LoadPlan): string[] {
  const out: string[] = [];
  for (const s of plan.scenarios) {
    if (s.type === 'doctype') {
      const ops = (['create', 'update', 'delete'] as const)
        .filter((op) => s.mix[op] > 0)
        .map((op) => `${op} ${Math.round(s.mix[op] * 100)}%`);
      if (ops.length > 0) out.push(`${s.label}: ${s.doctype} ${ops.join(', ')} of its requests`);
    } else if (s.type === 'flow') {
      const ops = s.steps.flatMap((st) =>
        st.request.type === 'doctype' && st.request.op !== 'read' && st.request.op !== 'list'
          ? [`${st.request.op} ${st.request.doctype}`]
          : [],
      );
      if (ops.length > 0) out.push(`flow ${s.label}: ${ops.join(', ')} per iteration`);
    }
  }
  return out;
}

/** The start-of-run warning about writes, or undefined when the plan writes nothing. */
export function writeWarning(plan: LoadPlan, cleanup: boolean): string | undefined {
  const writes = plannedWrites(plan);
  if (writes.length === 0) return undefined;
  return [
    `warning: this run writes records into ${plan.targetUrl}:`,
    ...writes.map((w) => `  - ${w}`),
    cleanup
      ? '  records the run creates and does not delete are deleted at the end (--cleanup)'
      : '  records the run creates stay there; add --cleanup to delete them at the end',
  ].join('\n');
}
