/**
 * The global search's fan-out over services whose answers are scripted: results merge grouped by DocType, the
 * caller's credentials go with every sub-request, and a slow or failing service is left out with a note.
 */
import { describe, expect, it } from 'vitest';
import { likePattern, searchEverywhere } from '../../../backend/search/fan-out';

type Answer = { status?: number; body: unknown; delayMs?: number };

/** A dispatch answering per path; records what it was asked. */
function scripted(answers: Record<string, Answer | ((url: URL) => Answer)>) {
  const seen: Request[] = [];
  const dispatch = async (request: Request): Promise<Response> => {
    seen.push(request);
    const url = new URL(request.url);
    const entry = answers[url.pathname];
    const answer = typeof entry === 'function' ? entry(url) : entry;
    if (!answer) return Response.json({ error: { code: 'not_found', message: 'No.' } }, { status: 404 });
    if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
    return Response.json(answer.body, { status: answer.status ?? 200 });
  };
  return { dispatch, seen };
}

const base = new Request('http://desk.test/api/search?q=ada', { headers: { cookie: 'sid=abc' } });

describe('searchEverywhere', () => {
  it('asks every service for its DocTypes and each DocType for titles like the text, grouped by DocType', async () => {
    const { dispatch, seen } = scripted({
      '/api/meta/crm': {
        body: { doctypes: [{ name: 'crm.Customer', label: 'Customer', titleField: 'customer_name' }] },
      },
      '/api/meta/support': {
        body: { doctypes: [{ name: 'support.Ticket', label: 'Ticket', titleField: 'subject' }] },
      },
      '/api/resource/crm.Customer': {
        body: { data: [{ name: 'CUST-00001', customer_name: 'Ada Lovelace' }], total: 1 },
      },
      '/api/resource/support.Ticket': { body: { data: [], total: 0 } },
    });
    const answer = await searchEverywhere(
      { services: () => [{ service: 'crm' }, { service: 'support' }], dispatch, timeoutMs: 1000 },
      base,
      'ada',
    );
    expect(answer).toEqual({
      q: 'ada',
      groups: [
        { docType: 'crm.Customer', label: 'Customer', hits: [{ name: 'CUST-00001', title: 'Ada Lovelace' }] },
      ],
      incomplete: [],
    });
    const list = seen.find((r) => r.url.includes('/api/resource/crm.Customer'))!;
    const params = new URL(list.url).searchParams;
    expect(JSON.parse(params.get('filters')!)).toEqual([['customer_name', 'like', '%ada%']]);
    expect(list.headers.get('cookie')).toBe('sid=abc');
    expect(list.headers.get('x-platform-service')).toBe('crm');
  });

  it('leaves out a slow service and a failing one, naming them, and keeps the others', async () => {
    const { dispatch } = scripted({
      '/api/meta/crm': {
        body: { doctypes: [{ name: 'crm.Customer', label: 'Customer', titleField: 'customer_name' }] },
      },
      '/api/resource/crm.Customer': { body: { data: [{ name: 'CUST-1', customer_name: 'Ada' }] } },
      '/api/meta/stock': { body: { doctypes: [] }, delayMs: 500 },
      '/api/meta/support': {
        status: 503,
        body: { error: { code: 'service_unavailable', message: 'Down.' } },
      },
    });
    const answer = await searchEverywhere(
      {
        services: () => [{ service: 'crm' }, { service: 'stock' }, { service: 'support' }],
        dispatch,
        timeoutMs: 100,
      },
      base,
      'ada',
    );
    expect(answer.groups.map((g) => g.docType)).toEqual(['crm.Customer']);
    expect(answer.incomplete).toEqual([
      { service: 'stock', reason: 'timeout' },
      { service: 'support', reason: 'unavailable' },
    ]);
  });

  it('counts a DocType the caller may not read (403) as no hits, and the service as answered', async () => {
    const { dispatch } = scripted({
      '/api/meta/crm': {
        body: {
          doctypes: [
            { name: 'crm.Customer', label: 'Customer', titleField: 'customer_name' },
            { name: 'crm.Lead', label: 'Lead', titleField: 'lead_name' },
          ],
        },
      },
      '/api/resource/crm.Customer': { body: { data: [{ name: 'CUST-1', customer_name: 'Ada' }] } },
      '/api/resource/crm.Lead': {
        status: 403,
        body: { error: { code: 'forbidden', message: 'You may not read crm.Lead.' } },
      },
    });
    const answer = await searchEverywhere(
      { services: () => [{ service: 'crm' }], dispatch, timeoutMs: 1000 },
      base,
      'ada',
    );
    expect(answer.groups.map((g) => g.docType)).toEqual(['crm.Customer']);
    expect(answer.incomplete).toEqual([]);
  });

  it('still names a service unavailable when one of its DocTypes fails otherwise (500)', async () => {
    const { dispatch } = scripted({
      '/api/meta/crm': {
        body: { doctypes: [{ name: 'crm.Lead', label: 'Lead', titleField: 'lead_name' }] },
      },
      '/api/resource/crm.Lead': { status: 500, body: { error: { code: 'internal', message: 'No.' } } },
    });
    const answer = await searchEverywhere(
      { services: () => [{ service: 'crm' }], dispatch, timeoutMs: 1000 },
      base,
      'ada',
    );
    expect(answer).toEqual({ q: 'ada', groups: [], incomplete: [{ service: 'crm', reason: 'unavailable' }] });
  });

  it('counts a filter the list API refuses (400) on one DocType as no hits, keeping the service and its other hits', async () => {
    const lists: string[] = [];
    const { dispatch } = scripted({
      '/api/meta/vt': {
        body: {
          doctypes: [
            {
              name: 'vt.Patient',
              label: 'Patient',
              titleField: 'full_name',
              fields: [
                { name: 'full_name', type: 'data' },
                // Typed as text here, so the search asks it; the service still refuses the filter.
                { name: 'score', type: 'data', pii: true },
              ],
            },
            { name: 'vt.Visit', label: 'Visit', titleField: 'subject' },
          ],
        },
      },
      '/api/resource/vt.Patient': (url) => {
        const [[field]] = JSON.parse(url.searchParams.get('filters')!) as [[string]];
        lists.push(field);
        if (field === 'score') {
          return {
            status: 400,
            body: { error: { code: 'invalid_filters', message: 'filters[0] value must be a number.' } },
          };
        }
        return { body: { data: [{ name: 'PAT-1', full_name: 'Ada Lovelace' }] } };
      },
      '/api/resource/vt.Visit': { body: { data: [{ name: 'VIS-1', subject: 'Ada, first visit' }] } },
    });
    const answer = await searchEverywhere(
      { services: () => [{ service: 'vt' }], dispatch, timeoutMs: 1000 },
      base,
      'Ada Lovelace',
    );
    expect(lists).toEqual(['full_name', 'score']);
    expect(answer.incomplete).toEqual([]);
    expect(answer.groups).toEqual([
      { docType: 'vt.Patient', label: 'Patient', hits: [{ name: 'PAT-1', title: 'Ada Lovelace' }] },
      { docType: 'vt.Visit', label: 'Visit', hits: [{ name: 'VIS-1', title: 'Ada, first visit' }] },
    ]);
  });

  it('asks a number flagged field only for a number', async () => {
    const asked: string[] = [];
    const { dispatch } = scripted({
      '/api/meta/vt': {
        body: {
          doctypes: [
            {
              name: 'vt.Patient',
              label: 'Patient',
              titleField: 'full_name',
              fields: [
                { name: 'full_name', type: 'data' },
                { name: 'score', type: 'int', pii: true },
              ],
            },
          ],
        },
      },
      '/api/resource/vt.Patient': (url) => {
        asked.push(url.searchParams.get('filters')!);
        return { body: { data: [] } };
      },
    });
    const deps = { services: () => [{ service: 'vt' }], dispatch, timeoutMs: 1000 };
    await searchEverywhere(deps, base, 'Ada Lovelace');
    expect(asked.map((f) => JSON.parse(f)[0][0])).toEqual(['full_name']);
    asked.length = 0;
    await searchEverywhere(deps, base, '42');
    expect(asked.map((f) => JSON.parse(f)[0])).toEqual([
      ['full_name', 'like', '%42%'],
      ['score', '=', '42'],
    ]);
  });

  it('asks a flagged field for no more records than can be shown, and not at all when the title filled them', async () => {
    const asked: Array<[string, string]> = [];
    const rows = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({ name: `${prefix}-${i}`, customer_name: `${prefix} ${i}` }));
    let titleRows = 5;
    const { dispatch } = scripted({
      '/api/meta/crm': {
        body: {
          doctypes: [
            {
              name: 'crm.Customer',
              label: 'Customer',
              titleField: 'customer_name',
              fields: [
                { name: 'customer_name', type: 'data' },
                { name: 'email', type: 'data', pii: true },
                { name: 'phone', type: 'data', pii: true },
              ],
            },
          ],
        },
      },
      '/api/resource/crm.Customer': (url) => {
        const [[field]] = JSON.parse(url.searchParams.get('filters')!) as [[string]];
        const limit = url.searchParams.get('limit_page_length')!;
        asked.push([field, limit]);
        // Each list returns what it is asked for: a record it returns is one the data API audits.
        const n = field === 'customer_name' ? titleRows : 5;
        return { body: { data: rows(field, Math.min(n, Number(limit))) } };
      },
    });
    const deps = { services: () => [{ service: 'crm' }], dispatch, timeoutMs: 1000 };
    const full = await searchEverywhere(deps, base, 'x@example.com');
    expect(asked).toEqual([['customer_name', '5']]);
    expect(full.groups[0]!.hits).toHaveLength(5);
    asked.length = 0;
    titleRows = 2;
    const mixed = await searchEverywhere(deps, base, 'x@example.com');
    expect(asked).toEqual([
      ['customer_name', '5'],
      ['email', '3'],
    ]);
    expect(mixed.groups[0]!.hits.map((h) => h.name)).toEqual([
      'customer_name-0',
      'customer_name-1',
      'email-0',
      'email-1',
      'email-2',
    ]);
  });

  it('shows what a failing service had found (its lists audited it) while naming the service unavailable', async () => {
    const { dispatch } = scripted({
      '/api/meta/crm': {
        body: {
          doctypes: [
            { name: 'crm.Customer', label: 'Customer', titleField: 'customer_name' },
            { name: 'crm.Lead', label: 'Lead', titleField: 'lead_name' },
          ],
        },
      },
      '/api/resource/crm.Customer': { body: { data: [{ name: 'CUST-1', customer_name: 'Ada' }] } },
      '/api/resource/crm.Lead': { status: 500, body: { error: { code: 'internal', message: 'No.' } } },
    });
    const answer = await searchEverywhere(
      { services: () => [{ service: 'crm' }], dispatch, timeoutMs: 1000 },
      base,
      'ada',
    );
    expect(answer.groups).toEqual([
      { docType: 'crm.Customer', label: 'Customer', hits: [{ name: 'CUST-1', title: 'Ada' }] },
    ]);
    expect(answer.incomplete).toEqual([{ service: 'crm', reason: 'unavailable' }]);
  });

  it("sends no request after a service's deadline", async () => {
    const asked: string[] = [];
    const { dispatch } = scripted({
      '/api/meta/crm': {
        body: {
          doctypes: [
            {
              name: 'crm.Customer',
              label: 'Customer',
              titleField: 'customer_name',
              fields: [{ name: 'email', type: 'data', pii: true }],
            },
          ],
        },
      },
      '/api/resource/crm.Customer': (url) => {
        const [[field]] = JSON.parse(url.searchParams.get('filters')!) as [[string]];
        asked.push(field);
        return {
          body: { data: [{ name: 'CUST-1', customer_name: 'Ada' }] },
          delayMs: field === 'customer_name' ? 150 : 0,
        };
      },
    });
    const answer = await searchEverywhere(
      { services: () => [{ service: 'crm' }], dispatch, timeoutMs: 50 },
      base,
      'ada',
    );
    expect(answer.incomplete).toEqual([{ service: 'crm', reason: 'timeout' }]);
    await new Promise((r) => setTimeout(r, 250));
    expect(asked).toEqual(['customer_name']);
  });

  it('matches the text literally: % and _ are not wildcards', () => {
    expect(likePattern('50%_off')).toBe('%50\\%\\_off%');
  });
});
