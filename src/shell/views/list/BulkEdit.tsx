/**
 * The bulk edit's screens: the panel that picks the field and its new value (an input by the field's type,
 * checked like the form checks it), the confirmation naming how many rows change, and the rows that could
 * not be updated, each with its reason.
 */
import { useId, useState } from 'react';
import type { DeskField } from '../../fields';
import { adoptStyles } from '../../styles/adopt-styles';
import listPanelsCss from '../../styles/list-panels.css';
import { isBlank, validateField } from '../../validation';
import { countOf } from '../../words/plural';
import { ConfirmDialog } from '../ConfirmDialog';
import { FieldInput } from '../field-input';
import type { BulkEdit } from './use-bulk-edit';

adoptStyles('list-panels', listPanelsCss);

/** Props of the bulk edit's parts. */
export interface BulkEditProps {
  /** The DocType's label (`Customer`). */
  label: string;
  /** The fields that may be set. */
  fields: readonly DeskField[];
  edit: BulkEdit;
  /** How many rows are selected. */
  count: number;
  /** Runs the edit on the selected rows. */
  onApply(): void;
}

/** The new value in words, for the confirmation. */
function valueWords(field: DeskField, value: unknown): string {
  if (field.type === 'boolean') return value ? 'Yes' : 'No';
  return `“${String(value).trim()}”`;
}

/** The panel of the field and value; nothing while closed. */
export function BulkEditPanel({
  label,
  fields,
  edit,
  count,
}: Omit<BulkEditProps, 'onApply'>): React.JSX.Element | null {
  const id = useId();
  const [error, setError] = useState<string | undefined>(undefined);
  const { field } = edit;
  if (!edit.editing || !field) return null;
  return (
    <form
      className="desk-bulk-edit"
      aria-label={`Edit ${countOf(count, label)}`}
      onSubmit={(e) => {
        e.preventDefault();
        const message = validateField(field, edit.value);
        setError(message);
        if (!message) edit.setConfirming(true);
      }}
    >
      <div className="desk-field">
        <label htmlFor={`${id}-field`}>Field</label>
        <select
          id={`${id}-field`}
          value={field.name}
          onChange={(e) => {
            setError(undefined);
            edit.setField(e.target.value);
          }}
        >
          {fields.map((f) => (
            <option key={f.name} value={f.name}>
              {f.label}
            </option>
          ))}
        </select>
      </div>
      <FieldInput
        key={field.name}
        field={field}
        value={edit.value}
        error={error}
        idPrefix={`${id}-value`}
        onChange={(value) => {
          setError(undefined);
          edit.setValue(value);
        }}
      />
      <div className="desk-actions">
        <button type="submit" className="desk-button desk-button--primary">
          Update {countOf(count, label)}…
        </button>
        <button type="button" className="desk-button" onClick={() => edit.setEditing(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The confirmation; nothing until the panel was submitted. */
export function BulkEditConfirm({
  label,
  edit,
  count,
  onApply,
}: Omit<BulkEditProps, 'fields'>): React.JSX.Element | null {
  const { field } = edit;
  if (!edit.confirming || !field) return null;
  return (
    <ConfirmDialog
      title={`Update ${countOf(count, label)}?`}
      confirmLabel="Update"
      confirmTone="primary"
      busy={edit.running}
      onCancel={() => edit.setConfirming(false)}
      onConfirm={onApply}
    >
      <p>
        {isBlank(edit.value) && field.type !== 'boolean'
          ? `${field.label} is cleared on each of them.`
          : `${field.label} is set to ${valueWords(field, edit.value)} on each of them.`}
      </p>
    </ConfirmDialog>
  );
}

/** The rows the last edit could not update; nothing when all were. */
export function BulkEditFailures({ edit }: { edit: BulkEdit }): React.JSX.Element | null {
  if (edit.failures.length === 0) return null;
  return (
    <section className="desk-bulk-failures" role="alert" aria-label="Rows not updated">
      <p>These were not updated:</p>
      <ul>
        {edit.failures.map((f) => (
          <li key={f.id}>
            <strong>{f.title}</strong>: {f.message}
          </li>
        ))}
      </ul>
      <button type="button" className="desk-button desk-button--link" onClick={edit.dismissFailures}>
        Dismiss
      </button>
    </section>
  );
}
