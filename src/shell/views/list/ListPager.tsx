/**
 * The generic list's pager: which rows of how many are shown, the page size, and Previous / Next.
 */
import type { ListState } from '../../routing/route';
import { countOf } from '../../words/plural';
import { PAGE_SIZES } from './list-model';

/** Props of {@link ListPager}. */
export interface ListPagerProps {
  /** The DocType's label (`Customer`), for "1–20 of 45 customers". */
  label: string;
  /** How many records match the list's filters. */
  total: number;
  /** The server counted only up to `total` and there are more: "1–20 of 1,000+ items". */
  totalIsLowerBound?: boolean;
  state: ListState;
  setState: (state: ListState) => void;
}

/** The number of pages `total` records fill at `pageSize` (at least one). */
export function pageCount(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / pageSize));
}

/** The pagination bar of a list. */
export function ListPager({
  label,
  total,
  totalIsLowerBound,
  state,
  setState,
}: ListPagerProps): React.JSX.Element {
  const { page, pageSize } = state;
  // Past a lower bound every page is full (the last one carries an exact total), and Next stays open.
  const pages = totalIsLowerBound ? Math.max(page, pageCount(total, pageSize)) : pageCount(total, pageSize);
  const counted = countOf(total, label);
  const of = totalIsLowerBound ? counted.replace(/^(\S+)/, '$1+') : counted;
  const last = totalIsLowerBound ? page * pageSize : Math.min(page * pageSize, total);
  return (
    <nav className="desk-pager" aria-label="Pagination">
      <span className="desk-pager__info" aria-live="polite">
        {total === 0 ? countOf(0, label) : `${(page - 1) * pageSize + 1}–${last} of ${of}`}
      </span>
      <label className="desk-pager__size">
        Per page{' '}
        <select
          value={pageSize}
          onChange={(e) => setState({ ...state, page: 1, pageSize: Number(e.target.value) })}
        >
          {PAGE_SIZES.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        className="desk-button"
        disabled={page <= 1}
        onClick={() => setState({ ...state, page: page - 1 })}
      >
        Previous
      </button>
      <span>
        Page {page} of {pages}
        {totalIsLowerBound ? '+' : ''}
      </span>
      <button
        type="button"
        className="desk-button"
        disabled={page >= pages && !totalIsLowerBound}
        onClick={() => setState({ ...state, page: page + 1 })}
      >
        Next
      </button>
    </nav>
  );
}
