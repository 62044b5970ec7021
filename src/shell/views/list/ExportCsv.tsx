/**
 * The list's "Export CSV" action: the rows the list shows (its filters and sort, all pages, its columns,
 * linked records by id), written by the server and streamed (docs/http-api.md#csv-export), with the rows
 * received shown as they arrive and a Cancel, then saved as `<Plural>.csv`. Personal data the user may not
 * see is exported masked, as the data API gives it.
 */
import type { CrudFilter, CrudSort } from '@refinedev/core';
import { exportUrl } from '../../export/csv';
import type { DeskField } from '../../fields';
import { usePlatform } from '../../hooks/use-platform';
import { CsvExportButton } from '../CsvExportButton';

/** Props of {@link ExportCsv}. */
export interface ExportCsvProps {
  docType: string;
  /** The list's plural label, the file's name (`Customers.csv`). */
  plural: string;
  columns: readonly DeskField[];
  filters: CrudFilter[];
  sort?: CrudSort;
}

/** The button for the list as it shows. */
export function ExportCsv({ docType, plural, columns, filters, sort }: ExportCsvProps): React.JSX.Element {
  const { config } = usePlatform();
  const url = exportUrl(config.gatewayUrl, docType, { filters, sort, fields: columns.map((c) => c.name) });
  return <CsvExportButton url={url} filename={`${plural}.csv`} />;
}
