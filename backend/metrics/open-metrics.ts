/**
 * The OpenMetrics text format (what Prometheus scrapes): metric families, each a `# TYPE` and `# HELP` line
 * followed by its samples, and `# EOF` at the end. Counters' samples carry the `_total` suffix; histograms
 * give cumulative `_bucket` counts per upper bound, then `_count` and `_sum`.
 */

/** The media type of an OpenMetrics answer. */
export const OPEN_METRICS_CONTENT_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

/** Label names and values of one sample. */
export type Labels = Readonly<Record<string, string>>;

/** One sample of a counter or a gauge. */
export interface Sample {
  labels?: Labels;
  value: number;
}

/** A histogram's state for one label set: cumulative counts aligned with the family's bounds. */
export interface HistogramSample {
  labels?: Labels;
  /** Cumulative count at each bound of {@link HistogramFamily.bounds}. */
  buckets: readonly number[];
  count: number;
  sum: number;
}

/** A counter or gauge family. */
export interface ScalarFamily {
  type: 'counter' | 'gauge';
  /** The family name; a counter's samples are written as `<name>_total`. */
  name: string;
  help: string;
  samples: readonly Sample[];
}

/** A histogram family. */
export interface HistogramFamily {
  type: 'histogram';
  name: string;
  help: string;
  /** Upper bounds of the buckets, ascending (the `+Inf` bucket is implied). */
  bounds: readonly number[];
  samples: readonly HistogramSample[];
}

/** A metric family of any kind. */
export type MetricFamily = ScalarFamily | HistogramFamily;

/** Escapes a label value: backslash, double quote and newline (OpenMetrics ABNF `escaped-string`). */
function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function labelSet(labels: Labels | undefined, extra?: [string, string]): string {
  const pairs = Object.entries(labels ?? {});
  if (extra) pairs.push(extra);
  if (pairs.length === 0) return '';
  return `{${pairs.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}`;
}

/** A number as OpenMetrics writes it (`+Inf`, `-Inf`, `NaN`, or a decimal). */
function formatNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}

/** Renders the families as one OpenMetrics text document, ending with `# EOF`. */
export function renderOpenMetrics(families: readonly MetricFamily[]): string {
  const out: string[] = [];
  for (const family of families) {
    out.push(`# TYPE ${family.name} ${family.type}`, `# HELP ${family.name} ${family.help}`);
    if (family.type === 'histogram') {
      for (const s of family.samples) {
        family.bounds.forEach((bound, i) => {
          out.push(
            `${family.name}_bucket${labelSet(s.labels, ['le', formatNumber(bound)])} ${s.buckets[i] ?? 0}`,
          );
        });
        out.push(`${family.name}_bucket${labelSet(s.labels, ['le', '+Inf'])} ${s.count}`);
        out.push(`${family.name}_count${labelSet(s.labels)} ${s.count}`);
        out.push(`${family.name}_sum${labelSet(s.labels)} ${formatNumber(s.sum)}`);
      }
      continue;
    }
    const suffix = family.type === 'counter' ? '_total' : '';
    for (const s of family.samples) {
      out.push(`${family.name}${suffix}${labelSet(s.labels)} ${formatNumber(s.value)}`);
    }
  }
  out.push('# EOF', '');
  return out.join('\n');
}
