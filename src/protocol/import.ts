/**
 * The CSV import API's wire types (docs/http-api.md#csv-import), shared by the backend's routes and the
 * Desk's Import action.
 */

/** Why one row cannot be imported; `row` is the spreadsheet's row number (the header is row 1). */
export interface RowProblem {
  row: number;
  field: string;
  code: string;
  message: string;
}

/** One column of the file and the field it fills (`null`: not imported). */
export interface ColumnMapping {
  column: string;
  field: string | null;
}

/** A mapping as the API takes it: heading → field name, or null to leave the column out. */
export type MappingRequest = Record<string, string | null>;

/** What the preview answers: nothing is written. */
export interface ImportPreview {
  mapping: ColumnMapping[];
  total: number;
  valid: number;
  invalid: number;
  errors: RowProblem[];
  /** Set when more bad rows exist than are listed. */
  errors_truncated?: true;
  /**
   * `unique` fields of personal data the caller gets masked: the preview does not look for their values
   * among the stored records (that would reveal which values are taken); the import's run does, and fails
   * a row that repeats one with `duplicate`. Absent when there are none.
   */
  unchecked_stored?: string[];
}

/** Where an import stands. */
export interface ImportProgress {
  import_id: string;
  doctype: string;
  /** `running` in the serving process now; `stopped` unfinished and not running (resume by posting it again). */
  status: 'running' | 'stopped' | 'done';
  total: number;
  done: number;
  created: number;
  failed: number;
  /** The failed rows' problems, in row order (a bounded number). */
  errors: RowProblem[];
  /** Why a run stopped, when it stopped on an error (a linked service unreachable, say). */
  error?: { code: string; message: string };
}
