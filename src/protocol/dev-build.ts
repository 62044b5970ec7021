/**
 * The build status a developer's dev server (`m app dev`) pushes to the Desk while it overrides a service's
 * remote (docs/mfe-teams.md#working-against-a-running-desk): a Server-Sent Events stream at
 * {@link DEV_BUILD_STATUS_PATH} on the dev server's origin, one `status` event per change, each carrying a
 * {@link DevBuildStatus} as JSON. The Desk shows a failed build over the remote's area and hides it when the
 * next build succeeds.
 */

/** Path of the build status stream on a dev server's origin. */
export const DEV_BUILD_STATUS_PATH = '/__desk/build-status';

/** The name of the Server-Sent Events that carry a {@link DevBuildStatus}. */
export const DEV_BUILD_STATUS_EVENT = 'status';

/** One error of a failed build: where (relative to the app's folder) and what. */
export interface DevBuildError {
  /** The source file, relative to the app's folder (`ui/NoteForm.tsx`); absent when webpack names none. */
  file?: string;
  /** 1-based line, when known. */
  line?: number;
  /** 1-based column, when known. */
  column?: number;
  /** The compiler's message, without stack traces or absolute paths. */
  message: string;
}

/** The dev server's latest build: compiling, built, or failed with its errors. */
export interface DevBuildStatus {
  state: 'building' | 'ok' | 'failed';
  /** Empty unless `state` is `failed`. */
  errors: DevBuildError[];
}

const STATES: ReadonlySet<string> = new Set(['building', 'ok', 'failed']);

/** Reads one event's data as a {@link DevBuildStatus}; undefined for anything else (a foreign server). */
export function parseDevBuildStatus(data: string): DevBuildStatus | undefined {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  const status = value as { state?: unknown; errors?: unknown };
  if (!status || typeof status.state !== 'string' || !STATES.has(status.state)) return undefined;
  const errors = Array.isArray(status.errors) ? status.errors : [];
  return {
    state: status.state as DevBuildStatus['state'],
    errors: errors.flatMap((e: { file?: unknown; line?: unknown; column?: unknown; message?: unknown }) =>
      e && typeof e.message === 'string'
        ? [
            {
              message: e.message,
              ...(typeof e.file === 'string' ? { file: e.file } : {}),
              ...(Number.isInteger(e.line) ? { line: e.line as number } : {}),
              ...(Number.isInteger(e.column) ? { column: e.column as number } : {}),
            },
          ]
        : [],
    ),
  };
}
