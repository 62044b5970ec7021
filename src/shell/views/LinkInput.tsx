/**
 * The input of a Link field: a searchable combobox (ARIA 1.2 combobox with a listbox popup) over the records
 * of the target DocType, whichever service owns it. Typing searches the target's list by title after a
 * pause; ArrowUp/ArrowDown move through the options, Enter picks one, Escape closes the list. The chosen
 * record's id is the field's value; its title is what the input shows. Text left in the input that names
 * no record is kept in sight and reported (`onUnmatched`), so the form can refuse to save an empty link
 * the user did not mean.
 */
import { useEffect, useId, useRef, useState } from 'react';
import { isFlagged } from '../../protocol';
import { useDebounced } from '../hooks/use-debounced';
import { useDocTypeSchema } from '../hooks/use-doc-type-schema';
import { usePlatform } from '../hooks/use-platform';
import { formatRoute } from '../routing/route';
import { adoptStyles } from '../styles/adopt-styles';
import linkPickerCss from '../styles/link-picker.css';

adoptStyles('link-picker', linkPickerCss);

/** Records offered at once. */
const OPTION_LIMIT = 8;

interface Option {
  name: string;
  title: string;
}

/** Props of {@link LinkInput}. */
export interface LinkInputProps {
  /** The input's DOM id (the field label points at it). */
  id: string;
  name: string;
  /** Full name of the target DocType. */
  target: string;
  value: unknown;
  disabled?: boolean;
  describedBy?: string;
  invalid?: boolean;
  required?: boolean;
  onChange(value: string | undefined): void;
  onBlur?(): void;
  /** Told of text the user left in the input that matches no record (undefined once it is resolved). */
  onUnmatched?(text: string | undefined): void;
}

/** The combobox. */
export function LinkInput({
  id,
  name,
  target,
  value,
  disabled,
  describedBy,
  invalid,
  required,
  onChange,
  onBlur,
  onUnmatched,
}: LinkInputProps): React.JSX.Element {
  const platform = usePlatform();
  const schema = useDocTypeSchema(target);
  const titleField = schema?.titleField ?? 'name';
  // A title encrypted at rest is found by its exact value only (its blind index), and cannot be sorted on.
  const titleSealed = Boolean(schema?.fields.some((f) => f.name === titleField && isFlagged(f)));
  const selected = typeof value === 'string' && value ? value : undefined;
  const [text, setText] = useState('');
  const [selectedTitle, setSelectedTitle] = useState('');
  const [typing, setTyping] = useState(false);
  const [open, setOpen] = useState(false);
  // The options with the search text they answer: a list fetched for older text is never offered as if it
  // matched what the input shows now (typing "Nobody" must not offer the records of an empty search).
  const [fetched, setFetched] = useState<{ search: string; options: Option[] }>({ search: '', options: [] });
  const [active, setActive] = useState(0);
  const [status, setStatus] = useState<'idle' | 'loading' | 'error'>('idle');
  const listId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  // The list closes a moment after a blur (see onBlur); focus or typing that comes back first keeps it open.
  const closing = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const show = () => {
    clearTimeout(closing.current);
    setOpen(true);
  };
  useEffect(() => () => clearTimeout(closing.current), []);
  const query = useDebounced(text.trim(), 250);
  const search = typing ? text.trim() : '';
  const options = fetched.search === search ? fetched.options : [];
  const settled = fetched.search === search && status === 'idle';

  // The title of the chosen record, shown while the user is not typing.
  useEffect(() => {
    if (!selected || !schema) return;
    let live = true;
    platform.dataProvider
      .getOne({ resource: target, id: selected, meta: {} })
      .then(({ data }) => {
        const title = (data as Record<string, unknown>)[titleField];
        if (live) setSelectedTitle(typeof title === 'string' && title ? title : selected);
      })
      .catch(() => live && setSelectedTitle(selected));
    return () => {
      live = false;
    };
  }, [platform, target, selected, schema, titleField]);

  useEffect(() => {
    if (!open || !schema) return;
    const controller = new AbortController();
    setStatus('loading');
    const searched = typing ? query : '';
    const operator = titleSealed ? ('eq' as const) : ('contains' as const);
    const filters = searched ? [{ field: titleField, operator, value: searched }] : [];
    platform.dataProvider
      .getList({
        resource: target,
        filters,
        pagination: { currentPage: 1, pageSize: OPTION_LIMIT, mode: 'server' },
        sorters: [{ field: titleSealed ? 'name' : titleField, order: 'asc' }],
        meta: { fields: ['name', titleField], signal: controller.signal },
      })
      .then(({ data }) => {
        if (controller.signal.aborted) return;
        setFetched({
          search: searched,
          options: data.map((row) => {
            const record = row as Record<string, unknown>;
            const title = record[titleField];
            return {
              name: String(record.name),
              title: typeof title === 'string' && title ? title : String(record.name),
            };
          }),
        });
        setActive(0);
        setStatus('idle');
      })
      .catch(() => !controller.signal.aborted && setStatus('error'));
    return () => controller.abort();
  }, [platform, target, open, query, typing, schema, titleField, titleSealed]);

  const pick = (option: Option) => {
    onUnmatched?.(undefined);
    onChange(option.name);
    setSelectedTitle(option.title);
    setText('');
    setTyping(false);
    setOpen(false);
  };

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      if (!open) setOpen(true);
      else setActive((i) => (options.length ? (i + 1) % options.length : 0));
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      setActive((i) => (options.length ? (i - 1 + options.length) % options.length : 0));
    } else if (event.key === 'Enter' && open) {
      event.preventDefault();
      const option = options[active];
      if (option) pick(option);
    } else if (event.key === 'Escape' && open) {
      event.preventDefault();
      setOpen(false);
    }
  };

  const optionId = (i: number) => `${listId}-${i}`;
  return (
    <div className="desk-link">
      <div className="desk-link__row">
        <input
          ref={inputRef}
          id={id}
          name={name}
          role="combobox"
          autoComplete="off"
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={listId}
          aria-activedescendant={open && options[active] ? optionId(active) : undefined}
          aria-describedby={describedBy}
          aria-invalid={invalid || undefined}
          aria-required={required || undefined}
          disabled={disabled}
          placeholder={schema ? `Search ${schema.label.toLowerCase()}s…` : 'Search…'}
          value={typing ? text : selected ? selectedTitle : ''}
          onChange={(e) => {
            setText(e.target.value);
            setTyping(true);
            show();
            if (!e.target.value) {
              onUnmatched?.(undefined);
              onChange(undefined);
              setSelectedTitle('');
            }
          }}
          onFocus={show}
          onClick={show}
          onKeyDown={onKeyDown}
          onBlur={() => {
            // A click on an option lands after the blur: close a moment later.
            closing.current = setTimeout(() => setOpen(false), 150);
            const typed = text.trim();
            // A record whose title is exactly the text names it, whichever search fetched it.
            const exact = typed
              ? fetched.options.find((o) => o.title.toLowerCase() === typed.toLowerCase())
              : undefined;
            if (exact) pick(exact);
            else if (typing && typed) {
              // Text that names no record stays in sight, and the form hears of it (it is not a value).
              onUnmatched?.(typed);
            } else {
              setTyping(false);
              setText('');
            }
            onBlur?.();
          }}
        />
        {selected ? (
          <a className="desk-link__open" href={formatRoute({ kind: 'edit', docType: target, id: selected })}>
            Open
          </a>
        ) : null}
      </div>
      {/* A listbox holds options only (ARIA 1.2): with none to show, the popup is a status message instead. */}
      <div
        id={listId}
        role="listbox"
        className="desk-link__list"
        hidden={!open || options.length === 0}
        aria-label={schema?.label ?? 'Records'}
      >
        {options.map((option, i) => (
          // biome-ignore lint/a11y/useFocusableInteractive: combobox options are reached through aria-activedescendant; focus stays in the input
          <div
            key={option.name}
            id={optionId(i)}
            role="option"
            aria-selected={i === active}
            className={`desk-link__option${i === active ? ' is-active' : ''}`}
            onMouseDown={(e) => {
              e.preventDefault();
              pick(option);
            }}
          >
            {option.title}
            {option.title !== option.name ? <span className="desk-link__hint">{option.name}</span> : null}
          </div>
        ))}
      </div>
      {open && (status === 'error' || (settled && options.length === 0)) ? (
        <div className="desk-link__list" role="status">
          <div className="desk-link__empty">
            {status === 'error'
              ? 'Records could not be loaded. Try again in a moment.'
              : 'No matching records.'}
          </div>
        </div>
      ) : null}
    </div>
  );
}
