/**
 * The Link field of a DocType whose title is personal data (encrypted at rest on a server), against the mock
 * backend: the server can neither sort by such a title nor match a part of it, so the picker lists options
 * by name and searches by the exact title typed (its blind index on a server), and offers the match. The
 * DocType's list searches by the whole title too; a record whose title comes masked is named by its ID.
 */
import { QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { defineApp, defineDocType, z } from '../../../src/app';
import { PII_MASK } from '../../../src/protocol';
import { fetchServiceMetadata } from '../../../src/sdk/data';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import { PlatformProvider } from '../../../src/shell/hooks/use-platform';
import { emptyListState } from '../../../src/shell/routing/route';
import { createQueryClient } from '../../../src/shell/views/App';
import { GenericList } from '../../../src/shell/views/GenericList';
import { LinkInput } from '../../../src/shell/views/LinkInput';
import { RecordPage } from '../../../src/shell/views/RecordPage';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import '../support/css-escape';
import { testPlatform } from '../support/desk-frame';

const Patient = defineDocType({
  name: 'clinic.Patient',
  label: 'Patient',
  titleField: 'full_name',
  namePrefix: 'PAT',
  model: z.object({ full_name: z.string().min(1).max(140).meta({ label: 'Full Name', pii: true }) }),
});
const clinicApp = defineApp({ name: 'clinic', label: 'Clinic', doctypes: [Patient], permissions: {} });

let backend: TestBackend;
beforeAll(async () => {
  backend = await startBackend({ apps: [clinicApp] });
  const definition = backend.env.doctypes.get('clinic.Patient')!;
  for (const full_name of ['Charles Babbage', 'Ada Lovelace']) {
    await backend.env.store.insert(definition, { full_name });
  }
});
afterEach(() => {
  cleanup();
  DiscoveryClient.reset();
  backend.server.resetHandlers();
});
afterAll(() => backend.server.close());

const patientLists = () => backend.to('/api/resource/clinic.Patient', 'GET');

describe('the Link field of a DocType titled by personal data', () => {
  it('lists options by name and finds a record by its exact title', async () => {
    const onChange = vi.fn<(value: string | undefined) => void>();
    render(
      <PlatformProvider platform={testPlatform()}>
        <QueryClientProvider client={createQueryClient()}>
          <label htmlFor="patient">Patient</label>
          <LinkInput
            id="patient"
            name="patient"
            target="clinic.Patient"
            value={undefined}
            onChange={onChange}
          />
        </QueryClientProvider>
      </PlatformProvider>,
    );
    const combobox = await screen.findByRole('combobox', { name: 'Patient' });
    // Opened empty: the first options, in name order (a sealed title has no order the server knows).
    fireEvent.focus(combobox);
    await waitFor(() => expect(patientLists().length).toBeGreaterThan(0));
    expect(patientLists()[0]!.url.searchParams.get('order_by')).toBe('name asc');
    await screen.findByRole('option', { name: /Charles Babbage/ });

    fireEvent.change(combobox, { target: { value: 'Ada Lovelace' } });
    await waitFor(() =>
      expect(patientLists().some((r) => r.url.searchParams.get('filters') !== null)).toBe(true),
    );
    const search = patientLists().find((r) => r.url.searchParams.get('filters') !== null)!;
    expect(JSON.parse(search.url.searchParams.get('filters')!)).toEqual([['full_name', '=', 'Ada Lovelace']]);
    expect(search.url.searchParams.get('order_by')).toBe('name asc');
    const option = await screen.findByRole('option', { name: /Ada Lovelace/ });
    fireEvent.mouseDown(option);
    fireEvent.click(option);
    await waitFor(() => expect(onChange).toHaveBeenCalledWith('PAT-00002'));
  });

  it("searches the DocType's list by the whole title, the one match the server can make", async () => {
    const schema = (await fetchServiceMetadata(`${ORIGIN}/api/meta/clinic`)).doctypes[0]!;
    const from = backend.requests.length;
    render(
      <PlatformProvider platform={testPlatform()}>
        <QueryClientProvider client={createQueryClient()}>
          <GenericList
            docType="clinic.Patient"
            schema={schema}
            onOpen={() => {}}
            onCreate={() => {}}
            state={{ ...emptyListState(), q: 'Ada Lovelace' }}
            onStateChange={() => {}}
          />
        </QueryClientProvider>
      </PlatformProvider>,
    );
    await screen.findByText('Ada Lovelace');
    expect(screen.queryByText('Charles Babbage')).toBeNull();
    expect(screen.getByLabelText('Search').getAttribute('placeholder')).toBe('Full Name, whole value…');
    const filters = backend.requests
      .slice(from)
      .filter((r) => r.method === 'GET' && r.url.pathname === '/api/resource/clinic.Patient')
      .map((r) => JSON.parse(r.url.searchParams.get('filters') ?? '[]'));
    expect(filters.at(-1)).toEqual([['full_name', '=', 'Ada Lovelace']]);
  });

  it('names a record whose title comes masked by its ID, in its heading and its tab', async () => {
    const schema = (await fetchServiceMetadata(`${ORIGIN}/api/meta/clinic`)).doctypes[0]!;
    const { name } = await backend.env.store.insert(backend.env.doctypes.get('clinic.Patient')!, {
      full_name: 'Grace Hopper',
    });
    // As the server answers a user without read_pii.
    backend.server.use(
      http.get(`${ORIGIN}/api/resource/clinic.Patient/${name}`, () =>
        HttpResponse.json({ data: { name, full_name: PII_MASK }, masked_fields: ['full_name'] }),
      ),
    );
    render(
      <PlatformProvider platform={testPlatform()}>
        <QueryClientProvider client={createQueryClient()}>
          <RecordPage
            docType="clinic.Patient"
            label="Patient"
            schema={schema}
            listLabel="Patients"
            titleField="full_name"
            service="clinic"
            id={name}
            back={() => {}}
            onDeleted={() => {}}
          >
            {null}
          </RecordPage>
        </QueryClientProvider>
      </PlatformProvider>,
    );
    // The record's details show once it was read.
    await screen.findByText('ID');
    expect(document.title).toBe(`${name} · Patient · Desk`);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(name);
  });
});
