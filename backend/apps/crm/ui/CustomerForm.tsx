/**
 * crm's own Customer form, replacing the Desk's generic form for `crm.Customer`. It groups the identity and
 * the contact details, and saves through the Desk's Refine data provider with `meta: { schema }`, so the
 * `pii` fields (email, phone) are encrypted in the browser before they leave it.
 */
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import {
  type DeskRecord,
  type FormViewProps,
  failureWords,
  PII_MASK,
  useCreate,
  useOne,
  useUpdate,
} from '../../../../src/remote';
// The DocType's own rule for `phone` (backend/apps/crm/doctypes.ts uses it): what passes here is stored there.
import { PHONE_FORMAT_MESSAGE, PHONE_PATTERN } from './customer-rules';

type Values = { customer_name: string; email: string; phone: string; status: string };
type Errors = Partial<Record<keyof Values, string>>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** The fields a reader without `read_pii` may receive masked. */
const PERSONAL = ['email', 'phone'] as const;

function validate(v: Values): Errors {
  const errors: Errors = {};
  if (!v.customer_name.trim()) errors.customer_name = 'Customer name is required.';
  // A masked value (a reader without read_pii) is shown read-only: never validated, never sent back.
  if (v.email.trim() && v.email !== PII_MASK && !EMAIL.test(v.email.trim()))
    errors.email = 'Enter an email address like name@example.com.';
  if (v.phone.trim() && v.phone !== PII_MASK && !PHONE_PATTERN.test(v.phone.trim()))
    errors.phone = PHONE_FORMAT_MESSAGE;
  return errors;
}

function fromRecord(record: DeskRecord | undefined, statuses: string[]): Values {
  return {
    customer_name: String(record?.customer_name ?? ''),
    email: String(record?.email ?? ''),
    phone: String(record?.phone ?? ''),
    status: String(record?.status ?? statuses[0] ?? ''),
  };
}

/** The crm Customer form (create when `id` is undefined). */
export function CustomerForm({
  docType,
  schema,
  id,
  onSaved,
  onCancel,
  guardLeave,
}: FormViewProps): React.JSX.Element {
  const { query, result } = useOne<DeskRecord>({
    resource: docType,
    id: id ?? '',
    queryOptions: { enabled: !!id },
  });
  if (id && query.isLoading) return <p role="status">Loading customer…</p>;
  if (id && query.isError) {
    return (
      <div className="desk-state desk-state--error" role="alert">
        <p className="desk-state__title">This customer could not be opened. Try again in a moment.</p>
        <button type="button" className="desk-button" onClick={() => query.refetch()}>
          Try again
        </button>
      </div>
    );
  }
  const statuses = schema.fields.find((f) => f.name === 'status')?.options ?? [];
  return (
    <CustomerFormBody
      key={id ?? 'new'}
      {...{ docType, schema, id, onSaved, onCancel, guardLeave }}
      initial={fromRecord(result, statuses)}
      statuses={statuses}
    />
  );
}

function CustomerFormBody({
  docType,
  schema,
  id,
  onSaved,
  onCancel,
  guardLeave,
  initial,
  statuses,
}: FormViewProps & { initial: Values; statuses: string[] }): React.JSX.Element {
  // Personal data the server masked for this reader is shown masked, read-only, and never sent back.
  const masked = new Set<keyof Values>(PERSONAL.filter((key) => initial[key] === PII_MASK));
  // What the values are compared with to know whether there are unsaved changes: as loaded, then as saved.
  const [baseline, setBaseline] = useState(initial);
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<Errors>({});
  const [failure, setFailure] = useState<string | undefined>();
  const { mutateAsync: create, mutation: creating } = useCreate<DeskRecord>();
  const { mutateAsync: update, mutation: updating } = useUpdate<DeskRecord>();
  const saving = creating.isPending || updating.isPending;
  const uid = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const dirty = (Object.keys(values) as (keyof Values)[]).some((key) => values[key] !== baseline[key]);

  const set = (key: keyof Values) => (value: string) => setValues((v) => ({ ...v, [key]: value }));

  /** Validates and saves; true when the customer was stored. */
  const save = async (): Promise<boolean> => {
    const found = validate(values);
    setErrors(found);
    setFailure(undefined);
    const first = Object.keys(found)[0];
    if (first) {
      formRef.current?.querySelector<HTMLElement>(`[name="${first}"]`)?.focus();
      return false;
    }
    const payload: Record<string, unknown> = { customer_name: values.customer_name.trim() };
    for (const key of ['email', 'phone', 'status'] as const) {
      if (masked.has(key)) continue;
      const value = values[key].trim();
      if (value) payload[key] = value;
      // A field emptied on a stored customer is cleared (the data API clears a field sent as null).
      else if (id && baseline[key].trim()) payload[key] = null;
    }
    try {
      const saved = id
        ? await update({ resource: docType, id, values: payload, meta: { schema } })
        : await create({ resource: docType, values: payload, meta: { schema } });
      setBaseline(values);
      // Clean at once: onSaved may change the route before this form renders again.
      latest.current = { ...latest.current, dirty: false };
      onSaved(saved.data);
      return true;
    } catch (error) {
      const e = error as { fields?: Array<{ field: string; message: string }> };
      setFailure(failureWords(error).message);
      setErrors(Object.fromEntries((e.fields ?? []).map((f) => [f.field, f.message])) as Errors);
      return false;
    }
  };

  // The Desk's leave guard and Save shortcut see the latest state through a ref (they outlive one render).
  const latest = useRef({ dirty, save });
  latest.current = { dirty, save };
  useEffect(
    () =>
      guardLeave?.({
        isDirty: () => latest.current.dirty,
        save: () => latest.current.save(),
      }),
    [guardLeave],
  );

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void save();
  };

  const field = (key: keyof Values, label: string, type: string, hint?: string) => {
    if (masked.has(key)) {
      return (
        <div className="desk-field desk-field--masked">
          <label htmlFor={`${uid}-${key}`}>{label}</label>
          <input
            id={`${uid}-${key}`}
            name={key}
            value={PII_MASK}
            readOnly
            aria-describedby={`${uid}-${key}-hint`}
          />
          <p id={`${uid}-${key}-hint`} className="desk-field__hint">
            Hidden: personal data you may not see.
          </p>
        </div>
      );
    }
    return (
      <div className={`desk-field${errors[key] ? ' desk-field--invalid' : ''}`}>
        <label htmlFor={`${uid}-${key}`}>{label}</label>
        <input
          id={`${uid}-${key}`}
          name={key}
          type={type}
          value={values[key]}
          disabled={saving}
          autoComplete={type === 'email' ? 'email' : type === 'tel' ? 'tel' : 'organization'}
          aria-invalid={errors[key] ? true : undefined}
          aria-describedby={
            [errors[key] ? `${uid}-${key}-error` : '', hint ? `${uid}-${key}-hint` : ''].join(' ').trim() ||
            undefined
          }
          onChange={(e) => set(key)(e.target.value)}
        />
        {hint ? (
          <p id={`${uid}-${key}-hint`} className="desk-field__hint">
            {hint}
          </p>
        ) : null}
        {errors[key] ? (
          <p id={`${uid}-${key}-error`} className="desk-field__error">
            {errors[key]}
          </p>
        ) : null}
      </div>
    );
  };

  return (
    <form
      ref={formRef}
      className="desk-form crm-customer-form"
      noValidate
      onSubmit={submit}
      aria-labelledby={`${uid}-title`}
    >
      <h2 id={`${uid}-title`} className="desk-form__title">
        Customer details
      </h2>
      <p className="desk-form__subtitle">Email and phone are personal data.</p>
      {failure ? (
        <div className="desk-banner desk-banner--error" role="alert">
          {failure}
        </div>
      ) : null}
      <fieldset className="desk-form__section">
        <legend>Customer</legend>
        {field('customer_name', 'Customer name *', 'text')}
        {statuses.length > 0 ? (
          <div className="desk-field">
            <label htmlFor={`${uid}-status`}>Status</label>
            <select
              id={`${uid}-status`}
              name="status"
              value={values.status}
              disabled={saving}
              onChange={(e) => set('status')(e.target.value)}
            >
              {statuses.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </div>
        ) : null}
      </fieldset>
      <fieldset className="desk-form__section">
        <legend>Contact details</legend>
        <p className="desk-form__note">Personal data: encrypted in your browser before it is sent.</p>
        {field('email', 'Email', 'email')}
        {field('phone', 'Phone', 'tel', 'Include the country code, e.g. +49 30 1234567.')}
      </fieldset>
      <div className="desk-actions">
        <button type="submit" className="desk-button desk-button--primary" disabled={saving}>
          {saving ? 'Saving…' : 'Save customer'}
        </button>
        <button type="button" className="desk-button" onClick={onCancel} disabled={saving}>
          Cancel
        </button>
        {dirty ? <span className="desk-form__dirty">Unsaved changes</span> : null}
      </div>
    </form>
  );
}

export default CustomerForm;
