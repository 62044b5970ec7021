// @vitest-environment jsdom
/**
 * The Note form `m new app` writes (templates/app/ui/NoteForm.tsx.tmpl), rendered as a team gets it, held to
 * what docs/mfe-teams.md#writing-a-ui-remote says every form does: a personal value the server masked for
 * this reader is shown read-only and never sent back (the server would refuse it, 422 `masked_value`); a
 * field emptied on a stored record is sent as `null`; a refusal reads as the Desk's words, not the
 * server's message; and the form's edits are registered with the Desk's leave guard.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DataProvider, Refine } from '@refinedev/core';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { type ComponentType, createElement as h } from 'react';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { scaffoldApp } from '../../src/cli/commands/new-app';
import type { FormLeaveGuard, FormViewProps } from '../../src/contract/remote';
import type { DocTypeSchema } from '../../src/protocol';
import { PII_MASK } from '../../src/protocol';

const root = join(import.meta.dirname, '..', '..');
// Under the checkout's node_modules/.cache (git-ignored): a jsdom test may import only files inside the
// project's root, and from there the app's `react` is the platform's, as `npm install` links it.
const cache = join(root, 'node_modules', '.cache');
mkdirSync(cache, { recursive: true });
const parent = mkdtempSync(join(cache, 'mfe-team-form-'));
let NoteForm: ComponentType<FormViewProps>;

beforeAll(async () => {
  const dir = join(parent, 'notes');
  scaffoldApp({ name: 'notes', dir });
  const form = join(dir, 'ui', 'NoteForm.tsx');
  // The platform's package by its path, as the app's `file:` dependency resolves it.
  const source = readFileSync(form, 'utf8').replaceAll(
    "'@framework-m/desk/remote'",
    JSON.stringify(join(root, 'src', 'remote', 'index.ts')),
  );
  writeFileSync(form, source);
  ({ NoteForm } = (await import(/* @vite-ignore */ form)) as { NoteForm: ComponentType<FormViewProps> });
});
afterEach(() => cleanup());
afterAll(() => rmSync(parent, { recursive: true, force: true }));

const schema = {
  name: 'notes.Note',
  label: 'Note',
  titleField: 'title',
  fields: [
    { name: 'title', label: 'Title', type: 'data', required: true },
    { name: 'body', label: 'Body', type: 'text' },
    { name: 'email', label: 'Email', type: 'email', pii: true },
  ],
} as unknown as DocTypeSchema;

/** A data provider holding one stored note, recording what the form writes. */
function provider(stored: Record<string, unknown>, refuse?: unknown) {
  const writes: Array<{ id?: unknown; variables: Record<string, unknown> }> = [];
  const dataProvider = {
    getApiUrl: () => '/api',
    getList: async () => ({ data: [], total: 0 }),
    getOne: async () => ({ data: { ...stored, id: stored.name } }),
    create: async ({ variables }: { variables: Record<string, unknown> }) => {
      writes.push({ variables });
      if (refuse) throw refuse;
      return { data: { name: 'NOTE-00002', ...variables } };
    },
    update: async ({ id, variables }: { id: unknown; variables: Record<string, unknown> }) => {
      writes.push({ id, variables });
      if (refuse) throw refuse;
      return { data: { ...stored, ...variables } };
    },
    deleteOne: async () => ({ data: {} }),
  } as unknown as DataProvider;
  return { dataProvider, writes };
}

function renderForm(
  dataProvider: DataProvider,
  id: string | undefined,
  guardLeave?: (guard: FormLeaveGuard) => () => void,
) {
  const onSaved = vi.fn();
  const props: FormViewProps = {
    docType: 'notes.Note',
    schema,
    id,
    onSaved,
    onCancel: () => {},
    ...(guardLeave ? { guardLeave } : {}),
  };
  render(h(Refine, { dataProvider }, h(NoteForm, props)));
  return { onSaved };
}

const input = (label: RegExp) => screen.getByLabelText(label) as HTMLInputElement;

describe('the scaffolded Note form', () => {
  it('shows a masked email read-only, as hidden, and saves an edit without sending the mask back', async () => {
    const { dataProvider, writes } = provider({ name: 'NOTE-00001', title: 'Hello', email: PII_MASK });
    const { onSaved } = renderForm(dataProvider, 'NOTE-00001');
    await screen.findByDisplayValue('Hello');
    expect(input(/^Email/).readOnly).toBe(true);
    expect(screen.getByText('Hidden: personal data you may not see.')).toBeTruthy();
    fireEvent.change(input(/^Title/), { target: { value: 'Hello again' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save note' }));
    await waitFor(() => expect(onSaved).toHaveBeenCalled());
    expect(writes).toHaveLength(1);
    expect(writes[0]!.variables).toEqual({ title: 'Hello again' });
    expect(JSON.stringify(writes)).not.toContain(PII_MASK);
  });

  it('clears an emptied email and body of a stored note (sent as null), and leaves out what was never set', async () => {
    const { dataProvider, writes } = provider({
      name: 'NOTE-00001',
      title: 'Hello',
      body: 'Some text',
      email: 'ada@example.com',
    });
    const { onSaved } = renderForm(dataProvider, 'NOTE-00001');
    await screen.findByDisplayValue('ada@example.com');
    fireEvent.change(input(/^Email/), { target: { value: '' } });
    fireEvent.change(input(/^Body/), { target: { value: '' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save note' }));
    await waitFor(() => expect(onSaved).toHaveBeenCalled());
    expect(writes[0]!.variables).toEqual({ title: 'Hello', body: null, email: null });

    cleanup();
    const fresh = provider({});
    renderForm(fresh.dataProvider, undefined);
    fireEvent.change(input(/^Title/), { target: { value: 'New' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save note' }));
    await waitFor(() => expect(fresh.writes).toHaveLength(1));
    expect(fresh.writes[0]!.variables).toEqual({ title: 'New' });
  });

  it("says a refusal in the Desk's words, with the server's field message next to its field", async () => {
    const refusal = Object.assign(new Error('Email is already used by another record (server text).'), {
      code: 'duplicate',
      status: 409,
      statusCode: 409,
      fields: [{ field: 'email', code: 'duplicate', message: 'Email is already used by another record.' }],
    });
    const { dataProvider } = provider({}, refusal);
    renderForm(dataProvider, undefined);
    fireEvent.change(input(/^Title/), { target: { value: 'New' } });
    fireEvent.change(input(/^Email/), { target: { value: 'ada@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save note' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe('Another record already has this value. Use a different one.');
    expect(screen.getByText('Email is already used by another record.')).toBeTruthy();
    expect(input(/^Email/).getAttribute('aria-invalid')).toBe('true');
  });

  it("registers its edits with the Desk's leave guard, and Ctrl+S's save stores them", async () => {
    const { dataProvider, writes } = provider({ name: 'NOTE-00001', title: 'Hello' });
    let guard: FormLeaveGuard | undefined;
    const release = vi.fn();
    renderForm(dataProvider, 'NOTE-00001', (g) => {
      guard = g;
      return release;
    });
    await screen.findByDisplayValue('Hello');
    expect(guard?.isDirty()).toBe(false);
    fireEvent.change(input(/^Title/), { target: { value: 'Edited' } });
    await waitFor(() => expect(guard?.isDirty()).toBe(true));
    expect(await guard!.save()).toBe(true);
    expect(writes[0]!.variables).toEqual({ title: 'Edited' });
    await waitFor(() => expect(guard?.isDirty()).toBe(false));
  });
});

describe("the scaffolded app's README", () => {
  it('says what offline development keeps across a reload, as docs/mfe-teams.md#a-teams-app-offline does', () => {
    const readme = readFileSync(join(parent, 'notes', 'README.md'), 'utf8');
    const offline = readme.slice(readme.indexOf('## Working offline'));
    expect(offline).toContain('still signed in');
    expect(offline).not.toMatch(/in memory until the page reloads|sign in again/);
  });
});
