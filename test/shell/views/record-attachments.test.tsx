/**
 * The Attachments part of a record's form against the mock backend (the platform's own routes over an
 * in-memory attachment store): a file picked is sent as its raw bytes with its name, then listed with its
 * size and uploader and a download link; Delete asks first; a file past the limit is refused with the limit
 * said next to the button; a user who may only read the record is offered neither Attach nor Delete.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SessionUser } from '../../../src/shell/platform/session';
import { RecordAttachments } from '../../../src/shell/views/RecordAttachments';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import { DeskFrame, testPlatform } from '../support/desk-frame';

let backend: TestBackend;
let ticket: string;
beforeAll(async () => {
  backend = await startBackend({ records: 'empty' });
  const created = await fetch(`${ORIGIN}/api/resource/support.Ticket`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ subject: 'Printer on fire' }),
  });
  ticket = ((await created.json()) as { data: { name: string } }).data.name;
});
afterEach(() => {
  cleanup();
  backend.requests.length = 0;
});
afterAll(() => backend.server.close());

const none = { read: false, create: false, write: false, delete: false, read_pii: false };

function renderAttachments(user?: SessionUser) {
  render(
    <DeskFrame platform={testPlatform(user)}>
      <RecordAttachments docType="support.Ticket" schema={{ label: 'Ticket' }} id={ticket} />
    </DeskFrame>,
  );
  return screen.findByRole('region', { name: 'Attachments' });
}

function pick(region: HTMLElement, file: File) {
  // The picker the "Attach file" button opens.
  const input = region.querySelector<HTMLInputElement>('input[type="file"]')!;
  fireEvent.change(input, { target: { files: [file] } });
}

const stored = () => backend.env.ctx.attachments!.list('support.Ticket', ticket);

describe('RecordAttachments', () => {
  it('uploads a picked file as its bytes, lists it with a download link, and deletes it after confirmation', async () => {
    const region = await renderAttachments();
    await within(region).findByText('No files are attached to this ticket.');
    pick(region, new File(['%PDF-1.4 report'], 'report.pdf', { type: 'application/pdf' }));
    const link = await within(region).findByRole('link', { name: 'report.pdf' });

    const [sent] = backend.requests.filter(
      (r) => r.method === 'POST' && r.url.pathname.endsWith('/attachments'),
    );
    expect(sent!.url.pathname).toBe(`/api/resource/support.Ticket/${ticket}/attachments`);
    expect(sent!.url.searchParams.get('filename')).toBe('report.pdf');
    expect(sent!.headers.get('content-type')).toBe('application/pdf');
    const [row] = await stored();
    expect(row).toMatchObject({ file_name: 'report.pdf', size: 15, uploader: 'Administrator' });
    expect(link.getAttribute('href')).toBe(
      `${ORIGIN}/api/resource/support.Ticket/${ticket}/attachments/${row!.id}`,
    );
    expect(link.getAttribute('download')).toBe('report.pdf');
    expect(within(region).getByRole('listitem').textContent).toMatch(/15 bytes · Administrator ·/);

    fireEvent.click(within(region).getByRole('button', { name: 'Delete report.pdf' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Delete “report.pdf”?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await within(region).findByText('No files are attached to this ticket.');
    expect(await stored()).toEqual([]);
  });

  it('says a file is too large, naming the limit, and stores nothing', async () => {
    const region = await renderAttachments();
    await within(region).findByRole('button', { name: 'Attach file' });
    pick(region, new File([new Uint8Array(10 * 1024 * 1024 + 1)], 'huge.bin'));
    const alert = await within(region).findByRole('alert');
    expect(alert.textContent).toBe(
      '“huge.bin” is too large. An attachment is at most 10 MiB (10485760 bytes).',
    );
    await waitFor(() =>
      expect(
        (within(region).getByRole('button', { name: 'Attach file' }) as HTMLButtonElement).disabled,
      ).toBe(false),
    );
    expect(await stored()).toEqual([]);
  });

  it('offers a reader the download but neither Attach file nor Delete', async () => {
    await backend.env.ctx.attachments!.add({
      doctype: 'support.Ticket',
      record: ticket,
      fileName: 'notes.txt',
      mediaType: 'text/plain',
      uploader: 'Administrator',
      bytes: new TextEncoder().encode('notes'),
    });
    const region = await renderAttachments({
      user: 'reader',
      roles: ['Reader'],
      permissions: { 'support.Ticket': { ...none, read: true } },
    });
    await within(region).findByRole('link', { name: 'notes.txt' });
    expect(within(region).queryByRole('button', { name: 'Attach file' })).toBeNull();
    expect(within(region).queryByRole('button', { name: /Delete/ })).toBeNull();
  });
});
