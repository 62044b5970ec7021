/**
 * The list's filter builder: "Filter" opens a small panel that adds one condition (a field, an operator the
 * field's type offers, a value), and every condition shows as a chip with its own remove button. The list
 * matches all of them (AND).
 */
import { lazy, Suspense, useId, useRef, useState } from 'react';
import type { ListCondition } from '../../../contract/remote';
import type { DeskField } from '../../fields';
import { formatCondition } from '../../routing/route';
import { conditionText } from './conditions';

// The panel loads when it is first opened (docs/performance.md#the-budget).
const ConditionPanel = lazy(() =>
  import(/* webpackChunkName: "route-list-tools" */ './ConditionPanel').then((m) => ({
    default: m.ConditionPanel,
  })),
);

/** Props of {@link FilterBuilder}. */
export interface FilterBuilderProps {
  /** The fields a condition may be on. */
  fields: readonly DeskField[];
  /** The list's conditions (valid ones only). */
  conditions: readonly ListCondition[];
  onChange(conditions: ListCondition[]): void;
  /** The title of a linked record, for a Link condition's chip. */
  linkTitle?(field: DeskField, id: string): string | undefined;
}

/** The "Filter" button, its panel, and the chips of the conditions. */
export function FilterBuilder({
  fields,
  conditions,
  onChange,
  linkTitle,
}: FilterBuilderProps): React.JSX.Element {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  // Closing the panel hands focus back to its button, where the user opened it.
  const toggleRef = useRef<HTMLButtonElement>(null);
  const close = () => {
    setOpen(false);
    toggleRef.current?.focus();
  };
  const chipText = (c: ListCondition) => {
    const field = fields.find((f) => f.name === c.field)!;
    return conditionText(c, field, (id) => linkTitle?.(field, id));
  };
  return (
    <div className="desk-filter-builder">
      <button
        ref={toggleRef}
        type="button"
        className="desk-button desk-button--small"
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        onClick={() => setOpen(!open)}
      >
        Filter{conditions.length > 0 ? ` (${conditions.length})` : ''}
      </button>
      {open ? (
        <Suspense fallback={null}>
          <ConditionPanel
            id={panelId}
            fields={fields}
            onAdd={(condition) => {
              onChange([...conditions, condition]);
              close();
            }}
            onCancel={close}
          />
        </Suspense>
      ) : null}
      {conditions.length > 0 ? (
        <ul className="desk-chips" aria-label="Filters">
          {conditions.map((c, i) => (
            // The URL form names a condition; the list's conditions hold no two equal ones.
            <li key={formatCondition(c)} className="desk-chip">
              <span>{chipText(c)}</span>
              <button
                type="button"
                className="desk-chip__remove"
                aria-label={`Remove filter: ${chipText(c)}`}
                onClick={() => onChange(conditions.filter((_, j) => j !== i))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
