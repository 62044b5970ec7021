/**
 * The generic create/edit form of a DocType, built from its metadata. Saves through Refine (the shell's
 * `frameworkMDataProvider`) with `meta: { schema }`, so fields flagged `pii`/`encrypted` are encrypted in the
 * browser when the security mode asks for it (docs/sdk.md#payload-encryption-and-http).
 */
import { type FormEvent, useId, useRef, useState } from 'react';
import type { DeskRecord, FormViewProps } from '../../contract/remote';
import { PII_MASK } from '../../protocol';
import { useCreateRecord, useRecord, useUpdateRecord } from '../data/records';
import { type DeskField, deskFields, initialValues } from '../fields';
import { type FieldErrors, toPayload, validateField, validateRecord } from '../validation';
import { type FailureWords, failureWords } from '../words/failure';
import { FieldInput } from './field-input';
import { DeveloperDetails, ErrorState, Loading } from './states';

/** Server-side field errors (`{ error: { fields } }` surfaced by the SDK) as a name -> message map. */
export function serverFieldErrors(error: unknown): FieldErrors {
  const fields = (error as { fields?: unknown } | null)?.fields;
  const out: FieldErrors = {};
  if (Array.isArray(fields)) {
    for (const f of fields as Array<{ field?: unknown; message?: unknown }>) {
      if (typeof f.field === 'string')
        out[f.field] = typeof f.message === 'string' ? f.message : 'Invalid value.';
    }
  }
  return out;
}

/** Editable fields of a schema, in declaration order. */
export function formFields(fields: readonly DeskField[]): DeskField[] {
  return fields.filter((f) => f.name !== 'name');
}

/** The generic form view (see {@link FormViewProps}). */
export function GenericForm({ docType, schema, id, onSaved, onCancel }: FormViewProps): React.JSX.Element {
  const editing = id !== undefined;
  const { query, result: record } = useRecord<DeskRecord>({
    resource: docType,
    id: id ?? '',
    enabled: editing,
  });
  if (editing && query.isLoading) return <Loading label={`Loading ${schema.label}…`} />;
  if (editing && query.isError) {
    return (
      <ErrorState
        title={`This ${schema.label.toLowerCase()} could not be opened.`}
        error={query.error}
        onRetry={() => query.refetch()}
      >
        <button type="button" className="desk-button" onClick={onCancel}>
          Back to the list
        </button>
      </ErrorState>
    );
  }
  return (
    <FormBody
      key={id ?? 'new'}
      docType={docType}
      schema={schema}
      id={id}
      initial={editing ? (record ?? {}) : initialValues(formFields(deskFields(schema)))}
      onSaved={onSaved}
      onCancel={onCancel}
    />
  );
}

function FormBody({
  docType,
  schema,
  id,
  initial,
  onSaved,
  onCancel,
}: FormViewProps & { initial: DeskRecord }): React.JSX.Element {
  // Personal data the server masked for this user is shown as hidden and never sent back
  // (docs/permissions.md#personal-data).
  const hidden = schema.fields.filter((f) => initial[f.name] === PII_MASK);
  const fields = formFields(deskFields(schema)).filter((f) => initial[f.name] !== PII_MASK);
  const [values, setValues] = useState<Record<string, unknown>>(() => ({ ...initial }));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<FailureWords | undefined>();
  const { mutateAsync: create, mutation: createState } = useCreateRecord<DeskRecord>();
  const { mutateAsync: update, mutation: updateState } = useUpdateRecord<DeskRecord>();
  const saving = createState.isPending || updateState.isPending;
  const idPrefix = useId();
  const formRef = useRef<HTMLFormElement>(null);

  const focusFirstInvalid = (errs: FieldErrors) => {
    const first = fields.find((f) => errs[f.name]);
    if (first) formRef.current?.querySelector<HTMLElement>(`[name="${CSS.escape(first.name)}"]`)?.focus();
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setFailure(undefined);
    const found = validateRecord(fields, values);
    setErrors(found);
    if (Object.keys(found).length > 0) {
      focusFirstInvalid(found);
      return;
    }
    const payload = toPayload(fields, values, { clearBlank: Boolean(id) });
    try {
      const saved = id
        ? await update({ resource: docType, id, values: payload, meta: { schema } })
        : await create({ resource: docType, values: payload, meta: { schema } });
      onSaved(saved.data);
    } catch (error) {
      const fromServer = serverFieldErrors(error);
      setErrors(fromServer);
      setFailure(failureWords(error));
      focusFirstInvalid(fromServer);
    }
  };

  // The page's heading names the record; the form itself is labelled for assistive technology only.
  const title = id ? `${schema.label}: ${String(initial[schema.titleField] ?? id)}` : `New ${schema.label}`;
  return (
    <form ref={formRef} className="desk-form" noValidate onSubmit={onSubmit} aria-label={title}>
      {failure ? (
        <div className="desk-banner desk-banner--error" role="alert">
          {failure.message}
          <DeveloperDetails words={failure} />
        </div>
      ) : null}
      {hidden.length > 0 ? (
        <p className="desk-form__note">
          Hidden (personal data you may not see): {hidden.map((f) => f.label).join(', ')}.
        </p>
      ) : null}
      <div className="desk-form__grid">
        {fields.map((field) => (
          <FieldInput
            key={field.name}
            field={field}
            idPrefix={idPrefix}
            value={values[field.name]}
            error={errors[field.name]}
            disabled={saving}
            onChange={(value) => {
              setValues((v) => ({ ...v, [field.name]: value }));
              if (errors[field.name]) {
                setErrors(({ [field.name]: _cleared, ...rest }) => rest);
              }
            }}
            onBlur={() => {
              const message = validateField(field, values[field.name]);
              setErrors((e) => {
                const { [field.name]: _old, ...rest } = e;
                return message ? { ...rest, [field.name]: message } : rest;
              });
            }}
          />
        ))}
      </div>
      <div className="desk-actions">
        <button type="submit" className="desk-button desk-button--primary" disabled={saving}>
          {saving ? 'Saving…' : 'Save'}
        </button>
        <button type="button" className="desk-button" onClick={onCancel} disabled={saving}>
          Cancel
        </button>
      </div>
    </form>
  );
}
