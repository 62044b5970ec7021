import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DeskRecord } from '../../../src/contract/remote';
import type { DocTypeSchema } from '../../../src/protocol';
import { fetchServiceMetadata } from '../../../src/sdk/data';
import { GenericForm } from '../../../src/shell/views/GenericForm';
import { ORIGIN, startBackend, storedRecord, type TestBackend } from '../../sdk/helpers';
import '../support/css-escape';
import { DeskFrame, testPlatform } from '../support/desk-frame';

let backend: TestBackend;
let schema: DocTypeSchema;
beforeAll(async () => {
  backend = await startBackend();
  const meta = await fetchServiceMetadata(`${ORIGIN}/api/meta/stock`);
  schema = meta.doctypes.find((d) => d.name === 'stock.Item')!;
});
afterEach(() => {
  cleanup();
  backend.server.resetHandlers();
  backend.requests.length = 0;
  backend.env.store.clear();
});
afterAll(() => backend.server.close());

/** The generic stock.Item form with the platform's data provider, as the Desk renders it. */
function renderForm() {
  const onSaved = vi.fn<(record: DeskRecord) => void>();
  render(
    <DeskFrame platform={testPlatform()}>
      <GenericForm docType="stock.Item" schema={schema} onSaved={onSaved} onCancel={() => {}} />
    </DeskFrame>,
  );
  const input = (label: RegExp) => screen.getByLabelText(label) as HTMLInputElement;
  const type = (label: RegExp, value: string) => fireEvent.change(input(label), { target: { value } });
  const save = () => fireEvent.click(screen.getByRole('button', { name: 'Save' }));
  return { onSaved, input, type, save };
}

const errorOf = (element: HTMLElement) =>
  element.getAttribute('aria-describedby')
    ? document.getElementById(element.getAttribute('aria-describedby')!)?.textContent
    : undefined;

const posts = () => backend.to('/api/resource/stock.Item', 'POST');

describe('GenericForm', () => {
  it('shows a required error on each empty required field and sends nothing', async () => {
    const form = renderForm();

    form.save();

    await waitFor(() => expect(form.input(/^Item Code/).getAttribute('aria-invalid')).toBe('true'));
    expect(errorOf(form.input(/^Item Code/))).toBe('Item Code is required.');
    expect(errorOf(form.input(/^Item Name/))).toBe('Item Name is required.');
    expect(form.input(/^Quantity/).getAttribute('aria-invalid')).toBeNull();
    expect(document.activeElement).toBe(form.input(/^Item Code/));
    expect(posts()).toHaveLength(0);
    expect(form.onSaved).not.toHaveBeenCalled();
  });

  it('shows a type error on a field whose value does not fit its type, and sends nothing', async () => {
    const form = renderForm();
    form.type(/^Item Code/, 'A-1');
    form.type(/^Item Name/, 'Anvil');
    form.type(/^Quantity/, '2.5');

    form.save();

    await waitFor(() => expect(errorOf(form.input(/^Quantity/))).toBe('Quantity must be a whole number.'));
    expect(form.input(/^Item Code/).getAttribute('aria-invalid')).toBeNull();
    expect(posts()).toHaveLength(0);
  });

  it('validates a field when it loses focus and clears the error once it is edited', async () => {
    const form = renderForm();

    fireEvent.blur(form.input(/^Item Name/));
    await waitFor(() => expect(errorOf(form.input(/^Item Name/))).toBe('Item Name is required.'));
    form.type(/^Item Name/, 'Anvil');

    await waitFor(() => expect(form.input(/^Item Name/).getAttribute('aria-invalid')).toBeNull());
  });

  it('sends a valid record once, with numbers typed as numbers, and hands the stored record to onSaved', async () => {
    const form = renderForm();
    form.type(/^Item Code/, 'A-1');
    form.type(/^Item Name/, 'Anvil');
    form.type(/^Quantity/, '3');
    form.type(/^Price/, '9.5');

    form.save();

    await waitFor(() => expect(form.onSaved).toHaveBeenCalledTimes(1));
    await backend.settle();
    expect(posts()).toHaveLength(1);
    expect(JSON.parse(posts()[0]!.body)).toEqual({
      item_code: 'A-1',
      item_name: 'Anvil',
      quantity: 3,
      price: 9.5,
    });
    expect(form.onSaved.mock.calls[0]![0]).toMatchObject({ name: 'ITEM-00001', item_name: 'Anvil' });
    expect(await storedRecord(backend, 'stock.Item', 'ITEM-00001')).toMatchObject({
      quantity: 3,
      price: 9.5,
    });
  });

  it('shows the server field errors next to their fields and the failure in a banner', async () => {
    backend.server.use(
      http.post(`${ORIGIN}/api/resource/stock.Item`, () =>
        HttpResponse.json(
          {
            error: {
              code: 'validation_failed',
              message: 'The document is invalid.',
              fields: [{ field: 'item_code', code: 'duplicate', message: 'Item Code is already used.' }],
            },
          },
          { status: 422 },
        ),
      ),
    );
    const form = renderForm();
    form.type(/^Item Code/, 'A-1');
    form.type(/^Item Name/, 'Anvil');

    form.save();

    const banner = await screen.findByRole('alert');
    expect(banner.textContent).toContain('Some fields need attention');
    expect(banner.textContent).not.toContain('validation_failed');
    expect(errorOf(form.input(/^Item Code/))).toBe('Item Code is already used.');
    expect(form.onSaved).not.toHaveBeenCalled();
  });
});
