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

  it('matches the text literally: % and _ are not wildcards', () => {
    expect(likePattern('50%_off')).toBe('%50\\%\\_off%');
  });
});
