/**
 * A record's timeline under its form, against the mock backend with the history endpoints answered by the
 * test: each change in words with its author (personal data named without values), comments with Edit and
 * Delete for their author only, and a new comment sent as plain text and shown once stored.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DocTypeSchema } from '../../../src/protocol';
import { fetchServiceMetadata } from '../../../src/sdk/data';
import type { TimelineEntry } from '../../../src/shell/history/history-api';
import { describeChange, RecordTimeline } from '../../../src/shell/views/RecordTimeline';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import { DeskFrame, testPlatform } from '../support/desk-frame';

let backend: TestBackend;
let customer: DocTypeSchema;
beforeAll(async () => {
  backend = await startBackend();
  customer = (await fetchServiceMetadata(`${ORIGIN}/api/meta/crm`)).doctypes.find(
    (d) => d.name === 'crm.Customer',
  )!;
});
afterEach(() => {
  cleanup();
  backend.server.resetHandlers();
  backend.requests.length = 0;
});
afterAll(() => backend.server.close());

const HISTORY = `${ORIGIN}/api/history/crm.Customer/CUST-00001`;

/** The history endpoints over `entries`; a posted comment is appended as sam's. */
function serveHistory(entries: TimelineEntry[]) {
  backend.server.use(
    http.get(HISTORY, () => HttpResponse.json({ data: entries })),
    http.post(`${HISTORY}/comments`, async ({ request }) => {
      const { text } = (await request.json()) as { text: string };
      const comment: TimelineEntry = {
        kind: 'comment',
        id: 99,
        user: 'sam',
        at: '2026-11-26T10:00:00Z',
        text,
      };
      entries.push(comment);
      return HttpResponse.json({ data: comment }, { status: 201 });
    }),
  );
}

function renderTimeline() {
  render(
    <DeskFrame platform={testPlatform({ user: 'sam', roles: ['Support Agent'], permissions: {} })}>
      <RecordTimeline docType="crm.Customer" schema={customer} id="CUST-00001" />
    </DeskFrame>,
  );
}

const items = () =>
  within(screen.getByRole('region', { name: 'Activity' }))
    .getAllByRole('listitem')
    .map((li) => li.textContent?.replace(/\s+/g, ' ').trim());

describe('RecordTimeline', () => {
  it('says the activity is not available, and offers no comment box, where the history cannot be read', async () => {
    backend.server.use(
      http.get(HISTORY, () =>
        HttpResponse.json({ error: { code: 'not_found', message: 'No such route.' } }, { status: 404 }),
      ),
    );
    renderTimeline();
    await screen.findByText('The activity of this customer is not available right now.');
    expect(screen.queryByRole('textbox', { name: 'Add a comment' })).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('tells each change in words with its author, and personal data without its values', async () => {
    serveHistory([
      {
        kind: 'create',
        id: 1,
        user: 'Administrator',
        at: '2026-11-26T09:00:00Z',
        changes: [{ field: 'customer_name', new: 'Grace' }],
      },
      {
        kind: 'update',
        id: 2,
        user: 'sally',
        at: '2026-11-26T09:30:00Z',
        changes: [
          { field: 'customer_name', old: 'Grace', new: 'Grace Hopper' },
          { field: 'email', hidden: true },
        ],
      },
    ]);
    renderTimeline();

    await waitFor(() => expect(items()).toHaveLength(2));
    expect(items()[0]).toMatch(/^Administrator created this customer/);
    expect(items()[1]).toMatch(/^sally changed Customer Name from “Grace” to “Grace Hopper”; changed Email /);
  });

  it('names the file of an attachment added or removed', () => {
    const at = '2026-11-26T09:00:00Z';
    const attached = { field: 'attachment', new: 'report.pdf' };
    expect(describeChange({ kind: 'attach', id: 3, user: 'sam', at, changes: [attached] }, customer)).toBe(
      'attached report.pdf',
    );
    const removed = { field: 'attachment', old: 'report.pdf' };
    expect(describeChange({ kind: 'detach', id: 4, user: 'sam', at, changes: [removed] }, customer)).toBe(
      'removed the attachment report.pdf',
    );
  });

  it("offers Edit and Delete on one's own comments only, and sends a new comment as plain text", async () => {
    serveHistory([
      { kind: 'comment', id: 5, user: 'sally', at: '2026-11-26T09:00:00Z', text: 'Asked for a quote.' },
      { kind: 'comment', id: 6, user: 'sam', at: '2026-11-26T09:10:00Z', text: 'Printer fixed.' },
    ]);
    renderTimeline();
    await waitFor(() => expect(items()).toHaveLength(2));
    const [theirs, mine] = within(screen.getByRole('region', { name: 'Activity' })).getAllByRole('listitem');
    expect(within(theirs!).queryAllByRole('button')).toHaveLength(0);
    expect(
      within(mine!)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['Edit', 'Delete']);

    fireEvent.change(screen.getByRole('textbox', { name: 'Add a comment' }), {
      target: { value: '  Called back.  ' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Comment' }));

    await waitFor(() => expect(items()).toHaveLength(3));
    expect(items()[2]).toContain('Called back.');
    await backend.settle();
    const posted = backend.to('/api/history/crm.Customer/CUST-00001/comments', 'POST');
    expect(posted.map((r) => JSON.parse(r.body))).toEqual([{ text: 'Called back.' }]);
  });
});
