/**
 * The command palette (Ctrl+K / ⌘K, or the search box in the header): jump to a DocType's list, create a
 * record, or open a record found by title in any service. Commands are matched in the browser; records come
 * from one `GET /api/search` per pause in typing. A service that did not answer is mentioned, not fatal.
 */
import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { hasFlaggedFields } from '../../protocol';
import { useCatalog } from '../hooks/use-catalog';
import { useDebounced } from '../hooks/use-debounced';
import { usePermissions } from '../hooks/use-permissions';
import { usePlatform } from '../hooks/use-platform';
import { navEntries } from '../platform/navigation';
import { allowsCommand } from '../platform/screen-rights';
import type { DeskRoute } from '../routing/route';
import { SEARCH_DEBOUNCE_MS, type SearchAnswer, searchRecords } from '../search/search-client';
import { adoptStyles } from '../styles/adopt-styles';
import paletteCss from '../styles/palette.css';
import { useDeveloperDetails } from '../words/developer-details';
import { failureWords } from '../words/failure';
import type { PaletteStart } from './PaletteOpening';

adoptStyles('palette', paletteCss);

/** One choice in the palette. */
interface PaletteOption {
  id: string;
  group: string;
  label: string;
  hint?: string;
  route: DeskRoute;
}

/** Props of {@link CommandPalette}. */
export interface CommandPaletteProps {
  /**
   * The text typed while the palette's code loaded and the element focused before it opened, which gets
   * focus back when the palette closes (PaletteOpening).
   */
  start?: PaletteStart;
  onClose(): void;
  navigate(to: DeskRoute): void;
}

type SearchState =
  | { status: 'idle' }
  | { status: 'loading'; q: string }
  | { status: 'done'; answer: SearchAnswer }
  | { status: 'error'; q: string; error: unknown };

/** The palette; render it only while open. */
export function CommandPalette({ start, onClose, navigate }: CommandPaletteProps): React.JSX.Element {
  const platform = usePlatform();
  const catalog = useCatalog();
  const developer = useDeveloperDetails();
  const { can } = usePermissions();
  const [text, setText] = useState('');
  const [active, setActive] = useState(0);
  const [search, setSearch] = useState<SearchState>({ status: 'idle' });
  const inputRef = useRef<HTMLInputElement>(null);
  const listId = useId();
  const q = useDebounced(text.trim(), SEARCH_DEBOUNCE_MS);

  // At commit, as the box shown while the palette loaded goes: everything typed into it until now is taken
  // over (React may render this palette a while before it shows it), and typing carries on after it.
  useLayoutEffect(() => {
    const previous = start?.returnTo ?? (document.activeElement as HTMLElement | null);
    const input = inputRef.current;
    if (input && start?.text) {
      input.value = start.text;
      setText(start.text);
    }
    input?.focus();
    input?.setSelectionRange(input.value.length, input.value.length);
    return () => previous?.focus?.();
  }, [start]);

  useEffect(() => {
    if (!q) {
      setSearch({ status: 'idle' });
      return;
    }
    const controller = new AbortController();
    setSearch({ status: 'loading', q });
    searchRecords(platform.config.gatewayUrl, q, controller.signal).then(
      (answer) => !controller.signal.aborted && setSearch({ status: 'done', answer }),
      (error: unknown) => !controller.signal.aborted && setSearch({ status: 'error', q, error }),
    );
    return () => controller.abort();
  }, [platform, q]);

  const options = useMemo(() => {
    const needle = text.trim().toLowerCase();
    const go: PaletteOption[] = [];
    const create: PaletteOption[] = [];
    for (const state of Object.values(catalog.metadata)) {
      if (state.status !== 'ready') continue;
      for (const entry of navEntries(state.value)) {
        const matches = (s: string) => !needle || s.toLowerCase().includes(needle);
        const mayGo = allowsCommand(can, { kind: 'go', docType: entry.docType });
        const mayCreate = allowsCommand(can, { kind: 'new', docType: entry.docType });
        if (mayGo && (matches(entry.label) || matches(entry.singular))) {
          go.push({
            id: `go:${entry.docType}`,
            group: 'Go to',
            label: entry.label,
            hint: developer ? entry.docType : undefined,
            route: { kind: 'list', docType: entry.docType },
          });
        }
        if (mayCreate && (matches(`New ${entry.singular}`) || matches(entry.singular))) {
          create.push({
            id: `new:${entry.docType}`,
            group: 'Create',
            label: `New ${entry.singular}`,
            route: { kind: 'new', docType: entry.docType },
          });
        }
      }
    }
    const records: PaletteOption[] = [];
    if (search.status === 'done' && search.answer.q === q) {
      for (const group of search.answer.groups) {
        for (const hit of group.hits) {
          records.push({
            id: `rec:${group.docType}:${hit.name}`,
            group: group.label,
            label: hit.title,
            hint: hit.title === hit.name ? undefined : hit.name,
            route: { kind: 'edit', docType: group.docType, id: hit.name },
          });
        }
      }
    }
    return [...records, ...go.slice(0, needle ? 6 : 20), ...create.slice(0, needle ? 3 : 0)];
  }, [catalog, text, search, q, developer, can]);

  // Whether some DocType this user may read holds personal data they may not see: the search cannot find
  // a record by it for them (docs/desk.md#screens-that-follow-your-rights), which "No records match" says.
  const hidesPersonalData = useMemo(
    () =>
      Object.values(catalog.metadata).some(
        (state) =>
          state.status === 'ready' &&
          state.value.doctypes.some(
            (d) => hasFlaggedFields(d) && can(d.name, 'read') && !can(d.name, 'read_pii'),
          ),
      ),
    [catalog, can],
  );

  const safeActive = Math.min(active, Math.max(0, options.length - 1));
  const choose = (option: PaletteOption | undefined) => {
    if (!option) return;
    onClose();
    navigate(option.route);
  };

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      onClose();
    } else if (event.key === 'ArrowDown') {
      event.preventDefault();
      setActive((i) => (options.length === 0 ? 0 : (Math.min(i, options.length - 1) + 1) % options.length));
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      setActive((i) =>
        options.length === 0 ? 0 : (Math.min(i, options.length - 1) - 1 + options.length) % options.length,
      );
    } else if (event.key === 'Enter') {
      event.preventDefault();
      choose(options[safeActive]);
    } else if (event.key === 'Tab') {
      event.preventDefault(); // focus stays in the palette while it is open
    }
  };

  const optionId = (i: number) => `${listId}-option-${i}`;
  let lastGroup = '';
  const incomplete = search.status === 'done' ? search.answer.incomplete : [];

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a click beside the palette closes it; Escape does the same from the keyboard
    <div className="desk-dialog-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="desk-palette" role="dialog" aria-modal="true" aria-label="Search">
        <input
          ref={inputRef}
          className="desk-palette__input"
          role="combobox"
          aria-expanded="true"
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={options.length > 0 ? optionId(safeActive) : undefined}
          aria-label="Search records, or go to a list"
          placeholder="Search records, or go to a list…"
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setActive(0);
          }}
          onKeyDown={onKeyDown}
        />
        <div id={listId} role="listbox" aria-label="Results" className="desk-palette__list">
          {options.map((option, i) => {
            const heading = option.group !== lastGroup ? option.group : undefined;
            lastGroup = option.group;
            return (
              // biome-ignore lint/a11y/useFocusableInteractive: options are reached through aria-activedescendant; focus stays in the input
              // biome-ignore lint/a11y/useKeyWithClickEvents: the input handles the keyboard (arrows, Enter)
              <div
                key={option.id}
                id={optionId(i)}
                role="option"
                aria-selected={i === safeActive}
                className={`desk-palette__option${i === safeActive ? ' is-active' : ''}`}
                onMouseMove={() => setActive(i)}
                onClick={() => choose(option)}
              >
                {heading ? <span className="desk-palette__group">{heading}</span> : null}
                <span className="desk-palette__label">{option.label}</span>
                {option.hint ? <span className="desk-palette__hint">{option.hint}</span> : null}
              </div>
            );
          })}
        </div>
        <p className="desk-palette__status" role="status" aria-live="polite">
          {search.status === 'loading'
            ? 'Searching…'
            : search.status === 'error'
              ? `Records could not be searched. ${failureWords(search.error).message}`
              : search.status === 'done' && search.answer.groups.length === 0 && q
                ? hidesPersonalData
                  ? 'No records match. Personal data you may not see, such as an email, finds nothing.'
                  : 'No records match.'
                : ''}
          {incomplete.length > 0
            ? ` Some apps did not answer in time, so results may be incomplete.${developer ? ` (${incomplete.map((g) => `${g.service}: ${g.reason}`).join(', ')})` : ''}`
            : ''}
        </p>
      </div>
    </div>
  );
}
