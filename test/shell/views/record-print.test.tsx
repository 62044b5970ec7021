/**
 * A record's print view against the mock backend: the title, each field's label and value as the user may
 * see it (a linked record by its title, masked personal data still masked), when it was created and last
 * changed and by whom, a Print button that opens the browser's print dialog, and a way back to the record.
 */
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type DocTypeSchema, PII_MASK } from '../../../src/protocol';
import { fetchServiceMetadata } from '../../../src/sdk/data';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import { RecordPrint } from '../../../src/shell/views/RecordPrint';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import { DeskFrame, testPlatform } from '../support/desk-frame';

let backend: TestBackend;
let ticket: DocTypeSchema;
let customer: DocTypeSchema;
beforeAll(async () => {
  backend = await startBackend();
  ticket = (await fetchServiceMetadata(`${ORIGIN}/api/meta/support`)).doctypes.find(
    (d) => d.name === 'support.Ticket',
  )!;
  customer = (await fetchServiceMetadata(`${ORIGIN}/api/meta/crm`)).doctypes.find(
    (d) => d.name === 'crm.Customer',
  )!;
});
afterEach(() => {
  cleanup();
  DiscoveryClient.reset();
  vi.restoreAllMocks();
  backend.server.resetHandlers();
  backend.env.store.clear();
});
afterAll(() => backend.server.close());

function renderPrint(schema: DocTypeSchema, id: string) {
  render(
    <DeskFrame platform={testPlatform()}>
      <RecordPrint docType={schema.name} schema={schema} id={id} />
    </DeskFrame>,
  );
}

/** The printed fields, label -> value text. */
function printedFields(article: HTMLElement): Record<string, string> {
  const out: Record<string, string> = {};
  for (const row of article.querySelectorAll('.desk-print__field')) {
    out[row.querySelector('dt')!.textContent!] = row.querySelector('dd')!.textContent!.trim();
  }
  return out;
}

describe('RecordPrint', () => {
  it('prints the title and every field, a linked record by its title, and who changed it last', async () => {
    const { env } = backend;
    const grace = await env.store.insert(env.doctypes.get('crm.Customer')!, {
      customer_name: 'Grace Hopper',
    });
    const stored = await env.store.insert(
      env.doctypes.get('support.Ticket')!,
      { subject: 'Printer jams', customer: grace.name, status: 'Open', priority: 'High', urgent: true },
      'sam@example.com',
    );
    const printed = vi.spyOn(window, 'print').mockImplementation(() => {});
    renderPrint(ticket, stored.name);

    const article = await screen.findByRole('article', { name: 'Printer jams' });
    expect(within(article).getByRole('heading', { level: 1 }).textContent).toBe('Printer jams');
    await within(article).findByText('Grace Hopper');
    expect(printedFields(article)).toEqual({
      Subject: 'Printer jams',
      Customer: 'Grace Hopper',
      Description: '—',
      Status: 'Open',
      Priority: 'High',
      'Due date': '—',
      Urgent: 'Yes',
    });
    expect(article.textContent).toContain(`ID ${stored.name}`);
    expect(article.textContent).toMatch(/Created .+/);
    expect(article.textContent).toMatch(/Last changed .+ by sam@example\.com/);
    expect(backend.to(`/api/resource/support.Ticket/${stored.name}`, 'GET')).toHaveLength(1);

    expect(within(article).getByRole('link', { name: '← Back to the record' }).getAttribute('href')).toBe(
      `#/app/support.Ticket/${stored.name}`,
    );
    fireEvent.click(within(article).getByRole('button', { name: 'Print' }));
    expect(printed).toHaveBeenCalledTimes(1);
  });

  it('keeps personal data the user may not see masked', async () => {
    const { env } = backend;
    const stored = await env.store.insert(env.doctypes.get('crm.Customer')!, {
      customer_name: 'Ada Lovelace',
      email: 'ada@example.com',
    });
    // The server masks personal data for a reader without read_pii (docs/permissions.md#personal-data).
    backend.server.use(
      http.get(`${ORIGIN}/api/resource/crm.Customer/${stored.name}`, () =>
        HttpResponse.json({ data: { ...stored, email: PII_MASK }, masked_fields: ['email'] }),
      ),
    );
    renderPrint(customer, stored.name);

    const article = await screen.findByRole('article', { name: 'Ada Lovelace' });
    expect(printedFields(article).Email).toBe(`${PII_MASK} (hidden: personal data you may not see)`);
    expect(article.textContent).not.toContain('ada@example.com');
  });

  it('says so when the record cannot be loaded', async () => {
    renderPrint(ticket, 'TKT-99999');
    await screen.findByRole('alert');
    expect(screen.getByText('This ticket could not be loaded.')).toBeTruthy();
    expect(screen.queryByRole('article')).toBeNull();
  });
});
