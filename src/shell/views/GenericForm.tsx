/**
 * The generic create/edit form of a DocType, built from its metadata. Saves through Refine (the shell's
 * `frameworkMDataProvider`) with `meta: { schema }`, so fields flagged `pii`/`encrypted` are encrypted in the
 * browser when the security mode asks for it (docs/sdk.md#payload-encryption-and-http).
 */
import { useCreate, useOne, useUpdate } from '@refinedev/core';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import type { FieldSchema } from '../../protocol';
import type { DeskRecord, FormViewProps } from '../remote-contract';
import { type FieldErrors, toPayload, validateField, validateRecord } from '../validation';
import { FieldInput } from './field-input';
import { describeError, ErrorState, Loading } from './states';

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
export function formFields(fields: FieldSchema[]): FieldSchema[] {
  return fields.filter((f) => f.name !== 'name');
}

/** The generic form view (see {@link FormViewProps}). */
export function GenericForm({ docType, schema, id, onSaved, onCancel }: FormViewProps): React.JSX.Element {
  const editing = id !== undefined;
  const { query, result: record } = useOne<DeskRecord>({
    resource: docType,
    id: id ?? '',
    queryOptions: { enabled: editing },
  });
  if (editing && query.isLoading) return <Loading label={`Loading ${schema.label}…`} />;
  if (editing && query.isError) {
    const { code, message } = describeError(query.error);
    return (
      <ErrorState
        title={`Could not load this ${schema.label}.`}
        message={message}
        code={code}
        onRetry={() => query.refetch()}
      />
    );
  }
  return (
    <FormBody
      key={id ?? 'new'}
      docType={docType}
      schema={schema}
      id={id}
      initial={record ?? {}}
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
  const fields = formFields(schema.fields);
  const [values, setValues] = useState<Record<string, unknown>>(() => ({ ...initial }));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<{ code?: string; message: string } | undefined>();
  const { mutateAsync: create, mutation: createState } = useCreate<DeskRecord>();
  const { mutateAsync: update, mutation: updateState } = useUpdate<DeskRecord>();
  const saving = createState.isPending || updateState.isPending;
  const idPrefix = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);

  useEffect(() => headingRef.current?.focus(), []);

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
    const payload = toPayload(fields, values);
    try {
      const saved = id
        ? await update({ resource: docType, id, values: payload, meta: { schema } })
        : await create({ resource: docType, values: payload, meta: { schema } });
      onSaved(saved.data);
    } catch (error) {
      const fromServer = serverFieldErrors(error);
      setErrors(fromServer);
      setFailure(describeError(error));
      focusFirstInvalid(fromServer);
    }
  };

  const title = id ? `${schema.label}: ${String(initial[schema.titleField] ?? id)}` : `New ${schema.label}`;
  return (
    <form
      ref={formRef}
      className="desk-form"
      noValidate
      onSubmit={onSubmit}
      aria-labelledby={`${idPrefix}-title`}
    >
      <h2 id={`${idPrefix}-title`} ref={headingRef} tabIndex={-1} className="desk-form__title">
        {title}
      </h2>
      {failure ? (
        <div className="desk-banner desk-banner--error" role="alert">
          {failure.message}
          {failure.code ? <code className="desk-banner__code">{failure.code}</code> : null}
        </div>
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
