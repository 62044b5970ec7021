/**
 * The confirmation of a channel move on the Releases page (a promotion or a rollback): a first confirm,
 * and, when the contract check refuses the move, the refused differences with "… anyway" (a forced move)
 * in a second confirm. Nothing moves without a confirmation.
 */
import { useState } from 'react';
import type { FieldError } from '../../protocol';
import { contractDifferencesOf } from '../releases/releases-api';
import { adoptStyles } from '../styles/adopt-styles';
import releasesCss from '../styles/releases.css';
import { ConfirmDialog } from './ConfirmDialog';
import { describeError } from './states';

adoptStyles('releases', releasesCss);

/** A move the page asks to confirm. */
export interface ReleaseMove {
  kind: 'promote' | 'rollback';
  /** The release the move makes live. */
  version: string;
  /** The app's label, for the words. */
  label: string;
}

/** Props of {@link ReleaseMoveDialog}. */
export interface ReleaseMoveDialogProps {
  move: ReleaseMove;
  /** Runs the move (forced after a refusal); resolves once the server made it. */
  run(force: boolean): Promise<void>;
  /** Closes the dialog; `done` when the move was made. */
  onClose(done: boolean): void;
}

/** The differences the contract check listed, as the dialog shows them. */
export function DifferenceList({ differences }: { differences: FieldError[] }): React.JSX.Element {
  return (
    <ul className="desk-release__differences">
      {differences.map((d) => (
        <li key={`${d.field}:${d.code}`}>
          <code>{d.field}</code>: {d.message}
        </li>
      ))}
    </ul>
  );
}

/** The dialog; render it only while a move waits for its confirmation. */
export function ReleaseMoveDialog({ move, run, onClose }: ReleaseMoveDialogProps): React.JSX.Element {
  const [refused, setRefused] = useState<FieldError[]>();
  const [failure, setFailure] = useState<string>();
  const [busy, setBusy] = useState(false);
  const verb = move.kind === 'promote' ? 'Promote' : 'Roll back';
  const confirm = async (force: boolean) => {
    setBusy(true);
    setFailure(undefined);
    try {
      await run(force);
      onClose(true);
    } catch (err) {
      const differences = contractDifferencesOf(err);
      if (differences && !force) setRefused(differences);
      else setFailure(describeError(err).message);
      setBusy(false);
    }
  };
  const failed = failure ? (
    <p className="desk-field__error" role="alert">
      {failure}
    </p>
  ) : null;
  if (refused) {
    return (
      <ConfirmDialog
        key="forced"
        title={`${verb} anyway?`}
        confirmLabel={`${verb} anyway`}
        busy={busy}
        onConfirm={() => void confirm(true)}
        onCancel={() => onClose(false)}
      >
        <p>
          {move.version} was built against a contract {move.label} does not offer now. Its screens may fail
          where they use these:
        </p>
        <DifferenceList differences={refused} />
        {failed}
      </ConfirmDialog>
    );
  }
  return (
    <ConfirmDialog
      key="first"
      title={move.kind === 'promote' ? `Promote ${move.version}?` : `Roll back ${move.label}?`}
      confirmLabel={verb}
      confirmTone="primary"
      busy={busy}
      onConfirm={() => void confirm(false)}
      onCancel={() => onClose(false)}
    >
      <p>
        {move.kind === 'promote'
          ? `Every user of ${move.label} without a canary or pin gets ${move.version} at their next page load; open tabs are offered it.`
          : `${move.version} becomes live again for every user of ${move.label} without a canary or pin; open tabs are offered it.`}
      </p>
      {failed}
    </ConfirmDialog>
  );
}
