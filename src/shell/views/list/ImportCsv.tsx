/**
 * The list's "Import" action, offered to users who may create the DocType: choose a CSV file, see the
 * preview (the field each column fills, changeable; how many rows are ready; the problems of the others),
 * then import the ready rows with a progress bar and a summary; the list refreshes at the end. An import
 * that stopped can be resumed from the summary: it carries the same import id, so no row is created twice.
 * The file holds personal data as typed in it: it goes to the server only, over the import API.
 */
import { useId, useLayoutEffect, useRef, useState } from 'react';
import type { DocTypeSchema } from '../../../protocol';
import { useInvalidateRecords } from '../../data/records';
import { usePlatform } from '../../hooks/use-platform';
import {
  followImport,
  type ImportPreview,
  type ImportProgress,
  importApi,
  type MappingRequest,
  newImportId,
} from '../../import/import-api';
import { adoptStyles } from '../../styles/adopt-styles';
import importCss from '../../styles/import.css';
import { failureWords } from '../../words/failure';
import { PreviewStep, ProgressStep, SummaryStep } from './ImportSteps';

adoptStyles('import', importCss);

/** Props of {@link ImportCsv}. */
export interface ImportCsvProps {
  docType: string;
  schema: DocTypeSchema;
  /** The list's plural label (`Tickets`). */
  plural: string;
}

type Step =
  | { kind: 'choose' }
  | { kind: 'preview'; fileName: string; csv: string; mapping: MappingRequest; preview: ImportPreview }
  | { kind: 'running'; csv: string; mapping: MappingRequest; progress: ImportProgress }
  | { kind: 'finished'; csv: string; mapping: MappingRequest; progress: ImportProgress };

/** The button and, once pressed, the dialog. */
export function ImportCsv({ docType, schema, plural }: ImportCsvProps): React.JSX.Element {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="desk-button desk-button--small" onClick={() => setOpen(true)}>
        Import
      </button>
      {open ? (
        <ImportDialog docType={docType} schema={schema} plural={plural} onClose={() => setOpen(false)} />
      ) : null}
    </>
  );
}

function ImportDialog({ docType, schema, plural, onClose }: ImportCsvProps & { onClose(): void }) {
  const { config } = usePlatform();
  const api = importApi(config.gatewayUrl, docType);
  const invalidate = useInvalidateRecords();
  const [step, setStep] = useState<Step>({ kind: 'choose' });
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const following = useRef<AbortController | undefined>(undefined);
  const dialogRef = useRef<HTMLDivElement>(null);
  const importId = useRef(newImportId());
  const titleId = useId();
  const fileId = useId();

  // Focus moves into the dialog as it opens and back to the Import button as it closes; following a
  // running import stops with the dialog (the import itself goes on on the server).
  useLayoutEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    dialogRef.current?.querySelector<HTMLElement>('input, select, button')?.focus();
    return () => {
      following.current?.abort();
      previous?.focus?.();
    };
  }, []);

  const attempt = async (what: string, work: () => Promise<void>) => {
    setBusy(true);
    setFailure(undefined);
    try {
      await work();
    } catch (error) {
      if (!following.current?.signal.aborted) setFailure(`${what} ${failureWords(error).message}`);
    } finally {
      setBusy(false);
    }
  };

  const choose = (file: File) =>
    attempt('The file could not be checked.', async () => {
      const csv = await file.text();
      const preview = await api.preview(csv, {});
      setStep({ kind: 'preview', fileName: file.name, csv, mapping: {}, preview });
    });

  const remap = (column: string, field: string | null) => {
    if (step.kind !== 'preview') return;
    const mapping = { ...step.mapping, [column]: field };
    void attempt('The file could not be checked.', async () => {
      const preview = await api.preview(step.csv, mapping);
      setStep({ ...step, mapping, preview });
    });
  };

  const run = (csv: string, mapping: MappingRequest) =>
    attempt('The import could not be started.', async () => {
      const controller = new AbortController();
      following.current = controller;
      const first = await api.start(csv, mapping, importId.current);
      const last = await followImport(
        api,
        first,
        (progress) => setStep({ kind: 'running', csv, mapping, progress }),
        controller.signal,
      );
      setStep({ kind: 'finished', csv, mapping, progress: last });
      void invalidate({ resource: docType, invalidates: ['list', 'many'] });
    });

  const running = step.kind === 'running';
  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === 'Escape' && !running) {
      event.preventDefault();
      onClose();
    }
  };

  return (
    <div className="desk-dialog-backdrop">
      <div
        ref={dialogRef}
        className="desk-dialog desk-dialog--wide desk-import"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        onKeyDown={onKeyDown}
      >
        <h2 id={titleId} className="desk-dialog__title">
          Import {plural.toLowerCase()}
        </h2>
        <div className="desk-dialog__body">
          {step.kind === 'choose' ? (
            <>
              <p>
                A CSV file with a header row; each column whose heading is a field’s label or name fills that
                field. Nothing is saved before you confirm.
              </p>
              <div className="desk-field">
                <label htmlFor={fileId}>CSV file</label>
                <input
                  id={fileId}
                  type="file"
                  accept=".csv,text/csv"
                  disabled={busy}
                  onChange={(e) => {
                    const file = e.target.files?.[0];
                    if (file) void choose(file);
                  }}
                />
              </div>
              {busy ? <p role="status">Checking the file…</p> : null}
            </>
          ) : step.kind === 'preview' ? (
            <PreviewStep
              schema={schema}
              fileName={step.fileName}
              preview={step.preview}
              checking={busy}
              onMap={remap}
            />
          ) : step.kind === 'running' ? (
            <ProgressStep progress={step.progress} />
          ) : (
            <SummaryStep schema={schema} plural={plural} progress={step.progress} />
          )}
          {failure ? (
            <p className="desk-field__error" role="alert">
              {failure}
            </p>
          ) : null}
        </div>
        <div className="desk-actions desk-dialog__actions">
          <button type="button" className="desk-button" disabled={running} onClick={onClose}>
            {step.kind === 'finished' ? 'Close' : 'Cancel'}
          </button>
          {step.kind === 'finished' && step.progress.status === 'stopped' ? (
            <button
              type="button"
              className="desk-button desk-button--primary"
              disabled={busy}
              onClick={() => void run(step.csv, step.mapping)}
            >
              Resume import
            </button>
          ) : null}
          {step.kind === 'preview' ? (
            <button
              type="button"
              className="desk-button desk-button--primary"
              disabled={busy || step.preview.valid === 0}
              onClick={() => void run(step.csv, step.mapping)}
            >
              Import {step.preview.valid.toLocaleString()} {step.preview.valid === 1 ? 'row' : 'rows'}
            </button>
          ) : null}
        </div>
      </div>
    </div>
  );
}
