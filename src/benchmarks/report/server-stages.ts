import type { StageTimes } from '../engine/server-timing';
import type { LoadResult, StageMean } from './result';
import { renderStageBars, type StageBar } from './stage-chart';

/** What the report says when the run asked for `Server-Timing` and the server sent none. */
export const NO_SERVER_TIMING = 'the server sent no Server-Timing (it is sent to System Managers only)';

/** The stage the server lists last: the whole request, which the other stages make up. */
const TOTAL_STAGE = 'total';

/** The scenarios of a result that have server stages, with them. */
function timedScenarios(r: LoadResult): Array<{ label: string; stages: Record<string, StageMean> }> {
  return r.scenarios.flatMap((s) => (s.serverTiming ? [{ label: s.label, stages: s.serverTiming }] : []));
}

/** Whether the run asked for `Server-Timing` and no response carried it. */
export function serverTimingMissing(r: LoadResult): boolean {
  return r.config.serverTiming === true && timedScenarios(r).length === 0;
}

/** A scenario's bar from its stages' means: the stages stacked, the server's `total` as its figure. */
function barOf(label: string, stages: Record<string, StageMean>): StageBar {
  return {
    label,
    stages: Object.entries(stages)
      .filter(([name]) => name !== TOTAL_STAGE)
      .map(([name, m]) => [name, m.meanMs]),
    totalMs: stages[TOTAL_STAGE]?.meanMs,
  };
}

/** One bar per scenario with server stages: the stages stacked, the server's `total` as its figure. */
export function stageBars(r: LoadResult): StageBar[] {
  return timedScenarios(r).map(({ label, stages }) => barOf(label, stages));
}

/**
 * The bars of a run so far (the live dashboard): one per series whose responses carried `Server-Timing`,
 * from the stage times summed since the start; `labels[i]` names `series[i]`.
 */
export function liveStageBars(
  labels: readonly string[],
  series: ReadonlyArray<{ stageTimes?: StageTimes }>,
): StageBar[] {
  return series.flatMap((s, i) => {
    if (!s.stageTimes) return [];
    const means = Object.fromEntries(
      Object.entries(s.stageTimes).map(([name, t]) => [
        name,
        { meanMs: Math.round((t.sumMs / t.count) * 1000) / 1000, count: t.count },
      ]),
    );
    return [barOf(labels[i] ?? `#${i}`, means)];
  });
}

/**
 * The summary's lines: per scenario its mean time per stage (`server stages: crm: host 0.01, ..., total
 * 1.2 ms per response (120 responses)`), or the sentence saying the server sent none.
 */
export function serverTimingLines(r: LoadResult): string[] {
  if (serverTimingMissing(r)) return [`server stages: ${NO_SERVER_TIMING}`];
  return timedScenarios(r).map(({ label, stages }) => {
    const list = Object.entries(stages);
    const responses = stages[TOTAL_STAGE]?.count ?? Math.max(...list.map(([, m]) => m.count));
    const means = list.map(([name, m]) => `${name} ${m.meanMs}`).join(', ');
    return `server stages: ${label}: ${means} ms mean (${responses} responses)`;
  });
}

/**
 * The report's section: the stacked bars beside a table of every stage's mean per scenario, or the sentence
 * saying the server sent none; nothing when the run did not ask.
 */
export function serverTimingSection(r: LoadResult, esc: (s: string) => string): string {
  if (serverTimingMissing(r)) {
    const sentence = `${NO_SERVER_TIMING.charAt(0).toUpperCase()}${NO_SERVER_TIMING.slice(1)}.`;
    return `<h2>Server stages</h2><p>${esc(sentence)}</p>`;
  }
  const scenarios = timedScenarios(r);
  if (scenarios.length === 0) return '';
  const names: string[] = [];
  for (const s of scenarios)
    for (const name of Object.keys(s.stages)) if (!names.includes(name)) names.push(name);
  // A row per stage and a column per scenario: eleven stages fit down a column, not across a grid cell.
  const rows = names.map(
    (n) =>
      `<tr><th>${esc(n)}</th>${scenarios.map((s) => `<td>${s.stages[n] === undefined ? '' : s.stages[n].meanMs}</td>`).join('')}</tr>`,
  );
  return (
    `<h2>Server stages</h2><div class="charts"><div class="chart">${renderStageBars('Where the server spent its time', stageBars(r))}</div>` +
    `<div class="chart" style="overflow-x:auto"><table><tr><th>mean ms</th>${scenarios.map((s) => `<th>${esc(s.label)}</th>`).join('')}</tr>${rows.join('')}</table></div></div>`
  );
}
