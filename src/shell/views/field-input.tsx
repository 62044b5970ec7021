/** One labelled input of the generic form, chosen by the field's metadata type. */
import { isFlagged } from '../../protocol';
import { type DeskField, linkTarget } from '../fields';
import { LinkInput } from './LinkInput';

const INPUT_TYPES: Partial<Record<DeskField['type'], string>> = {
  email: 'email',
  phone: 'tel',
  int: 'number',
  float: 'number',
  currency: 'number',
  date: 'date',
  datetime: 'datetime-local',
};

/** Props of {@link FieldInput}. */
export interface FieldInputProps {
  field: DeskField;
  value: unknown;
  error?: string;
  /** DOM id prefix, unique per form. */
  idPrefix: string;
  disabled?: boolean;
  onChange(value: unknown): void;
  onBlur?(): void;
  /** For a Link field: text left in the input that matches no record (see LinkInput). */
  onUnmatched?(text: string | undefined): void;
}

/** A label, the input, and its error message wired with `aria-invalid` / `aria-describedby`. */
export function FieldInput({
  field,
  value,
  error,
  idPrefix,
  disabled,
  onChange,
  onBlur,
  onUnmatched,
}: FieldInputProps): React.JSX.Element {
  const id = `${idPrefix}-${field.name}`;
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const sensitive = isFlagged(field);
  const describedBy = [error ? errorId : '', sensitive ? hintId : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    name: field.name,
    disabled,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': describedBy,
    'aria-required': field.required || undefined,
    onBlur,
  };
  let control: React.JSX.Element;
  const target = linkTarget(field);
  if (target) {
    control = (
      <LinkInput
        id={id}
        name={field.name}
        target={target}
        value={value}
        disabled={disabled}
        describedBy={describedBy}
        invalid={Boolean(error)}
        required={field.required}
        onChange={onChange}
        onBlur={onBlur}
        onUnmatched={onUnmatched}
      />
    );
  } else if (field.type === 'boolean') {
    control = (
      <input
        {...common}
        type="checkbox"
        checked={Boolean(value)}
        onChange={(e) => onChange(e.target.checked)}
      />
    );
  } else if (field.type === 'select') {
    control = (
      <select
        {...common}
        value={value == null ? '' : String(value)}
        onChange={(e) => onChange(e.target.value)}
      >
        <option value="">{field.required ? 'Choose…' : '—'}</option>
        {(field.options ?? []).map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    );
  } else if (field.type === 'text') {
    control = (
      <textarea
        {...common}
        rows={5}
        value={value == null ? '' : String(value)}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  } else {
    control = (
      <input
        {...common}
        type={INPUT_TYPES[field.type] ?? 'text'}
        step={
          field.type === 'int' ? 1 : field.type === 'float' || field.type === 'currency' ? 'any' : undefined
        }
        autoComplete={field.type === 'email' ? 'email' : field.type === 'phone' ? 'tel' : 'off'}
        value={field.type === 'datetime' ? toLocalInput(value) : value == null ? '' : String(value)}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  }
  return (
    <div
      className={`desk-field${field.type === 'boolean' ? ' desk-field--check' : ''}${field.type === 'text' ? ' desk-field--wide' : ''}${error ? ' desk-field--invalid' : ''}`}
    >
      <label htmlFor={id}>
        {field.label}
        {field.required ? (
          <span className="desk-field__required" aria-hidden="true">
            {' '}
            *
          </span>
        ) : null}
      </label>
      {control}
      {sensitive ? (
        <p id={hintId} className="desk-field__hint">
          Personal data.
        </p>
      ) : null}
      {error ? (
        <p id={errorId} className="desk-field__error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** An ISO date-time as a `datetime-local` input shows it (local time, minutes). */
export function toLocalInput(value: unknown): string {
  if (typeof value !== 'string' || !value) return '';
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value)) return value;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
