/**
 * Which requirement of the remote contract a failed remote broke (docs/mfe-teams.md#a-remote-from-your-own-bundler-config).
 * The Desk shows its usual contained notice to the user; the diagnosis (a stable code and a sentence naming
 * what to change) goes to the developer details and the console, so a team building its remote with its own
 * bundler configuration does not have to guess from a generic runtime error.
 */
import { SdkError } from '../errors';

/** The stable codes of a diagnosed remote failure. */
export type RemoteDiagnosisCode =
  /** `remoteEntry.js` ran but defined no container named after the service. */
  | 'remote_container_missing'
  /** The container exposes no `./views` module. */
  | 'remote_views_missing'
  /** `./views` does not export `{ views, widgets }` (by default export). */
  | 'remote_views_invalid'
  /** A shared singleton (React, ...) is required at a version the Desk's copy does not satisfy. */
  | 'remote_shared_incompatible'
  /** The page's Content-Security-Policy refused the remote's code (an `eval` devtool, another origin). */
  | 'remote_csp_refused';

/** A diagnosis: its code and what to change, in one sentence for a developer. */
export interface RemoteDiagnosis {
  code: RemoteDiagnosisCode;
  detail: string;
}

/**
 * The error a diagnosed load rejects with: code `remote_load_failed` (what the Desk's notice words), plus
 * the {@link RemoteDiagnosis}. Its message starts with the diagnosis code, so the developer details show it.
 */
export class RemoteLoadError extends SdkError {
  readonly diagnosis: RemoteDiagnosis;

  constructor(service: string, diagnosis: RemoteDiagnosis, cause?: unknown) {
    super('remote_load_failed', `${diagnosis.code}: ${service}: ${diagnosis.detail}`, { cause });
    this.diagnosis = diagnosis;
  }
}

/** The diagnosis carried by `error`, when it is a diagnosed remote failure (from any copy of the SDK). */
export function diagnosisOf(error: unknown): RemoteDiagnosis | undefined {
  const diagnosis = (error as { diagnosis?: Partial<RemoteDiagnosis> } | null)?.diagnosis;
  return diagnosis && typeof diagnosis.code === 'string' && typeof diagnosis.detail === 'string'
    ? (diagnosis as RemoteDiagnosis)
    : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks the shape of a loaded `./views` module: its default export (or the module itself) must be an
 * object whose `views` (if any) maps DocTypes to `{ form?, list? }` components and whose `widgets` (if any)
 * is an array of `{ id, title, component }`. Returns the diagnosis of the first problem, else undefined.
 */
export function checkViewsShape(module: unknown): RemoteDiagnosis | undefined {
  const exported = isRecord(module) && 'default' in module ? module.default : module;
  const invalid = (why: string): RemoteDiagnosis => ({
    code: 'remote_views_invalid',
    detail: `./views ${why}; it must export { views, widgets } as its default export (defineRemote).`,
  });
  if (!isRecord(exported)) {
    return invalid(`exports ${typeof exported === 'function' ? 'a function' : String(typeof exported)}`);
  }
  const keys = Object.keys(exported);
  if (keys.length && !('views' in exported) && !('widgets' in exported)) {
    return invalid(`exports ${keys.slice(0, 3).join(', ')} but neither views nor widgets`);
  }
  const { views, widgets } = exported;
  if (views !== undefined) {
    if (!isRecord(views)) return invalid('has a `views` that is not an object keyed by DocType');
    for (const [docType, entry] of Object.entries(views)) {
      const ok =
        isRecord(entry) &&
        (entry.form === undefined || typeof entry.form === 'function' || isRecord(entry.form)) &&
        (entry.list === undefined || typeof entry.list === 'function' || isRecord(entry.list));
      if (!ok) return invalid(`has views["${docType}"] that is not { form?, list? } components`);
    }
  }
  if (widgets !== undefined) {
    if (!Array.isArray(widgets)) return invalid('has a `widgets` that is not an array');
    const bad = widgets.findIndex(
      (w) => !isRecord(w) || typeof w.id !== 'string' || typeof w.title !== 'string' || !w.component,
    );
    if (bad >= 0) return invalid(`has widgets[${bad}] that is not { id, title, component }`);
  }
  return undefined;
}

/** A recorded Content-Security-Policy refusal (the parts of a `securitypolicyviolation` event used). */
export interface CspRefusal {
  blockedURI: string;
  directive: string;
  sourceFile: string;
}
