/**
 * What a failure means to a person using the Desk: a sentence saying what happened and what to do, and
 * whether trying again can help. The stable error code stays available for the developer details view;
 * it is never the message itself.
 */

/** A failure, described for people. */
export interface FailureWords {
  /** What happened and what to do, in plain words. */
  message: string;
  /** True when trying the same thing again may work (a network problem, a service that was down). */
  retryable: boolean;
  /** The stable code (for developer details only). */
  code?: string;
  /** The HTTP status, when the failure came from an answer. */
  status?: number;
  /** The server's or the SDK's own message (for developer details only). */
  technical?: string;
}

/** Messages per stable code; anything unknown falls back on the status. */
const BY_CODE: Record<string, { message: string; retryable: boolean }> = {
  not_found: { message: 'This record does not exist any more. It may have been deleted.', retryable: false },
  unknown_doctype: { message: 'This kind of record is not available here.', retryable: false },
  unknown_resource: { message: 'No app installed here provides this kind of record.', retryable: false },
  unknown_service: { message: 'The app for this page is not installed.', retryable: false },
  forbidden: { message: 'You do not have permission to do this. Ask an administrator.', retryable: false },
  unauthorized: { message: 'Your session ended. Sign in again.', retryable: false },
  invalid_credentials: { message: 'Wrong user name or password.', retryable: false },
  validation_failed: {
    message: 'Some fields need attention: see the messages next to them.',
    retryable: false,
  },
  duplicate: {
    message: 'Another record already has this value. Use a different one.',
    retryable: false,
  },
  link_not_found: {
    message: 'A linked record does not exist (it may have been deleted). Choose another one.',
    retryable: false,
  },
  linked: {
    message: 'Other records refer to this one. Change or delete them first, then try again.',
    retryable: false,
  },
  csrf_failed: { message: 'The page is out of date. Reload it and try again.', retryable: false },
  login_busy: { message: 'Many people are signing in right now. Try again in a moment.', retryable: true },
  rate_limited: { message: 'Too many requests right now. Wait a moment, then try again.', retryable: true },
  payload_too_large: { message: 'This is too large to save. Shorten the long fields.', retryable: false },
  network_error: {
    message: 'The server could not be reached. Check your connection, then try again.',
    retryable: true,
  },
  discovery_timeout: { message: 'The server took too long to answer. Try again.', retryable: true },
  discovery_failed: { message: 'The server could not be reached. Try again in a moment.', retryable: true },
  remote_load_failed: {
    message: 'This part of the Desk could not be loaded. Try again in a moment.',
    retryable: true,
  },
  remote_integrity_failed: {
    message:
      'Its files changed after they were published, so the Desk did not run them. Tell the team that runs this app.',
    retryable: false,
  },
  service_unavailable: {
    message: 'It may be restarting or being updated. Try again in a moment.',
    retryable: true,
  },
  remote_chunk_failed: {
    message:
      'Part of this app could not be downloaded; a new version may have been released. Reload the page to load it.',
    retryable: false,
  },
  remote_timeout: { message: 'This part of the Desk took too long to load. Try again.', retryable: true },
  remote_render_failed: {
    message: 'This part of the Desk stopped working. The rest of the page still works.',
    retryable: true,
  },
  // Personal data (docs/permissions.md#personal-data).
  integrity_failed: {
    message: 'Its personal data failed its integrity check, so it is not shown. Tell an administrator.',
    retryable: false,
  },
  masked_value: {
    message: 'Hidden personal data cannot be saved. Leave that field as it is.',
    retryable: false,
  },
  field_encrypted: {
    message: 'Personal data can only be matched whole, not sorted or searched in part.',
    retryable: false,
  },
  encryption_failed: {
    message:
      'Your data could not be protected for sending, so nothing was sent. Reload the page and try again.',
    retryable: true,
  },
};

/** Describes any thrown value for people (see {@link FailureWords}). */
export function failureWords(error: unknown): FailureWords {
  const e = (error && typeof error === 'object' ? error : {}) as {
    code?: unknown;
    status?: unknown;
    statusCode?: unknown;
    message?: unknown;
  };
  const code = typeof e.code === 'string' ? e.code : undefined;
  const rawStatus = typeof e.status === 'number' ? e.status : e.statusCode;
  const status = typeof rawStatus === 'number' ? rawStatus : undefined;
  const technical = typeof e.message === 'string' && e.message ? e.message : undefined;
  const known = code ? BY_CODE[code] : undefined;
  if (known) return { ...known, code, status, technical };
  if (status === 404) return { ...BY_CODE.not_found!, code, status, technical };
  if (status === 403) return { ...BY_CODE.forbidden!, code, status, technical };
  if (status === 401) return { ...BY_CODE.unauthorized!, code, status, technical };
  if (status !== undefined && status >= 400 && status < 500) {
    return {
      message: 'The server refused this request. Check what you entered.',
      retryable: false,
      code,
      status,
      technical,
    };
  }
  return {
    message: 'The service did not answer as expected. Try again in a moment.',
    retryable: true,
    code,
    status,
    technical,
  };
}
