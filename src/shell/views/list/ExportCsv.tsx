/**
 * The list's "Export CSV" action: the rows the list shows (its filters and sort, all pages, its columns,
 * linked records by id), written by the server and streamed (docs/http-api.md#csv-export), with the rows
 * received shown as they arrive and a Cancel, then saved as `<Plural>.csv`. Personal data the user may not
 * see is exported masked, as the data API gives it.
 */
import type { CrudFilter, CrudSort } from '@refinedev/core';
import { useRef, useState } from 'react';
import { exportUrl, fetchExport } from '../../export/csv';
import type { DeskField } from '../../fields';
import { usePlatform } from '../../hooks/use-platform';
import { failureWords } from '../../words/failure';

/** Props of {@link ExportCsv}. */
export interface ExportCsvProps {
  docType: string;
  /** The list's plural label, the file's name (`Customers.csv`). */
  plural: string;
  columns: readonly DeskField[];
  filters: CrudFilter[];
  sort?: CrudSort;
}

type ExportState =
  | { status: 'idle' }
  | { status: 'running'; done: number; total?: number }
  | { status: 'failed'; message: string };

/** Saves `parts` as a file the browser downloads. */
function download(parts: BlobPart[], name: string): void {
  const url = URL.createObjectURL(new Blob(parts, { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  // The download has started from the URL; the next task may release it.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** The button, its progress and its failure. */
export function ExportCsv({ docType, plural, columns, filters, sort }: ExportCsvProps): React.JSX.Element {
  const { config } = usePlatform();
  const [state, setState] = useState<ExportState>({ status: 'idle' });
  const running = useRef<AbortController | undefined>(undefined);

  const start = async () => {
    const controller = new AbortController();
    running.current = controller;
    setState({ status: 'running', done: 0 });
    try {
      const parts = await fetchExport({
        url: exportUrl(config.gatewayUrl, docType, {
          filters,
          sort,
          fields: columns.map((c) => c.name),
        }),
        signal: controller.signal,
        onProgress: (done, total) => setState({ status: 'running', done, total }),
      });
      download(parts, `${plural}.csv`);
      setState({ status: 'idle' });
    } catch (error) {
      if (controller.signal.aborted) setState({ status: 'idle' });
      else setState({ status: 'failed', message: `The export stopped. ${failureWords(error).message}` });
    } finally {
      running.current = undefined;
    }
  };

  return (
    <div className="desk-export">
      {state.status === 'running' ? (
        <>
          <span role="status">
            Exporting {state.done.toLocaleString()}
            {state.total !== undefined ? ` of ${state.total.toLocaleString()}` : ''}…
          </span>
          {state.total ? (
            <progress max={state.total} value={state.done} aria-label="Export progress" />
          ) : null}
          <button
            type="button"
            className="desk-button desk-button--small"
            onClick={() => running.current?.abort()}
          >
            Cancel export
          </button>
        </>
      ) : (
        <button type="button" className="desk-button desk-button--small" onClick={() => void start()}>
          Export CSV
        </button>
      )}
      {state.status === 'failed' ? (
        <span className="desk-field__error" role="alert">
          {state.message}
        </span>
      ) : null}
    </div>
  );
}
