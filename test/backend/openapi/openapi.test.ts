import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApp } from '../../../backend/app';
import { PlatformError } from '../../../backend/http/errors';
import { buildOpenApi } from '../../../backend/openapi/build-openapi';
import { defineDocType } from '../../../src/contract/doctype';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: the document is free-form JSON
type Doc = any;

describe('GET /api/openapi.json', () => {
  it('documents DocTypes (flags as x-pii/x-encrypted), auth DTOs, RPC methods and the security endpoints', async () => {
    const res = await t.request('GET', '/api/openapi.json', { anonymous: true });
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Doc;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.schemas['crm.Customer'].properties.email['x-pii']).toBe(true);
    expect(doc.paths['/api/resource/crm.Customer'].post.requestBody).toBeDefined();
    expect(doc.paths['/api/resource/crm.Customer/{name}'].put).toBeDefined();
    expect(doc.paths['/api/method/login'].post.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/LoginRequest',
    );
    expect(doc.components.schemas.LoginRequest.required).toEqual(['usr', 'pwd']);
    expect(doc.paths['/api/method/crm.api.ping'].post).toBeDefined();
    expect(doc.paths['/api/v1/security/jwks'].get).toBeDefined();
    expect(doc.paths['/api/gateway/remotes'].get).toBeDefined();
  });

  it("publishes an RPC method's declared return schema as its response, inside the message envelope", async () => {
    const doc = (await (await t.request('GET', '/api/openapi.json', { anonymous: true })).json()) as Doc;
    const ok = doc.paths['/api/method/crm.api.customer_count'].post.responses[200];
    expect(ok.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/crm.api.customer_count response',
    );
    const response = doc.components.schemas['crm.api.customer_count response'];
    expect(response.required).toEqual(['message']);
    expect(response.properties.message).toMatchObject({ type: 'integer', minimum: 0 });
    expect(doc.components.schemas['crm.api.ping response'].properties.message).toMatchObject({
      const: 'pong',
    });
  });
});

describe('OpenAPI generation and the field flags (docs/security.md#field-flags)', () => {
  const base = { title: 'T', version: '1', doctypes: [], routes: [] };

  it('fails naming the DTO and the field when a request DTO carries a pii flag', () => {
    const SignupRequest = z.object({
      user: z.object({ email: z.email().meta({ pii: true }) }),
      password: z.string(),
    });
    let error: unknown;
    try {
      buildOpenApi({
        ...base,
        operations: [
          {
            method: 'POST',
            path: '/api/method/signup',
            request: { name: 'SignupRequest', schema: SignupRequest },
          },
        ],
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).code).toBe('openapi_invalid_dto');
    expect((error as PlatformError).message).toContain('field "user.email" of DTO "SignupRequest"');
    expect((error as PlatformError).message).toContain('"pii"');
  });

  it('fails for an encrypted flag on a response DTO, inside arrays and optionals', () => {
    const Tokens = z.object({
      items: z.array(z.object({ secret: z.string().meta({ encrypted: true }).optional() })),
    });
    expect(() =>
      buildOpenApi({
        ...base,
        operations: [
          { method: 'GET', path: '/api/method/tokens', response: { name: 'TokenList', schema: Tokens } },
        ],
      }),
    ).toThrow(/field "items\[\]\.secret" of DTO "TokenList" carries the "encrypted" flag/);
  });

  it('accepts the flags on DocType models, also nested in a DTO', () => {
    const Patient = defineDocType({
      name: 'clinic.Patient',
      label: 'Patient',
      titleField: 'full_name',
      model: z.object({ full_name: z.string(), ssn: z.string().meta({ encrypted: true }) }),
    });
    const doc = buildOpenApi({
      ...base,
      doctypes: [Patient],
      operations: [
        {
          method: 'GET',
          path: '/api/method/clinic.latest',
          response: { name: 'LatestPatient', schema: z.object({ data: Patient.model }) },
        },
      ],
    });
    expect(doc.components.schemas['clinic.Patient'].properties.ssn['x-encrypted']).toBe(true);
  });

  it('stops the app from being built when an RPC method’s kwargs DTO carries a flag', () => {
    const flagged = {
      description: 'Registers a newsletter subscriber.',
      kwargs: z.object({ email: z.email().meta({ pii: true }) }),
      handler: () => 'ok',
    };
    const rpc = {
      get: (name: string) => (name === 'crm.api.subscribe' ? flagged : t.ctx.rpc.get(name)),
      list: () => [...t.ctx.rpc.list(), 'crm.api.subscribe'],
    };
    expect(() => createApp({ ...t.ctx, rpc })).toThrow(
      /field "email" of DTO "crm\.api\.subscribe kwargs" carries the "pii" flag/,
    );
  });
});
