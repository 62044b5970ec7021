/** Rows of a data file: column name -> value. */
export type DataRow = Record<string, unknown>;

/** A parsed data file, or why it cannot be used. */
export type ParsedData = { ok: true; columns: string[]; rows: DataRow[] } | { ok: false; message: string };

/**
 * Parses CSV (RFC 4180: a header row, fields separated by commas, double-quoted fields may hold commas,
 * newlines and doubled quotes). Values stay text; empty lines are skipped.
 */
export function parseCsv(text: string): ParsedData {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  let i = 0;
  const endRecord = () => {
    record.push(field);
    if (record.length > 1 || record[0] !== '') records.push(record);
    record = [];
    field = '';
  };
  const src = text.replace(/^\uFEFF/, '');
  while (i < src.length) {
    const c = src[i]!;
    if (quoted) {
      if (c === '"' && src[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && src[i + 1] === '\n') i++;
      endRecord();
    } else field += c;
    i++;
  }
  if (quoted) return { ok: false, message: 'a quoted field is not closed' };
  if (field !== '' || record.length > 0) endRecord();
  const [header, ...body] = records;
  if (!header || header.some((h) => h.trim() === ''))
    return { ok: false, message: 'the first row must name every column' };
  const columns = header.map((h) => h.trim());
  const bad = body.findIndex((r) => r.length !== columns.length);
  if (bad >= 0)
    return {
      ok: false,
      message: `row ${bad + 2} has ${body[bad]!.length} fields, the header ${columns.length}`,
    };
  return { ok: true, columns, rows: body.map((r) => Object.fromEntries(columns.map((c, j) => [c, r[j]]))) };
}

/** Parses a JSON data file: an array of objects; the columns are the keys of the first. */
export function parseJsonData(text: string): ParsedData {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { ok: false, message: 'not valid JSON' };
  }
  if (!Array.isArray(v) || !v.every((r) => r && typeof r === 'object' && !Array.isArray(r)))
    return { ok: false, message: 'a JSON data file is an array of objects' };
  const rows = v as DataRow[];
  return { ok: true, columns: Object.keys(rows[0] ?? {}), rows };
}
