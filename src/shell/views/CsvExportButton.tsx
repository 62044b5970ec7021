/**
 * An "Export CSV" button for a file the server writes and streams (a list's export, the audit log's): the
 * rows received shown as they arrive, a Cancel, the file saved once whole.
 */
import { useRef, useState } from 'react';
import { fetchExport } from '../export/csv';
import { failureWords } from '../words/failure';

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

/** Props of {@link CsvExportButton}. */
export interface CsvExportButtonProps {
  /** The export's URL, answered as a CSV stream (`X-Total-Count` gives the progress its end). */
  url: string;
  /** The name the file is saved under. */
  filename: string;
}

/**
 * "Export CSV": fetches `url` with the session, shows the rows received as they arrive with a Cancel, then
 * saves the file as `filename`; a refusal or a stream cut short says why.
 */
export function CsvExportButton({ url, filename }: CsvExportButtonProps): React.JSX.Element {
  const [state, setState] = useState<ExportState>({ status: 'idle' });
  const running = useRef<AbortController | undefined>(undefined);

  const start = async () => {
    const controller = new AbortController();
    running.current = controller;
    setState({ status: 'running', done: 0 });
    try {
      const parts = await fetchExport({
        url,
        signal: controller.signal,
        onProgress: (done, total) => setState({ status: 'running', done, total }),
      });
      download(parts, filename);
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
