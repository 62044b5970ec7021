/**
 * A failed dev build of an overridden remote, over that remote's area (docs/mfe-teams.md#working-against-a-running-desk):
 * each error's file, line and message as `m app dev` reported them. The remote stays mounted underneath, so
 * when the fix builds the overlay goes, the hot update lands and what was typed is still there; the rest of
 * the Desk keeps working meanwhile.
 */
import type { DevBuildError } from '../../protocol/dev-build';
import { adoptStyles } from '../styles/adopt-styles';
import devOverlayCss from '../styles/dev-overlay.css';

adoptStyles('dev-overlay', devOverlayCss);

/** `ui/NoteForm.tsx:12:5`, or as much of it as the compiler named. */
export function errorLocation(error: DevBuildError): string | undefined {
  if (!error.file) return undefined;
  if (error.line === undefined) return error.file;
  return `${error.file}:${error.line}${error.column === undefined ? '' : `:${error.column}`}`;
}

/** What to do about a failed build over a running remote: its state survives the fix. */
const OVERLAY_HINT =
  'Fix it and save: the update shows here when it builds, and the form keeps what was typed.';

/** The panel naming `service`'s failed build, each error and `hint` (inside the overlay, or a notice). */
export function DevBuildErrors({
  service,
  errors,
  hint,
}: {
  service: string;
  errors: readonly DevBuildError[];
  hint: string;
}): React.JSX.Element {
  return (
    <div className="desk-dev-overlay__panel">
      <h2 className="desk-dev-overlay__title">The {service} dev build failed</h2>
      <ol className="desk-dev-overlay__errors">
        {errors.map((error, index) => {
          const where = errorLocation(error);
          return (
            // The list is replaced as a whole on every build: the index is a stable key within one.
            // biome-ignore lint/suspicious/noArrayIndexKey: errors have no identity of their own
            <li key={index}>
              {where && <code className="desk-dev-overlay__where">{where}</code>}
              <pre className="desk-dev-overlay__message">{error.message}</pre>
            </li>
          );
        })}
      </ol>
      <p className="desk-dev-overlay__hint">{hint}</p>
    </div>
  );
}

/** The overlay over `service`'s remote area while its dev build has `errors`. */
export function DevBuildOverlay({
  service,
  errors,
}: {
  service: string;
  errors: readonly DevBuildError[];
}): React.JSX.Element {
  return (
    <section className="desk-dev-overlay" role="alert" aria-label={`The ${service} dev build failed`}>
      <DevBuildErrors service={service} errors={errors} hint={OVERLAY_HINT} />
    </section>
  );
}
