/** Dashboard card: how many items exist and the five with the lowest quantity. */
import { useList, type WidgetProps } from '../../../../src/remote';

const PLURAL = new Intl.PluralRules('en');

/** Lists the lowest-stock items through the Desk's Refine data provider. */
export function StockSummary({ can }: WidgetProps): React.JSX.Element {
  const { query, result } = useList<{ name?: string; item_name?: string; quantity?: number }>({
    resource: 'stock.Item',
    pagination: { currentPage: 1, pageSize: 5 },
    sorters: [{ field: 'quantity', order: 'asc' }],
  });
  if (query.isLoading) return <p role="status">Loading stock…</p>;
  if (query.isError) {
    return (
      <p role="alert">
        Could not load stock.{' '}
        <button type="button" className="desk-button desk-button--link" onClick={() => query.refetch()}>
          Retry
        </button>
      </p>
    );
  }
  if (result.data.length === 0)
    return (
      <p>
        No items yet
        {can('create', 'stock.Item') ? (
          <>
            {' · '}
            <a href="#/app/stock.Item/new">Add an item</a>
          </>
        ) : null}
      </p>
    );
  const total = result.total ?? result.data.length;
  return (
    <>
      <p className="desk-widget__figure">
        <span className="desk-widget__number">{total}</span>{' '}
        {PLURAL.select(total) === 'one' ? 'item' : 'items'}
      </p>
      <ul className="desk-widget__list" aria-label="Lowest stock">
        {result.data.map((item) => (
          <li key={item.name}>
            <a href={`#/app/stock.Item/${encodeURIComponent(String(item.name))}`}>
              {item.item_name ?? item.name}
            </a>
            <span className="stock-qty">{item.quantity ?? 0}</span>
          </li>
        ))}
      </ul>
    </>
  );
}

export default StockSummary;
