/**
 * Bulk edit of one field: the field and value being set on the selected rows, the confirmation, and the
 * update itself, one request per row through the data provider (it has no bulk update). Rows that fail are
 * kept with their reasons, so the user sees which ones and why; the others are updated.
 */
import { useState } from 'react';
import type { DocTypeSchema } from '../../../protocol';
import { useInvalidateRecords } from '../../data/records';
import type { DeskField } from '../../fields';
import { usePlatform } from '../../hooks/use-platform';
import { toPayload } from '../../validation';
import { failureWords } from '../../words/failure';
import { countOf } from '../../words/plural';

/** One row the bulk edit could not update. */
export interface BulkEditFailure {
  id: string;
  /** The row's title as the list showed it (its id when it has none). */
  title: string;
  message: string;
}

/** What {@link useBulkEdit} gives the list. */
export interface BulkEdit {
  /** Whether the edit's panel is open. */
  editing: boolean;
  setEditing(editing: boolean): void;
  /** The field being set and the value it gets (as the input holds it). */
  field: DeskField | undefined;
  setField(name: string): void;
  value: unknown;
  setValue(value: unknown): void;
  /** Whether the confirmation is open. */
  confirming: boolean;
  setConfirming(confirming: boolean): void;
  /** Whether the updates are in flight. */
  running: boolean;
  /** The rows the last edit could not update. */
  failures: readonly BulkEditFailure[];
  dismissFailures(): void;
  /** Sets the field on each of `ids` (titled `titles`), tells the user how it went, and refreshes the list. */
  apply(ids: readonly string[], titles: Readonly<Record<string, string>>): Promise<void>;
}

/**
 * The fields a bulk edit may set: those the user may read, but not a `unique` one (the second row would
 * collide with the first).
 */
export function bulkEditableFields(fields: readonly DeskField[]): DeskField[] {
  return fields.filter((f) => !f.unique);
}

/** Bulk edit of the records of `docType`; `fields` are those it may set. */
export function useBulkEdit(docType: string, schema: DocTypeSchema, fields: readonly DeskField[]): BulkEdit {
  const { dataProvider, notices } = usePlatform();
  const invalidate = useInvalidateRecords();
  const [editing, setEditing] = useState(false);
  const [fieldName, setFieldName] = useState<string | undefined>(undefined);
  const [value, setValue] = useState<unknown>('');
  const [confirming, setConfirming] = useState(false);
  const [running, setRunning] = useState(false);
  const [failures, setFailures] = useState<BulkEditFailure[]>([]);
  const field = fields.find((f) => f.name === fieldName) ?? fields[0];
  const label = schema.label;

  const apply = async (ids: readonly string[], titles: Readonly<Record<string, string>>) => {
    if (!field) return;
    const values = toPayload([field], { [field.name]: value }, { clearBlank: true });
    setRunning(true);
    const outcomes = await Promise.allSettled(
      ids.map((id) => dataProvider.update({ resource: docType, id, variables: values, meta: { schema } })),
    );
    const failed = outcomes.flatMap((outcome, i): BulkEditFailure[] => {
      if (outcome.status === 'fulfilled') return [];
      const id = ids[i]!;
      return [{ id, title: titles[id] || id, message: failureWords(outcome.reason).message }];
    });
    setRunning(false);
    setConfirming(false);
    setEditing(false);
    setFailures(failed);
    const updated = ids.length - failed.length;
    if (failed.length === 0) notices.show(`Updated ${countOf(updated, label)}.`);
    else {
      notices.show(
        `Updated ${updated} of ${countOf(ids.length, label)}; ${failed.length} could not be updated.`,
        'error',
      );
    }
    void invalidate({ resource: docType, invalidates: ['list', 'many', 'detail'] });
  };

  return {
    editing,
    setEditing,
    field,
    setField: (name) => {
      setFieldName(name);
      setValue(fields.find((f) => f.name === name)?.type === 'boolean' ? false : '');
    },
    value,
    setValue,
    confirming,
    setConfirming,
    running,
    failures,
    dismissFailures: () => setFailures([]),
    apply,
  };
}
