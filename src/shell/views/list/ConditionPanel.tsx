/**
 * The filter builder's panel of one new condition: a field, an operator the field's type offers, and a value
 * input by type (a choice, a record picker, a number, a date or text). Loaded when "Filter" is first opened,
 * so the list's first screen does not carry it (docs/performance.md#the-budget).
 */
import { useLayoutEffect, useRef, useState } from 'react';
import type { ListCondition, ListConditionOp } from '../../../contract/remote';
import { type DeskField, linkTarget } from '../../fields';
import { adoptStyles } from '../../styles/adopt-styles';
import listPanelsCss from '../../styles/list-panels.css';
import { LinkInput } from '../LinkInput';
import { needsNoValue, operatorsFor } from './conditions';

adoptStyles('list-panels', listPanelsCss);

const INPUT_TYPES: Partial<Record<DeskField['type'], string>> = {
  int: 'number',
  float: 'number',
  currency: 'number',
  date: 'date',
  datetime: 'datetime-local',
};

/** Props of {@link ConditionPanel}. */
export interface ConditionPanelProps {
  id: string;
  fields: readonly DeskField[];
  onAdd(condition: ListCondition): void;
  onCancel(): void;
}
/** The panel of one new condition. */
export function ConditionPanel({ id, fields, onAdd, onCancel }: ConditionPanelProps): React.JSX.Element {
  const [fieldName, setFieldName] = useState(fields[0]?.name ?? '');
  const field = fields.find((f) => f.name === fieldName);
  const operators = field ? operatorsFor(field) : [];
  const [op, setOp] = useState<ListConditionOp>(operators[0]?.op ?? 'eq');
  const [value, setValue] = useState<string | string[]>('');
  // Focus moves into the panel as it opens, so the keyboard goes on where the eyes do (and Escape works).
  const firstRef = useRef<HTMLSelectElement>(null);
  useLayoutEffect(() => firstRef.current?.focus(), []);
  const chooseField = (name: string) => {
    setFieldName(name);
    const next = fields.find((f) => f.name === name);
    setOp(next ? operatorsFor(next)[0]!.op : 'eq');
    setValue(next?.type === 'boolean' ? 'true' : '');
  };
  const chooseOp = (next: ListConditionOp) => {
    setOp(next);
    if ((next === 'in') !== Array.isArray(value)) setValue(next === 'in' ? [] : '');
  };
  const complete = needsNoValue(op) || (Array.isArray(value) ? value.length > 0 : value.trim() !== '');
  const add = () => {
    if (!field || !complete) return;
    onAdd({
      field: field.name,
      op,
      value: needsNoValue(op) ? '' : Array.isArray(value) ? value : value.trim(),
    });
  };

  return (
    <form
      id={id}
      className="desk-filter-panel"
      aria-label="New filter"
      onSubmit={(e) => {
        e.preventDefault();
        add();
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onCancel();
      }}
    >
      <label className="desk-filter-panel__item">
        Field
        <select ref={firstRef} value={fieldName} onChange={(e) => chooseField(e.target.value)}>
          {fields.map((f) => (
            <option key={f.name} value={f.name}>
              {f.label}
            </option>
          ))}
        </select>
      </label>
      <label className="desk-filter-panel__item">
        Operator
        <select value={op} onChange={(e) => chooseOp(e.target.value as ListConditionOp)}>
          {operators.map((o) => (
            <option key={o.op} value={o.op}>
              {o.label}
            </option>
          ))}
        </select>
      </label>
      {field && !needsNoValue(op) ? (
        <ConditionValue id={`${id}-value`} field={field} op={op} value={value} onChange={setValue} />
      ) : null}
      <div className="desk-actions">
        <button type="submit" className="desk-button desk-button--primary" disabled={!complete}>
          Add filter
        </button>
        <button type="button" className="desk-button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

interface ConditionValueProps {
  id: string;
  field: DeskField;
  op: ListConditionOp;
  value: string | string[];
  onChange(value: string | string[]): void;
}

/** The value of a condition, by the field's type: a choice, a record picker, a number, a date or text. */
function ConditionValue({ id, field, op, value, onChange }: ConditionValueProps): React.JSX.Element {
  const target = linkTarget(field);
  const text = Array.isArray(value) ? '' : value;
  if (op === 'in') {
    const chosen = Array.isArray(value) ? value : [];
    return (
      <fieldset className="desk-filter-panel__item desk-filter-panel__options">
        <legend>Values</legend>
        {(field.options ?? []).map((o) => (
          <label key={o}>
            <input
              type="checkbox"
              checked={chosen.includes(o)}
              onChange={(e) => onChange(e.target.checked ? [...chosen, o] : chosen.filter((v) => v !== o))}
            />
            {o}
          </label>
        ))}
      </fieldset>
    );
  }
  let control: React.JSX.Element;
  if (target && !field.pii && !field.encrypted) {
    control = (
      <LinkInput id={id} name={field.name} target={target} value={text} onChange={(v) => onChange(v ?? '')} />
    );
  } else if (field.type === 'boolean') {
    control = (
      <select id={id} value={text || 'true'} onChange={(e) => onChange(e.target.value)}>
        <option value="true">Yes</option>
        <option value="false">No</option>
      </select>
    );
  } else if (field.type === 'select' && field.options) {
    control = (
      <select id={id} value={text} onChange={(e) => onChange(e.target.value)}>
        <option value="">Choose…</option>
        {field.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    );
  } else {
    control = (
      <input
        id={id}
        type={INPUT_TYPES[field.type] ?? 'text'}
        value={text}
        autoComplete="off"
        onChange={(e) => onChange(e.target.value)}
      />
    );
  }
  return (
    <div className="desk-filter-panel__item">
      <label htmlFor={id}>Value</label>
      {control}
    </div>
  );
}
