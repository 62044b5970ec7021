/** The Gadget form (create only): saves through the Desk's data provider with Refine's `useCreate`. */
import { useCreate } from '@refinedev/core';
import { type FormEvent, useState } from 'react';

/** The props the Desk gives a form view (the contract's `FormViewProps`, the part this form uses). */
interface FormViewProps {
  docType: string;
  schema: unknown;
  onSaved(record: Record<string, unknown>): void;
  onCancel(): void;
}

export function GadgetForm({ docType, schema, onSaved, onCancel }: FormViewProps): React.JSX.Element {
  const [title, setTitle] = useState('');
  const [error, setError] = useState<string | undefined>();
  const { mutateAsync: create, mutation } = useCreate();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!title.trim()) return setError('A gadget needs a title.');
    try {
      const saved = await create({ resource: docType, values: { title: title.trim() }, meta: { schema } });
      onSaved(saved.data as Record<string, unknown>);
    } catch (e) {
      setError((e as Error).message || 'The gadget could not be saved.');
    }
  };

  return (
    <form noValidate onSubmit={submit} aria-label="Gadget">
      <h2>New gadget</h2>
      <p>gadgets form from its own bundler config</p>
      {error ? <p role="alert">{error}</p> : null}
      <label>
        Title <input value={title} onChange={(e) => setTitle(e.target.value)} />
      </label>
      <button type="submit" disabled={mutation.isPending}>
        Save gadget
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}
