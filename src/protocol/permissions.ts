/**
 * Roles and permissions on the wire (docs/permissions.md): what whoami reports per DocType, and the mask a
 * reader without `read_pii` receives in place of personal data.
 */

/** What one user may do with one DocType. */
export interface DocTypePermissions {
  read: boolean;
  create: boolean;
  write: boolean;
  delete: boolean;
  read_pii: boolean;
}

/**
 * The value a masked `pii` field carries in a reply (the reply's `masked_fields` names those fields). Fixed,
 * so clients recognise it; a write sending it back is refused (`masked_value`).
 */
export const PII_MASK = '••••••';
