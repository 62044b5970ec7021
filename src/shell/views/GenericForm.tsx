/**
 * The generic create/edit form of a DocType, built from its metadata. Saves through Refine (the shell's
 * `frameworkMDataProvider`) with `meta: { schema }`, so fields flagged `pii`/`encrypted` are encrypted in the
 * browser when the security mode asks for it (docs/sdk.md#payload-encryption-and-http).
 *
 * Nothing is lost in silence: a form with changes asks before it is left (routing/leave-guard.ts), Ctrl+S
 * (⌘S) saves, a Link whose text names no record blocks Save with an inline error, and an update carries the
 * `modified` it was loaded with, so a record changed meanwhile answers 409 `conflict` and the form shows both
 * versions to choose from (docs/http-api.md#conflicts). A user who may not save sees the record read-only.
 */
import { type FormEvent, lazy, Suspense, useEffect, useId, useRef, useState } from 'react';
import type { DeskRecord, FormViewProps } from '../../contract/remote';
import { isFlagged, PII_MASK } from '../../protocol';
import { useCreateRecord, useRecord, useUpdateRecord } from '../data/records';
import { type DeskField, deskFields, initialValues } from '../fields';
import { changedFields, unmatchedLinkMessage } from '../form-rules';
import { usePermissions } from '../hooks/use-permissions';
import { usePlatform } from '../hooks/use-platform';
import { guardForm } from '../routing/guard-form';
import { type FieldErrors, toPayload, validateField, validateRecord } from '../validation';
import { type FailureWords, failureWords } from '../words/failure';
import { FieldInput } from './field-input';
import { DeveloperDetails, ErrorState, Loading } from './states';

// Shown only when a save meets a newer version: its code loads then (docs/performance.md#the-budget).
const ConflictPanel = lazy(() =>
  import(/* webpackChunkName: "route-form-conflict" */ './ConflictPanel').then((m) => ({
    default: m.ConflictPanel,
  })),
);

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

/** Props of {@link GenericForm}: the remote contract's form props, and whether the user may save. */
export type GenericFormProps = FormViewProps & {
  /** Show the record without inputs to change or a Save (a user without `write`, or `create` when new). */
  readOnly?: boolean;
};

/** The generic form view (see {@link FormViewProps}). */
export function GenericForm({
  docType,
  schema,
  id,
  onSaved,
  onCancel,
  readOnly,
}: GenericFormProps): React.JSX.Element {
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
      readOnly={readOnly}
    />
  );
}

/** The error code of a save refused because the record changed since it was loaded. */
const CONFLICT = 'conflict';

function FormBody({
  docType,
  schema,
  id,
  initial,
  onSaved,
  onCancel,
  readOnly,
}: GenericFormProps & { initial: DeskRecord }): React.JSX.Element {
  const platform = usePlatform();
  const permissions = usePermissions();
  // Personal data the server masked for this user is shown as masked, read-only, and never sent back
  // (docs/permissions.md#personal-data).
  const all = formFields(deskFields(schema));
  // What the values are compared with to know whether there are unsaved changes: the record as loaded,
  // then as last saved (or as saved by someone else, when the user takes that version).
  const [baseline, setBaseline] = useState<Record<string, unknown>>(() => ({ ...initial }));
  // Masked as the record was loaded, read again, or taken from someone else's save: a field empty when
  // loaded may hold a value, masked, in the version taken.
  const masked = (f: DeskField) => initial[f.name] === PII_MASK || baseline[f.name] === PII_MASK;
  const fields = all.filter((f) => !masked(f));
  const [values, setValues] = useState<Record<string, unknown>>(() => ({ ...initial }));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<FailureWords | undefined>();
  const [theirs, setTheirs] = useState<DeskRecord | undefined>();
  // Link text that names no record, per field: a ref too, since a blur reads it in the same event.
  const unmatched = useRef<Record<string, string>>({});
  const { mutateAsync: create, mutation: createState } = useCreateRecord<DeskRecord>();
  const { mutateAsync: update, mutation: updateState } = useUpdateRecord<DeskRecord>();
  const saving = createState.isPending || updateState.isPending;
  const idPrefix = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const dirty = !readOnly && changedFields(fields, baseline, values).length > 0;

  const focusFirstInvalid = (errs: FieldErrors) => {
    const first = fields.find((f) => errs[f.name]);
    if (first) formRef.current?.querySelector<HTMLElement>(`[name="${CSS.escape(first.name)}"]`)?.focus();
  };

  const linkErrors = (): FieldErrors =>
    Object.fromEntries(
      Object.entries(unmatched.current).map(([name, text]) => {
        const field = fields.find((f) => f.name === name);
        return [name, unmatchedLinkMessage(field ?? { label: name }, text)];
      }),
    );

  /**
   * The fields a save sends. An update by a user who may not read personal data sends a flagged field only
   * when they changed it: the server records any flagged value such a writer sends as a change, equal or not
   * (docs/permissions.md#history-and-comments), so an untouched empty one would read "changed Phone".
   */
  const sentFields = (): DeskField[] => {
    if (!id || permissions.can(docType, 'read_pii')) return fields;
    const changed = changedFields(fields, baseline, values);
    return fields.filter((f) => !isFlagged(f) || changed.includes(f.name));
  };

  /** Validates and saves; true when the record was stored. */
  const save = async (loadedModified = baseline.modified): Promise<boolean> => {
    setFailure(undefined);
    const found = { ...validateRecord(fields, values), ...linkErrors() };
    setErrors(found);
    if (Object.keys(found).length > 0) {
      focusFirstInvalid(found);
      return false;
    }
    const payload = toPayload(sentFields(), values, { clearBlank: Boolean(id) });
    try {
      const saved = id
        ? await update({
            resource: docType,
            id,
            // The version this form shows: the server refuses it if a newer one was stored meanwhile.
            values: typeof loadedModified === 'string' ? { ...payload, modified: loadedModified } : payload,
            meta: { schema },
          })
        : await create({ resource: docType, values: payload, meta: { schema } });
      setBaseline({ ...values, modified: saved.data?.modified ?? loadedModified });
      setTheirs(undefined);
      // Clean at once: onSaved may change the route before this form renders again.
      latest.current = { ...latest.current, dirty: false };
      onSaved(saved.data);
      return true;
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code === CONFLICT && id) {
        // Both versions side by side: the user chooses, nothing is overwritten unseen.
        const current = await platform.dataProvider
          .getOne({ resource: docType, id, meta: {} })
          .then(({ data }) => data as DeskRecord)
          .catch(() => undefined);
        if (current) {
          setTheirs(current);
          return false;
        }
      }
      const fromServer = serverFieldErrors(error);
      setErrors(fromServer);
      setFailure(failureWords(error));
      focusFirstInvalid(fromServer);
      return false;
    }
  };

  // The leave guard and the Save shortcut see the latest state through a ref (they outlive one render).
  const latest = useRef({ dirty, save });
  latest.current = { dirty, save };
  useEffect(() => {
    if (readOnly) return;
    return guardForm({
      isDirty: () => latest.current.dirty,
      save: () => latest.current.save(),
    });
  }, [readOnly]);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void save();
  };

  // The page's heading names the record; the form itself is labelled for assistive technology only.
  const title = id ? `${schema.label}: ${String(initial[schema.titleField] ?? id)}` : `New ${schema.label}`;
  return (
    <form
      ref={formRef}
      className={`desk-form${readOnly ? ' desk-form--read-only' : ''}`}
      noValidate
      onSubmit={onSubmit}
      aria-label={title}
    >
      {readOnly ? (
        <p className="desk-form__note">You may view this {schema.label.toLowerCase()} but not change it.</p>
      ) : null}
      {failure ? (
        <div className="desk-banner desk-banner--error" role="alert">
          {failure.message}
          <DeveloperDetails words={failure} />
        </div>
      ) : null}
      {theirs ? (
        <Suspense fallback={null}>
          <ConflictPanel
            fields={fields}
            mine={values}
            theirs={theirs}
            busy={saving}
            onKeepMine={() => void save(theirs.modified)}
            onTakeTheirs={() => {
              setValues({ ...theirs });
              setBaseline({ ...theirs });
              setTheirs(undefined);
            }}
          />
        </Suspense>
      ) : null}
      <div className="desk-form__grid">
        {all.map((field) =>
          masked(field) ? (
            <MaskedField key={field.name} field={field} idPrefix={idPrefix} />
          ) : (
            <FieldInput
              key={field.name}
              field={field}
              idPrefix={idPrefix}
              value={values[field.name]}
              error={errors[field.name]}
              disabled={saving || readOnly}
              onChange={(value) => {
                setValues((v) => ({ ...v, [field.name]: value }));
                if (errors[field.name]) {
                  setErrors(({ [field.name]: _cleared, ...rest }) => rest);
                }
              }}
              onUnmatched={(text) => {
                const { [field.name]: _old, ...rest } = unmatched.current;
                unmatched.current = text === undefined ? rest : { ...rest, [field.name]: text };
              }}
              onBlur={() => {
                const text = unmatched.current[field.name];
                const message =
                  text !== undefined
                    ? unmatchedLinkMessage(field, text)
                    : validateField(field, values[field.name]);
                setErrors((e) => {
                  const { [field.name]: _old, ...rest } = e;
                  return message ? { ...rest, [field.name]: message } : rest;
                });
              }}
            />
          ),
        )}
      </div>
      <div className="desk-actions">
        {readOnly ? (
          <button type="button" className="desk-button" onClick={onCancel}>
            Back to the list
          </button>
        ) : (
          <>
            <button
              type="submit"
              className="desk-button desk-button--primary"
              disabled={saving}
              aria-keyshortcuts="Control+S Meta+S"
            >
              {saving ? 'Saving…' : 'Save'}
            </button>
            <button type="button" className="desk-button" onClick={onCancel} disabled={saving}>
              Cancel
            </button>
            {dirty ? <span className="desk-form__dirty">Unsaved changes</span> : null}
          </>
        )}
      </div>
    </form>
  );
}

/** A field the server masked for this user: shown as masked, never editable, never sent back. */
function MaskedField({ field, idPrefix }: { field: DeskField; idPrefix: string }): React.JSX.Element {
  const id = `${idPrefix}-${field.name}`;
  return (
    <div className="desk-field desk-field--masked">
      <label htmlFor={id}>{field.label}</label>
      <input id={id} name={field.name} value={PII_MASK} readOnly aria-describedby={`${id}-hint`} />
      <p id={`${id}-hint`} className="desk-field__hint">
        Hidden: personal data you may not see.
      </p>
    </div>
  );
}
