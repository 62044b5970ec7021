/**
 * What the form shows when its save was refused with 409 `conflict` (docs/http-api.md#conflicts): the
 * fields in which the user's version and the one stored meanwhile differ, side by side, and the two ways
 * on: save the user's version over the newer one, knowingly, or take the newer one and drop the edits.
 */
import type { DeskRecord } from '../../contract/remote';
import type { DeskField } from '../fields';
import { conflictRows } from '../form-rules';
import { isBlank } from '../validation';

/** Props of {@link ConflictPanel}. */
export interface ConflictPanelProps {
  fields: readonly DeskField[];
  /** The values in the form. */
  mine: Record<string, unknown>;
  /** The record as stored now. */
  theirs: DeskRecord;
  busy?: boolean;
  onKeepMine(): void;
  onTakeTheirs(): void;
}

function shown(value: unknown): string {
  if (isBlank(value)) return '—';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  return String(value);
}

/** The conflict, with both versions. */
export function ConflictPanel({
  fields,
  mine,
  theirs,
  busy,
  onKeepMine,
  onTakeTheirs,
}: ConflictPanelProps): React.JSX.Element {
  const rows = conflictRows(fields, mine, theirs);
  return (
    <section className="desk-conflict" role="alert" aria-labelledby="desk-conflict-title">
      <h2 id="desk-conflict-title" className="desk-conflict__title">
        Someone else saved this record while you were editing it.
      </h2>
      {rows.length === 0 ? (
        <p>Their version has the same values as yours.</p>
      ) : (
        <table className="desk-table desk-conflict__table">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Your version</th>
              <th scope="col">Saved version</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.field.name}>
                <th scope="row">{row.field.label}</th>
                <td>{shown(row.mine)}</td>
                <td>{shown(row.theirs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="desk-actions">
        <button
          type="button"
          className="desk-button desk-button--primary"
          disabled={busy}
          onClick={onKeepMine}
        >
          Save my version
        </button>
        <button type="button" className="desk-button" disabled={busy} onClick={onTakeTheirs}>
          Use the saved version
        </button>
      </div>
    </section>
  );
}
