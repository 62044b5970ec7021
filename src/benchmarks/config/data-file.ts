import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseCsv, parseJsonData } from '../data/parse-data';
import type { ConfigIssue, ConfigPath, YamlSource } from './issues';
import type { DataPlan, PlanSource } from './plan';

/**
 * Reads and parses a scenario's data file (relative to the config file), once: its text is kept in
 * `source.files`, so generator threads compiling the plan again use the same rows without reading the
 * disk. An unreadable, malformed or empty file is a problem at `path`.
 */
export function dataPlan(
  d: { file: string; mode: DataPlan['mode'] },
  path: ConfigPath,
  configPath: string,
  source: PlanSource,
  src: YamlSource,
  issues: ConfigIssue[],
): DataPlan | undefined {
  const file = resolve(dirname(resolve(configPath)), d.file);
  source.files ??= {};
  let text = source.files[file];
  if (text === undefined) {
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      issues.push(src.issue('data_file', path, `cannot read ${d.file} (looked for ${file})`));
      return undefined;
    }
    source.files[file] = text;
  }
  const parsed = /\.json$/i.test(file) ? parseJsonData(text) : parseCsv(text);
  if (!parsed.ok) {
    issues.push(src.issue('data_file', path, `${d.file}: ${parsed.message}`));
    return undefined;
  }
  if (parsed.rows.length === 0) {
    issues.push(src.issue('data_file', path, `${d.file} has no rows`));
    return undefined;
  }
  return { file: d.file, mode: d.mode, columns: parsed.columns, rows: parsed.rows };
}
