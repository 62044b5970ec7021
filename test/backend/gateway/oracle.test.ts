import { describe, expect, it } from 'vitest';
import {
  answerDiscoveryQuery,
  type DiscoveryLimits,
  lookupOwner,
  parseDiscoveryQuery,
  remotesMap,
} from '../../../backend/gateway/oracle';
import { createStaticDirectory } from '../../../backend/gateway/service-directory';
import type { ServiceManifest } from '../../../src/protocol';

const limits: DiscoveryLimits = { maxResources: 500, maxBodyBytes: 65_536 };

const crm: ServiceManifest = {
  service: 'crm',
  rev: 7,
  url: 'http://h/desk/assets/crm/remoteEntry.js',
  apiUrl: 'http://h/api',
  metaUrl: 'http://h/api/meta/crm',
  openapiUrl: 'http://h/api/openapi.json',
  doctypes: ['crm.Customer', 'crm.Lead'],
};
const stock: ServiceManifest = { ...crm, service: 'stock', rev: 3, url: null, doctypes: ['stock.Item'] };
const directory = createStaticDirectory([stock, crm]);

function codeOf(fn: () => unknown): { code?: string; status?: number; message?: string } {
  try {
    fn();
  } catch (err) {
    return err as { code?: string; status?: number; message?: string };
  }
  return {};
}

describe('parseDiscoveryQuery', () => {
  it('accepts resources and services and drops duplicate resources', () => {
    const q = parseDiscoveryQuery(
      JSON.stringify({ resources: ['crm.Customer', 'crm.Customer', 'stock.Item'], services: { crm: 0 } }),
      limits,
    );
    expect(q).toEqual({ resources: ['crm.Customer', 'stock.Item'], services: { crm: 0 } });
  });

  it('keeps remotes: true and drops remotes: false', () => {
    expect(parseDiscoveryQuery('{"resources":[],"remotes":true}', limits)).toEqual({
      resources: [],
      remotes: true,
    });
    expect(parseDiscoveryQuery('{"resources":[],"remotes":false}', limits)).toEqual({ resources: [] });
  });

  it.each([
    ['not JSON', '{"resources":'],
    ['a non-object body', '[1,2]'],
    ['missing resources', '{}'],
    ['a name without an app', '{"resources":["Customer"]}'],
    ['a lower-case DocType', '{"resources":["crm.customer"]}'],
    ['a path in a name', '{"resources":["../crm.Customer"]}'],
    ['a non-string entry', '{"resources":["crm.Customer", 42]}'],
    ['a null entry', '{"resources":[null]}'],
    ['services as an array', '{"resources":[],"services":[]}'],
    ['a negative revision', '{"resources":[],"services":{"crm":-1}}'],
    ['a fractional revision', '{"resources":[],"services":{"crm":1.5}}'],
    ['a bad service name', '{"resources":[],"services":{"Crm!":0}}'],
    ['remotes that is not a boolean', '{"resources":[],"remotes":"yes"}'],
  ])('rejects %s with 400 invalid_query', (_label, body) => {
    expect(codeOf(() => parseDiscoveryQuery(body, limits))).toMatchObject({
      code: 'invalid_query',
      status: 400,
    });
  });

  it('names the offending position without echoing it', () => {
    const err = codeOf(() =>
      parseDiscoveryQuery('{"resources":["crm.Customer","<script>x</script>"]}', limits),
    );
    expect(err.message).toContain('resources[1]');
    expect(err.message).not.toContain('<script>');
  });

  it('rejects more resources than the limit', () => {
    const resources = Array.from({ length: 10_000 }, (_, i) => `app.Doc${i}`);
    const err = codeOf(() => parseDiscoveryQuery({ resources }, limits));
    expect(err).toMatchObject({ code: 'invalid_query', status: 400 });
  });

  it('answers 413 for a body over the byte limit before parsing it', () => {
    const body = `{"resources":["${'a'.repeat(5 * 1024 * 1024)}`; // not even valid JSON: never parsed
    expect(codeOf(() => parseDiscoveryQuery(body, limits))).toMatchObject({
      code: 'payload_too_large',
      status: 413,
    });
  });

  it('counts bytes, not characters', () => {
    const name = `"${'é'.repeat(40)}"`; // 40 characters, 80 bytes
    expect(codeOf(() => parseDiscoveryQuery(name, { maxResources: 5, maxBodyBytes: 60 }))).toMatchObject({
      status: 413,
    });
  });
});

describe('answerDiscoveryQuery', () => {
  it('maps owners, null for unknown, and sends manifests the client lacks', () => {
    const result = answerDiscoveryQuery(directory, {
      resources: ['crm.Customer', 'stock.Item', 'nope.Nope'],
      services: { crm: 0 },
    });
    expect(result.resources).toEqual({ 'crm.Customer': 'crm', 'stock.Item': 'stock', 'nope.Nope': null });
    expect(result.services.crm).toEqual(crm);
    expect(result.services.stock).toEqual(stock);
  });

  it('leaves out a manifest the client holds at the current rev', () => {
    const result = answerDiscoveryQuery(directory, { resources: ['crm.Customer'], services: { crm: 7 } });
    expect(result.resources).toEqual({ 'crm.Customer': 'crm' });
    expect(result.services).toEqual({});
  });

  it('sends a requested manifest newer than the client’s even without resources', () => {
    const result = answerDiscoveryQuery(directory, { resources: [], services: { crm: 6, ghost: 0 } });
    expect(Object.keys(result.services)).toEqual(['crm']);
  });

  it('names the entry of every service with a UI remote only when asked, whatever the client holds', () => {
    const asked = answerDiscoveryQuery(directory, { resources: [], services: { crm: 7 }, remotes: true });
    expect(asked).toEqual({ resources: {}, services: {}, remotes: { crm: crm.url } });
    expect('remotes' in answerDiscoveryQuery(directory, { resources: [], services: { crm: 7 } })).toBe(false);
  });
});

describe('remotesMap and lookupOwner', () => {
  it('lists only services with a UI remote', () => {
    expect(remotesMap(directory)).toEqual({
      crm: { url: crm.url, apiUrl: crm.apiUrl, metaUrl: crm.metaUrl, openapiUrl: crm.openapiUrl },
    });
  });

  it('finds the owner, 404s an unknown resource and 400s a malformed one', () => {
    expect(lookupOwner(directory, 'stock.Item')).toEqual({ owner: 'stock' });
    expect(codeOf(() => lookupOwner(directory, 'nope.Nope'))).toMatchObject({
      code: 'unknown_resource',
      status: 404,
    });
    expect(codeOf(() => lookupOwner(directory, 'nope'))).toMatchObject({
      code: 'invalid_query',
      status: 400,
    });
  });
});
