/**
 * TypeScript declarations for the DocTypes and RPC methods a gateway knows: per DocType its record, create
 * and update bodies (from each service's metadata), per RPC method its kwargs and return type (from each
 * service's OpenAPI document), and the map of the modules the services' UI remotes expose
 * (types-remotes.ts). Pure: the fetching lives in types-fetch.ts.
 */
import { type DocTypeSchema, type FieldSchema, PII_MASK, type ServiceMetadata } from '../../protocol';
import { type ExposedModules, remoteModulesMap } from './types-remotes';

/** A JSON Schema node as OpenAPI documents carry it (the subset the converter reads). */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  additionalProperties?: boolean | JsonSchema;
}

/** Everything {@link renderTypes} needs. */
export interface TypesInput {
  gateway: string;
  services: ServiceMetadata[];
  /** RPC method name -> its kwargs schema. */
  methods: Record<string, JsonSchema>;
  /** RPC method name -> the schema of its value (the response's `message`), for methods that declare one. */
  returns: Record<string, JsonSchema>;
  /** Service -> the modules its UI remote's `mf-manifest.json` lists. */
  remotes: ExposedModules;
}

/** `crm.Customer` -> `CrmCustomer`. */
export function typeName(docType: string): string {
  return docType
    .split(/[._]/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/** The TypeScript type of one field. */
export function fieldType(field: FieldSchema): string {
  switch (field.type) {
    case 'int':
    case 'float':
    case 'currency':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'select':
      return field.options?.length ? field.options.map((o) => JSON.stringify(o)).join(' | ') : 'string';
    default:
      return 'string';
  }
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));

/**
 * A field's doc comment: its label, and for a flagged field what a team's code meets
 * (docs/permissions.md#personal-data): the value travels and rests encrypted, a reader without `read_pii`
 * receives the mask, and lists can only test it for equality.
 */
function comment(field: FieldSchema): string {
  const flags = [field.pii ? 'personal data (pii)' : '', field.encrypted ? 'encrypted' : ''].filter(Boolean);
  if (flags.length === 0) return `  /** ${field.label} */\n`;
  return (
    `  /** ${field.label}; ${flags.join(', ')}: encrypted in the browser and at rest; "${PII_MASK}" for a ` +
    'reader without read_pii; filtered with =, != or in only */\n'
  );
}

function docTypeBlock(doctype: DocTypeSchema): string {
  const name = typeName(doctype.name);
  const fields = (required: (f: FieldSchema) => boolean) =>
    doctype.fields
      .map((f) => `${comment(f)}  ${key(f.name)}${required(f) ? '' : '?'}: ${fieldType(f)};\n`)
      .join('');
  return (
    `/** A stored \`${doctype.name}\` record (${doctype.label}); \`name\` is its id. */\n` +
    `export interface ${name} {\n  name: string;\n${fields((f) => f.required)}}\n\n` +
    `/** The body that creates a \`${doctype.name}\`. */\n` +
    `export interface ${name}Create {\n${fields((f) => f.required)}}\n\n` +
    `/** The body that updates a \`${doctype.name}\`: any of its fields. */\n` +
    `export type ${name}Update = Partial<${name}Create>;\n`
  );
}

/** The TypeScript type of a JSON Schema node (objects, arrays, enums, unions, scalars). */
export function schemaType(schema: JsonSchema | undefined, indent = ''): string {
  if (!schema) return 'unknown';
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ') || 'never';
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map((s) => schemaType(s, indent)).join(' | ') || 'unknown';
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length > 1) return types.map((t) => schemaType({ ...schema, type: t }, indent)).join(' | ');
  switch (types[0]) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `Array<${schemaType(schema.items, indent)}>`;
    case 'object': {
      const props = Object.entries(schema.properties ?? {});
      if (props.length === 0) return 'Record<string, never>';
      const required = new Set(schema.required ?? []);
      const inner = props
        .map(
          ([k, v]) => `${indent}  ${key(k)}${required.has(k) ? '' : '?'}: ${schemaType(v, `${indent}  `)};\n`,
        )
        .join('');
      return `{\n${inner}${indent}}`;
    }
    default:
      return 'unknown';
  }
}

/**
 * The whole declarations file.
 *
 * @param remoteModulesFile the companion file of the remotes' `declare module` declarations, referenced from
 *   the top so a program that includes this file has them too.
 */
export function renderTypes(input: TypesInput, remoteModulesFile?: string): string {
  const doctypes = input.services.flatMap((s) => s.doctypes).sort((a, b) => a.name.localeCompare(b.name));
  const methods = Object.keys(input.methods).sort();
  let out = remoteModulesFile ? `/// <reference path=${JSON.stringify(`./${remoteModulesFile}`)} />\n` : '';
  out +=
    `// Types of the DocTypes, RPC methods and remote modules known to ${input.gateway}, written by \`m types\`.\n` +
    '// Regenerate instead of editing: the services own these shapes.\n\n';
  for (const doctype of doctypes) out += `${docTypeBlock(doctype)}\n`;
  out +=
    '/** Every DocType by full name: its record, create and update types. */\nexport interface DocTypes {\n';
  for (const d of doctypes) {
    const n = typeName(d.name);
    out += `  ${JSON.stringify(d.name)}: { record: ${n}; create: ${n}Create; update: ${n}Update };\n`;
  }
  out +=
    '}\n\n/**\n * Every RPC method by full name: the kwargs its JSON body carries and `returns`, the value it answers\n' +
    " * (the response's `message`; `unknown` when the method declares none).\n */\nexport interface RpcMethods {\n";
  for (const m of methods) {
    const returns = input.returns[m] ? schemaType(input.returns[m], '  ') : 'unknown';
    out += `  ${JSON.stringify(m)}: { kwargs: ${schemaType(input.methods[m], '  ')}; returns: ${returns} };\n`;
  }
  out += '}\n\n/** Full DocType names. */\nexport type DocTypeName = keyof DocTypes;\n';
  out += `\n${remoteModulesMap(input.remotes)}`;
  return out;
}
