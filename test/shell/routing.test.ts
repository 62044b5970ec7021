/** The Desk's routes in the URL hash: a list's search, filters, sort and page survive a reload and a shared link. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_SIZE, emptyListState, formatRoute, parseRoute } from '../../src/shell/routing/route';

describe('list routes', () => {
  it('round-trips search, filters, sort, page and page size through the hash', () => {
    const route = {
      kind: 'list' as const,
      docType: 'support.Ticket',
      state: {
        q: 'printer',
        filters: { status: 'Open', priority: 'High' },
        sort: { field: 'subject', order: 'desc' as const },
        page: 3,
        pageSize: 50,
      },
    };
    const hash = formatRoute(route);
    expect(hash).toBe(
      '#/app/support.Ticket?q=printer&status=Open&priority=High&sort=subject%3Adesc&page=3&size=50',
    );
    expect(parseRoute(hash)).toEqual(route);
  });

  it('keeps a plain list plain, and reads it back as the first page with nothing filtered', () => {
    expect(formatRoute({ kind: 'list', docType: 'crm.Customer', state: emptyListState() })).toBe(
      '#/app/crm.Customer',
    );
    expect(parseRoute('#/app/crm.Customer')).toEqual({
      kind: 'list',
      docType: 'crm.Customer',
      state: { filters: {}, page: 1, pageSize: DEFAULT_PAGE_SIZE },
    });
  });

  it('falls back on the defaults for malformed page numbers and sorts', () => {
    const route = parseRoute('#/app/crm.Customer?page=-2&size=abc&sort=');
    expect(route).toMatchObject({ state: { page: 1, pageSize: DEFAULT_PAGE_SIZE } });
    expect(route.kind === 'list' && route.state?.sort).toBeUndefined();
  });

  it('still parses record and new-record routes', () => {
    expect(parseRoute('#/app/crm.Customer/new')).toEqual({ kind: 'new', docType: 'crm.Customer' });
    expect(parseRoute('#/app/crm.Customer/CUST-00001')).toEqual({
      kind: 'edit',
      docType: 'crm.Customer',
      id: 'CUST-00001',
    });
    expect(parseRoute('#/nowhere')).toEqual({ kind: 'home' });
  });
});

describe('the audit route', () => {
  it('round-trips its filters and page through the hash', () => {
    const route = {
      kind: 'audit' as const,
      filters: { doctype: 'crm.Customer', record: 'CUST-00001', user: 'sam' },
      page: 2,
    };
    const hash = formatRoute(route);
    expect(hash).toBe('#/audit?doctype=crm.Customer&record=CUST-00001&user=sam&page=2');
    expect(parseRoute(hash)).toEqual(route);
  });

  it('keeps an unfiltered first page plain, and ignores empty and unknown keys', () => {
    expect(formatRoute({ kind: 'audit' })).toBe('#/audit');
    expect(parseRoute('#/audit?user=&page=0&fields=email')).toEqual({ kind: 'audit', filters: {}, page: 1 });
    expect(parseRoute('#/audit/extra')).toEqual({ kind: 'home' });
  });

  it('carries the days of a range, and leaves out one that is not a day', () => {
    const route = { kind: 'audit' as const, filters: { from: '2026-11-01', to: '2026-11-30' }, page: 1 };
    expect(formatRoute(route)).toBe('#/audit?from=2026-11-01&to=2026-11-30');
    expect(parseRoute('#/audit?from=2026-11-01&to=2026-11-30')).toEqual(route);
    expect(parseRoute('#/audit?from=yesterday&to=2026-11-30T00:00')).toEqual({
      kind: 'audit',
      filters: {},
      page: 1,
    });
  });
});

describe('print routes', () => {
  it('round-trips a record print view through the hash, encoding the DocType and name', () => {
    const route = { kind: 'print' as const, docType: 'crm.Customer', id: 'CUST/00001' };
    const hash = formatRoute(route);
    expect(hash).toBe('#/app/crm.Customer/CUST%2F00001/print');
    expect(parseRoute(hash)).toEqual(route);
  });

  it('offers no print view of a new record, nor of anything past /print', () => {
    expect(parseRoute('#/app/crm.Customer/new/print')).toEqual({ kind: 'home' });
    expect(parseRoute('#/app/crm.Customer/CUST-00001/print/more')).toEqual({ kind: 'home' });
    expect(parseRoute('#/app/crm.Customer/CUST-00001/other')).toEqual({ kind: 'home' });
  });
});
