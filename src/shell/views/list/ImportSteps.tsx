/**
 * The screens of the list's Import dialog, each a plain view of its step: the preview (a field to choose
 * per column, the counts, the rows that would fail and why), the progress bar, and the summary.
 */
import type { DocTypeSchema } from '../../../protocol';
import type { ImportPreview, ImportProgress, RowProblem } from '../../import/import-api';

/** The label of `field` in `schema`, or the field's own name (`(row)` for a row-level problem). */
function fieldLabel(schema: DocTypeSchema, field: string): string {
  if (field === '(row)') return 'Whole row';
  return schema.fields.find((f) => f.name === field)?.label ?? field;
}

/** The rows that fail (or failed), with their field and reason. */
export function ProblemsTable({
  schema,
  problems,
  caption,
}: {
  schema: DocTypeSchema;
  problems: readonly RowProblem[];
  caption: string;
}): React.JSX.Element {
  return (
    <div className="desk-import__problems">
      <table className="desk-table">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Row</th>
            <th scope="col">Field</th>
            <th scope="col">Problem</th>
          </tr>
        </thead>
        <tbody>
          {problems.map((p) => (
            <tr key={`${p.row}:${p.field}:${p.code}`}>
              <td>{p.row}</td>
              <td>{fieldLabel(schema, p.field)}</td>
              <td>{p.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Props of {@link PreviewStep}. */
export interface PreviewStepProps {
  schema: DocTypeSchema;
  fileName: string;
  preview: ImportPreview;
  /** True while a changed mapping is being checked again. */
  checking: boolean;
  onMap(column: string, field: string | null): void;
}

/** The preview: what each column fills, how many rows are ready, and the problems of the others. */
export function PreviewStep({
  schema,
  fileName,
  preview,
  checking,
  onMap,
}: PreviewStepProps): React.JSX.Element {
  const plural = preview.total === 1 ? 'row' : 'rows';
  return (
    <>
      <p role="status">
        {fileName}: {preview.total.toLocaleString()} {plural}, {preview.valid.toLocaleString()} ready to
        import
        {preview.invalid > 0 ? `, ${preview.invalid.toLocaleString()} with problems` : ''}.
        {checking ? ' Checking…' : ''}
      </p>
      {preview.unchecked_stored?.length ? (
        <p className="desk-form__note">{uncheckedWords(schema, preview.unchecked_stored)}</p>
      ) : null}
      <table className="desk-table desk-import__mapping">
        <caption>Columns</caption>
        <thead>
          <tr>
            <th scope="col">Column in the file</th>
            <th scope="col">Imported into</th>
          </tr>
        </thead>
        <tbody>
          {preview.mapping.map(({ column, field }) => (
            <tr key={column}>
              <td>{column}</td>
              <td>
                <select
                  className="desk-import__select"
                  aria-label={`Field for column ${column}`}
                  value={field ?? ''}
                  disabled={checking}
                  onChange={(e) => onMap(column, e.target.value === '' ? null : e.target.value)}
                >
                  <option value="">Not imported</option>
                  {schema.fields.map((f) => (
                    <option key={f.name} value={f.name}>
                      {f.label}
                    </option>
                  ))}
                </select>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {preview.errors.length > 0 ? (
        <ProblemsTable
          schema={schema}
          problems={preview.errors}
          caption={
            preview.errors_truncated
              ? `Rows that will not be imported (the first ${preview.errors.length.toLocaleString()} problems)`
              : 'Rows that will not be imported'
          }
        />
      ) : null}
    </>
  );
}

/** The running import: a progress bar and the rows done. */
export function ProgressStep({ progress }: { progress: ImportProgress }): React.JSX.Element {
  return (
    <>
      <p role="status">
        Imported {progress.done.toLocaleString()} of {progress.total.toLocaleString()} rows…
      </p>
      <progress
        className="desk-import__progress"
        max={Math.max(progress.total, 1)}
        value={progress.done}
        aria-label="Import progress"
      />
    </>
  );
}

/** The end of an import: what was created, what failed, or why it stopped. */
export function SummaryStep({
  schema,
  plural,
  progress,
}: {
  schema: DocTypeSchema;
  plural: string;
  progress: ImportProgress;
}): React.JSX.Element {
  const noun = progress.created === 1 ? schema.label.toLowerCase() : plural.toLowerCase();
  return (
    <>
      <p role="status">
        {progress.status === 'done' ? 'Import finished: ' : 'Import stopped: '}
        {progress.created.toLocaleString()} {noun} created
        {progress.failed > 0 ? `, ${progress.failed.toLocaleString()} rows not imported` : ''}.
      </p>
      {progress.status === 'stopped' ? (
        <p className="desk-field__error" role="alert">
          {progress.error?.message ?? 'The import did not finish.'} Resume it to import the remaining{' '}
          {(progress.total - progress.done).toLocaleString()} rows; no row is created twice.
        </p>
      ) : null}
      {progress.errors.length > 0 ? (
        <ProblemsTable schema={schema} problems={progress.errors} caption="Rows not imported" />
      ) : null}
    </>
  );
}

/**
 * Why the preview did not look for some values among the stored records: unique personal data the user may
 * not see (the server leaves it to the import's run, so the preview cannot tell which values are taken).
 */
function uncheckedWords(schema: DocTypeSchema, fields: readonly string[]): string {
  const labels = fields.map((name) => schema.fields.find((f) => f.name === name)?.label ?? name);
  const [subject, verb] = labels.length === 1 ? [labels[0]!, 'is'] : [labels.join(', '), 'are'];
  return `${subject} must be unique, and ${verb} personal data you may not see: whether a value is already used by a stored record is checked when the import runs, and a row that repeats one will fail then.`;
}
