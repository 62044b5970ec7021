/**
 * The generic list's "Last changed by" column against the mock backend: each row names the user whose write
 * stored it (as the data API returns `modified_by`) and how long ago, and the column sorts the list by the
 * time of the change.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { useState } from 'react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryRecordStore } from '../../../backend/data/memory-record-store';
import type { DocTypeSchema } from '../../../src/protocol';
import { fetchServiceMetadata } from '../../../src/sdk/data';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import type { ListState } from '../../../src/shell/routing/route';
import { GenericList } from '../../../src/shell/views/GenericList';
import { relativeTime } from '../../../src/shell/words/relative-time';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import { DeskFrame, testPlatform } from '../support/desk-frame';

let backend: TestBackend;
let warehouse: DocTypeSchema;
beforeAll(async () => {
  backend = await startBackend();
  warehouse = (await fetchServiceMetadata(`${ORIGIN}/api/meta/stock`)).doctypes.find(
    (d) => d.name === 'stock.Warehouse',
  )!;
});
afterEach(() => {
  cleanup();
  DiscoveryClient.reset();
  backend.requests.length = 0;
  backend.env.store.clear();
});
afterAll(() => backend.server.close());

const LIST = '/api/resource/stock.Warehouse';

/** The warehouse list with its state held as the Desk's route holds it; each change is also reported. */
function Routed({ onStateChange }: { onStateChange(state: ListState): void }): React.JSX.Element {
  const [state, setState] = useState<ListState>({ filters: {}, page: 1, pageSize: 20 });
  return (
    <GenericList
      docType="stock.Warehouse"
      schema={warehouse}
      onOpen={() => {}}
      onCreate={() => {}}
      state={state}
      onStateChange={(next) => {
        onStateChange(next);
        setState(next);
      }}
    />
  );
}

describe('the "Last changed by" column', () => {
  it('names who changed each record last and when, and sorts by when', async () => {
    const doctype = backend.env.doctypes.get('stock.Warehouse')!;
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    (backend.env.store as MemoryRecordStore).insertAt(
      doctype,
      { warehouse_name: 'North' },
      twoHoursAgo,
      'sam@example.com',
    );
    // Stored through the data API: credited to the signed-in caller.
    const created = await fetch(`${ORIGIN}${LIST}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ warehouse_name: 'South' }),
    });
    expect(created.status).toBe(201);

    const states: ListState[] = [];
    render(
      <DeskFrame platform={testPlatform()}>
        <Routed onStateChange={(next) => states.push(next)} />
      </DeskFrame>,
    );
    const list = await screen.findByRole('region', { name: 'Warehouse list' });
    await within(list).findByRole('table');
    // A new sort loads a new page: the table is found again each time.
    const table = () => within(list).getByRole('table');
    expect(within(table()).getByRole('columnheader', { name: /Last changed by/ })).toBeTruthy();
    const changed = () =>
      within(table())
        .getAllByRole('row')
        .slice(1)
        .map((row) => {
          const cells = within(row).getAllByRole('cell');
          return [within(row).getAllByRole('link')[0]!.textContent, cells.at(-1)!.textContent];
        });
    // The data API's default order: the latest change first.
    expect(changed()).toEqual([
      ['South', `Administrator · ${relativeTime(new Date().toISOString())}`],
      ['North', `sam@example.com · ${relativeTime(twoHoursAgo.toISOString())}`],
    ]);
    const time = within(table()).getAllByRole('row')[2]!.querySelector('time')!;
    expect(time.getAttribute('datetime')).toBe(twoHoursAgo.toISOString());

    fireEvent.click(within(table()).getByRole('button', { name: /Last changed by/ }));
    expect(states.at(-1)?.sort).toEqual({ field: 'modified', order: 'asc' });
    await waitFor(() => expect(changed().map(([name]) => name)).toEqual(['North', 'South']));
    const sorted = backend.to(LIST, 'GET').at(-1)!;
    expect(sorted.url.searchParams.get('order_by')).toBe('modified asc');
  });
});
