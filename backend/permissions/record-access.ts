import { PlatformError } from '../http/errors';
import { forbidden } from './guard';
import { type MaskableDocType, maskableFields, maskedValuesIn, maskRecord, maskRecords } from './mask';
import type { DocTypePermissions, Operation } from './model';
import type { PermissionService } from './permission-service';

/**
 * One caller's access to one DocType, resolved once per request: the data routes ask it before each
 * operation and pass their answers through it (docs/permissions.md#personal-data).
 */
export interface RecordAccess {
  permissions: DocTypePermissions;
  /** The flagged fields this caller receives masked (empty with `read_pii`). */
  masked: string[];
  /** Throws 403 `forbidden` naming the operation and DocType unless it is granted. */
  require(operation: Operation): void;
  /** Refuses filtering or sorting on a masked field (the filter would reveal the value). */
  requireQueryable(fields: Iterable<string>): void;
  /** Refuses a write that sends the mask as a pii field's value (422 `masked_value`). */
  refuseMaskedWrite(body: Record<string, unknown>): void;
  /** The record as this caller may see it. */
  mask<R extends Record<string, unknown>>(record: R): R;
  maskAll<R extends Record<string, unknown>>(records: readonly R[]): R[];
}

/** Resolves the access of a holder of `roles` to `doctype`. */
export async function recordAccess(
  service: Pick<PermissionService, 'permissions'>,
  roles: readonly string[],
  doctype: MaskableDocType,
): Promise<RecordAccess> {
  const permissions = await service.permissions(roles, doctype.name);
  const masked = permissions.read_pii ? [] : maskableFields(doctype);
  return {
    permissions,
    masked,
    require(operation) {
      if (!permissions[operation]) throw forbidden(operation, doctype.name);
    },
    requireQueryable(fields) {
      for (const field of fields) if (masked.includes(field)) throw forbidden('read_pii', doctype.name);
    },
    refuseMaskedWrite(body) {
      const fields = maskedValuesIn(body, doctype);
      if (fields.length === 0) return;
      throw new PlatformError('masked_value', 'A masked value cannot be saved; leave the field out.', {
        status: 422,
        fields: fields.map((field) => ({
          field,
          code: 'masked_value',
          message: 'This is the mask, not a value.',
        })),
      });
    },
    mask: (record) => maskRecord(record, masked),
    maskAll: (records) => maskRecords(records, masked),
  };
}
