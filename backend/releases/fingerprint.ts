import { z } from 'zod';
import type { InstalledApp } from '../../src/contract';
import type { FieldError } from '../http/errors';

/** One field of a DocType as a release's contract fingerprint records it. */
export interface FingerprintField {
  type: string;
  required: boolean;
  /** The flags that change what travels on the wire: `pii`, `encrypted`, `unique`, and `link:<DocType>`. */
  flags: string[];
}

/**
 * What a service's backend looked like when a remote was built (docs/mfe-teams.md#the-contract-gate): each
 * DocType's fields with their types and flags, and each RPC method with its keyword-argument names.
 */
export interface ContractFingerprint {
  doctypes: Record<string, Record<string, FingerprintField>>;
  methods: Record<string, { kwargs: string[] }>;
}

/** The zod schema a stored or uploaded fingerprint must satisfy. */
export const ContractFingerprintSchema = z.strictObject({
  doctypes: z.record(
    z.string().max(200),
    z.record(
      z.string().max(200),
      z.strictObject({
        type: z.string().max(64),
        required: z.boolean(),
        flags: z.array(z.string().max(250)).max(16),
      }),
    ),
  ),
  methods: z.record(z.string().max(200), z.strictObject({ kwargs: z.array(z.string().max(200)).max(500) })),
});

/** The keyword-argument names of an RPC method whose `kwargs` schema is a zod object; none otherwise. */
function kwargNames(schema: unknown): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape).sort() : [];
}

/** The contract fingerprint of an app as it is defined now (its DocTypes' fields, its RPC methods). */
export function contractFingerprint(app: Pick<InstalledApp, 'doctypes' | 'methods'>): ContractFingerprint {
  const doctypes: ContractFingerprint['doctypes'] = {};
  for (const doctype of [...app.doctypes].sort((a, b) => a.name.localeCompare(b.name))) {
    const fields: Record<string, FingerprintField> = {};
    for (const field of doctype.fields) {
      const flags: string[] = [];
      if (field.pii) flags.push('pii');
      if (field.encrypted) flags.push('encrypted');
      if (field.unique) flags.push('unique');
      if (field.link) flags.push(`link:${field.link}`);
      fields[field.name] = { type: field.type, required: field.required, flags };
    }
    doctypes[doctype.name] = fields;
  }
  const methods: ContractFingerprint['methods'] = {};
  for (const name of Object.keys(app.methods ?? {}).sort()) {
    methods[name] = { kwargs: kwargNames(app.methods[name]?.kwargs) };
  }
  return { doctypes, methods };
}

/**
 * Why a release's contract cannot run against the service (docs/mfe-teams.md#the-contract-gate), as the
 * `fields` of the error: `field` names the DocType, field or method, `code` the kind of difference. Additions
 * on the service's side (a new DocType, method, argument or optional field) are compatible; a release relying
 * on something the service no longer has, a changed type or flag, or a required field the release does not
 * know, is not.
 */
export function contractDifferences(
  release: ContractFingerprint,
  running: ContractFingerprint,
): FieldError[] {
  const out: FieldError[] = [];
  for (const [doctype, fields] of Object.entries(release.doctypes)) {
    const now = running.doctypes[doctype];
    if (!now) {
      out.push({
        field: doctype,
        code: 'doctype_removed',
        message: 'The service no longer has this DocType.',
      });
      continue;
    }
    for (const [name, field] of Object.entries(fields)) {
      const current = now[name];
      const path = `${doctype}.${name}`;
      if (!current) {
        out.push({ field: path, code: 'field_removed', message: 'The service no longer has this field.' });
      } else if (current.type !== field.type) {
        out.push({
          field: path,
          code: 'type_changed',
          message: `The release was built with type ${field.type}, the service has ${current.type}.`,
        });
      } else if ([...current.flags].sort().join(',') !== [...field.flags].sort().join(',')) {
        out.push({
          field: path,
          code: 'flags_changed',
          message: `The release was built with flags [${field.flags.join(', ')}], the service has [${current.flags.join(', ')}].`,
        });
      }
    }
    for (const [name, current] of Object.entries(now)) {
      if (!fields[name] && current.required) {
        out.push({
          field: `${doctype}.${name}`,
          code: 'field_missing',
          message: 'The service requires this field and the release was built without it.',
        });
      }
    }
  }
  for (const [method, signature] of Object.entries(release.methods)) {
    const now = running.methods[method];
    if (!now) {
      out.push({
        field: method,
        code: 'method_removed',
        message: 'The service no longer has this RPC method.',
      });
      continue;
    }
    for (const kwarg of signature.kwargs) {
      if (!now.kwargs.includes(kwarg)) {
        out.push({
          field: `${method}(${kwarg})`,
          code: 'argument_removed',
          message: 'The RPC method no longer takes this argument.',
        });
      }
    }
  }
  return out;
}
