/** The home card: how many gadgets there are, from the Desk's data provider through Refine. */
import { useList } from '@refinedev/core';

export function GadgetCount(): React.JSX.Element {
  const { result, query } = useList({ resource: 'gadgets.Gadget', pagination: { pageSize: 1 } });
  if (query.isLoading) return <p role="status">Counting gadgets…</p>;
  return <p className="gadgets-count">{query.isError ? 'Gadgets unavailable' : `${result.total} gadgets`}</p>;
}
