/**
 * The rules crm's Customer form and its DocType (backend/apps/crm/doctypes.ts) share, so the form accepts
 * exactly what the server stores. They live with the UI remote because a remote may import only its own ui/
 * folder and the package's public entries; the DocType imports them from here.
 */

/** A phone number: an optional `+`, a digit, then 3 to 24 digits, spaces or `( ) . / -`. */
export const PHONE_PATTERN = /^\+?[0-9][0-9 ()./-]{3,24}$/;

/** The form's words for a phone number {@link PHONE_PATTERN} refuses. */
export const PHONE_FORMAT_MESSAGE =
  'Enter a phone number starting with + or a digit, e.g. +49 30 1234567 (then digits, spaces or ( ) . / -).';
