/** Dashboard card: the number of customers, from the `crm.api.customer_count` RPC method. */
import { useCustom, type WidgetProps } from '../../../../src/remote';

const PLURAL = new Intl.PluralRules('en');
const CUSTOMER_NOUN: Partial<Record<Intl.LDMLPluralRule, string>> = { one: 'customer', other: 'customers' };

/**
 * Shows `{ message: <count> }` of `POST <apiUrl>/method/crm.api.customer_count`, and "Add a customer" only
 * to a user who may create customers (the Desk would refuse the others).
 */
export function CustomerCountWidget({ apiUrl, can }: WidgetProps): React.JSX.Element {
  const { query, result } = useCustom<{ message?: number }>({
    url: `${apiUrl}/method/crm.api.customer_count`,
    method: 'post',
    config: { payload: {} },
  });
  if (query.isLoading) return <p role="status">Counting customers…</p>;
  if (query.isError) {
    return (
      <p role="alert">
        Could not count customers.{' '}
        <button type="button" className="desk-button desk-button--link" onClick={() => query.refetch()}>
          Retry
        </button>
      </p>
    );
  }
  const data = result.data as { message?: number } | number | undefined;
  const count = typeof data === 'number' ? data : (data?.message ?? 0);
  const add = can('create', 'crm.Customer') ? (
    <>
      {' · '}
      <a href="#/app/crm.Customer/new">Add a customer</a>
    </>
  ) : null;
  if (count === 0) return <p>No customers yet{add}</p>;
  return (
    <p className="desk-widget__figure">
      <span className="desk-widget__number">{count}</span>{' '}
      {CUSTOMER_NOUN[PLURAL.select(count)] ?? 'customers'}
      {add}
    </p>
  );
}

export default CustomerCountWidget;
