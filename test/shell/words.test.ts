/** Words for people: counted nouns by the plural rules, and failures described without codes or internals. */
import { describe, expect, it } from 'vitest';
import { failureWords } from '../../src/shell/words/failure';
import { countOf, plural, pluralLabel } from '../../src/shell/words/plural';

describe('plurals', () => {
  it('says "1 customer" and "2 customers", never "1 customers"', () => {
    expect(countOf(1, 'Customer')).toBe('1 customer');
    expect(countOf(0, 'Customer')).toBe('0 customers');
    expect(countOf(2, 'Customer')).toBe('2 customers');
    expect(countOf(1200, 'Item')).toBe('1,200 items');
  });

  it('follows the language plural rules of the locale', () => {
    expect(plural(1, 'record', 'records')).toBe('1 record');
    expect(plural(1.5, 'record', 'records')).toBe('1.5 records');
  });

  it('forms English label plurals', () => {
    expect(pluralLabel('Company')).toBe('Companies');
    expect(pluralLabel('Address')).toBe('Addresses');
    expect(pluralLabel('Ticket')).toBe('Tickets');
  });
});

describe('failureWords', () => {
  it('explains a missing record without offering to retry', () => {
    const words = failureWords({ code: 'not_found', status: 404, message: 'No such record.' });
    expect(words.retryable).toBe(false);
    expect(words.message).not.toContain('not_found');
    expect(words.code).toBe('not_found');
  });

  it('offers to retry a failure that may pass (a 503, a network error)', () => {
    expect(failureWords({ code: 'service_unavailable', status: 503 }).retryable).toBe(true);
    expect(failureWords({ code: 'network_error' }).retryable).toBe(true);
    expect(failureWords(new Error('boom')).retryable).toBe(true);
  });

  it('has a message for each data-integrity refusal', () => {
    expect(failureWords({ code: 'duplicate', status: 409 }).message).toContain('already has this value');
    expect(failureWords({ code: 'link_not_found', status: 422 }).message).toContain('linked record');
    expect(failureWords({ code: 'linked', status: 409 }).message).toContain('refer to this one');
  });

  it('says what a refusal about personal data means, and that retrying will not help', () => {
    for (const [code, status] of [
      ['integrity_failed', 500],
      ['masked_value', 422],
      ['field_encrypted', 400],
    ] as const) {
      const words = failureWords({ code, status, message: 'technical' });
      expect(words.retryable).toBe(false);
      expect(words.message).toMatch(/personal data/i);
    }
  });

  it('never puts the code or the technical message in the words for people', () => {
    const words = failureWords({ code: 'remote_load_failed', message: 'could not load ./views' });
    expect(words.message).not.toMatch(/remote_load_failed|\.\/views/);
    expect(words.technical).toBe('could not load ./views');
  });
});
