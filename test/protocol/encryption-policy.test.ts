import { describe, expect, it } from 'vitest';
import {
  BUILTIN_SELECTIVE_ROUTES,
  type FlaggedSchema,
  globToRegExp,
  hasFlaggedFields,
  isMutating,
  isSafeMethod,
  matchesRoute,
  requiresEncryption,
} from '../../src/protocol';

const flagged: FlaggedSchema = { fields: [{}, { pii: true }] };
const encrypted: FlaggedSchema = { fields: [{ encrypted: true }] };
const plain: FlaggedSchema = { fields: [{}, { encrypted: false, pii: false }] };
const MUTATING = ['POST', 'PUT', 'PATCH', 'DELETE'];
const READS = ['GET', 'HEAD', 'OPTIONS'];

describe('requiresEncryption: the mode table', () => {
  it('disabled never encrypts, whatever the method, path or schema', () => {
    for (const method of [...MUTATING, ...READS]) {
      expect(requiresEncryption({ mode: 'disabled' }, method, '/api/method/login', flagged)).toBe(false);
    }
  });

  it('selective encrypts exactly the paths that match a route glob', () => {
    const rule = { mode: 'selective' as const, routes: [...BUILTIN_SELECTIVE_ROUTES, '/api/method/crm.*'] };
    expect(requiresEncryption(rule, 'POST', '/api/method/login')).toBe(true);
    expect(requiresEncryption(rule, 'POST', '/api/method/platform.auth.change_password')).toBe(true);
    expect(requiresEncryption(rule, 'POST', '/api/method/platform.auth.generate_api_key')).toBe(true);
    expect(requiresEncryption(rule, 'POST', '/api/method/crm.convert')).toBe(true);
    expect(requiresEncryption(rule, 'POST', '/api/method/stock.convert')).toBe(false);
    // The schema plays no part in selective mode.
    expect(requiresEncryption(rule, 'POST', '/api/resource/crm.Customer', flagged)).toBe(false);
    expect(requiresEncryption({ mode: 'selective' }, 'POST', '/api/method/login')).toBe(false);
  });

  it('metadata encrypts mutating requests whose schema has an encrypted or pii field', () => {
    const rule = { mode: 'metadata' as const };
    for (const method of MUTATING) {
      expect(requiresEncryption(rule, method, '/api/resource/crm.Customer', flagged)).toBe(true);
      expect(requiresEncryption(rule, method.toLowerCase(), '/api/resource/crm.Customer', encrypted)).toBe(
        true,
      );
      expect(requiresEncryption(rule, method, '/api/resource/stock.Item', plain)).toBe(false);
      expect(requiresEncryption(rule, method, '/api/resource/stock.Item')).toBe(false);
    }
    for (const method of READS) {
      expect(requiresEncryption(rule, method, '/api/resource/crm.Customer', flagged)).toBe(false);
    }
  });

  it("metadata leaves a record's attachment upload in plaintext (a file, not the record's fields)", () => {
    const rule = { mode: 'metadata' as const };
    expect(requiresEncryption(rule, 'POST', '/api/resource/crm.Customer/CUST-1/attachments', flagged)).toBe(
      false,
    );
    // Only the upload itself: the record and anything deeper still follow the rule.
    expect(requiresEncryption(rule, 'PUT', '/api/resource/crm.Customer/CUST-1', flagged)).toBe(true);
    expect(requiresEncryption(rule, 'POST', '/api/resource/crm.Customer/CUST-1/attachments/x', flagged)).toBe(
      true,
    );
    expect(requiresEncryption({ mode: 'strict' }, 'POST', '/api/resource/crm.Customer/C/attachments')).toBe(
      true,
    );
  });

  it('strict encrypts every mutating request and no read', () => {
    const rule = { mode: 'strict' as const };
    for (const method of MUTATING) {
      expect(requiresEncryption(rule, method, '/api/resource/stock.Item')).toBe(true);
      expect(requiresEncryption(rule, method.toLowerCase(), '/api/method/crm.convert')).toBe(true);
      expect(requiresEncryption(rule, method, '/api/method/login')).toBe(true);
    }
    for (const method of READS)
      expect(requiresEncryption(rule, method, '/api/resource/stock.Item')).toBe(false);
  });

  it('strict leaves discovery and the security endpoints in plaintext, on both sides of the wire', () => {
    const rule = { mode: 'strict' as const };
    expect(requiresEncryption(rule, 'POST', '/api/gateway/discovery/query')).toBe(false);
    expect(requiresEncryption(rule, 'POST', '/api/v1/security/config')).toBe(false);
    // Only the exact prefixes are exempt: a look-alike path is not.
    expect(requiresEncryption(rule, 'POST', '/api/gatewayx/discovery/query')).toBe(true);
    expect(requiresEncryption(rule, 'POST', '/api/v1/securityx')).toBe(true);
  });

  it('an unknown mode (a newer server) encrypts rather than risk plaintext', () => {
    const rule = { mode: 'paranoid' } as unknown as Parameters<typeof requiresEncryption>[0];
    expect(requiresEncryption(rule, 'GET', '/api/resource/stock.Item')).toBe(true);
  });
});

describe('route matching', () => {
  it('* stays inside one segment, ** crosses segments, everything else is literal', () => {
    expect(globToRegExp('/api/method/crm.*').test('/api/method/crm.convert')).toBe(true);
    expect(globToRegExp('/api/method/crm.*').test('/api/method/crm.a/b')).toBe(false);
    expect(globToRegExp('/api/resource/**').test('/api/resource/crm.Lead/LEAD-1')).toBe(true);
    expect(globToRegExp('/api/method/login').test('/api/method/loginx')).toBe(false);
    expect(globToRegExp('/api/method/crm.*').test('/api/method/crmXconvert')).toBe(false);
  });

  it('matchesRoute checks a path against every glob', () => {
    expect(matchesRoute('/api/method/crm.convert', ['/api/method/login', '/api/method/crm.*'])).toBe(true);
    expect(matchesRoute('/api/method/stock.convert', ['/api/method/login', '/api/method/crm.*'])).toBe(false);
    expect(matchesRoute('/api/method/login', [])).toBe(false);
  });
});

describe('field flags and method classes', () => {
  it('a schema is flagged by any encrypted or pii field, and no schema is not flagged', () => {
    expect(hasFlaggedFields(flagged)).toBe(true);
    expect(hasFlaggedFields(encrypted)).toBe(true);
    expect(hasFlaggedFields(plain)).toBe(false);
    expect(hasFlaggedFields(undefined)).toBe(false);
  });

  it('POST PUT PATCH DELETE are mutating; GET HEAD OPTIONS are safe; letter case does not matter', () => {
    for (const method of MUTATING) {
      expect(isMutating(method)).toBe(true);
      expect(isMutating(method.toLowerCase())).toBe(true);
      expect(isSafeMethod(method)).toBe(false);
    }
    for (const method of READS) {
      expect(isMutating(method)).toBe(false);
      expect(isSafeMethod(method.toLowerCase())).toBe(true);
    }
  });
});
