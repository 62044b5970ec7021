/**
 * The generic list's selection and bulk delete: which visible rows are selected, whether the delete is being
 * confirmed, and the delete itself with its notice. Selection is of visible rows only: a new page, filter or
 * sort starts with none.
 */
import { useEffect, useState } from 'react';
import { useDeleteRecords, useInvalidateRecords } from '../../data/records';
import { usePlatform } from '../../hooks/use-platform';
import type { ListState } from '../../routing/route';
import { failureWords } from '../../words/failure';
import { countOf } from '../../words/plural';
import { filterKey } from './use-list-state';

/** What {@link useBulkSelection} gives the list. */
export interface BulkSelection {
  selected: ReadonlySet<string>;
  setSelected: (selected: ReadonlySet<string>) => void;
  /** Whether the delete's confirmation dialog is open. */
  confirming: boolean;
  setConfirming: (confirming: boolean) => void;
  /** Whether the delete is in flight. */
  deleting: boolean;
  /** Deletes the selected records, tells the user how it went, and refreshes the list. */
  deleteSelected: () => Promise<void>;
}

/** Selection and bulk delete of the records of `docType` (labelled `label`) shown with `state`. */
export function useBulkSelection(docType: string, label: string, state: ListState): BulkSelection {
  const { notices } = usePlatform();
  const invalidate = useInvalidateRecords();
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [confirming, setConfirming] = useState(false);
  const { mutateAsync: deleteMany, mutation } = useDeleteRecords();
  const { page, pageSize, sort } = state;
  const stateKey = `${filterKey(state)}${JSON.stringify(state.conditions ?? [])}`;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the dependencies are the triggers, not inputs
  useEffect(() => {
    setSelected(new Set());
  }, [docType, page, pageSize, stateKey, sort?.field, sort?.order]);

  const deleteSelected = async () => {
    const ids = [...selected];
    try {
      await deleteMany({ resource: docType, ids });
      notices.show(`Deleted ${countOf(ids.length, label)}.`);
    } catch (error) {
      notices.show(
        `Not every ${label.toLowerCase()} could be deleted. ${failureWords(error).message}`,
        'error',
      );
    } finally {
      setConfirming(false);
      setSelected(new Set());
      void invalidate({ resource: docType, invalidates: ['list', 'many'] });
    }
  };

  return {
    selected,
    setSelected,
    confirming,
    setConfirming,
    deleting: mutation.isPending,
    deleteSelected,
  };
}
