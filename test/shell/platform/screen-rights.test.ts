/**
 * What each screen offers, from the user's effective permissions: forms read-only without write (or create
 * for a new record), New and row selection only with create and delete, a service's widgets only for readers
 * of one of its DocTypes, palette commands per read and create, developer details for System Managers.
 */
import { describe, expect, it } from 'vitest';
import { type PermissionsState, permits } from '../../../src/shell/platform/permissions';
import {
  allowsCommand,
  formMode,
  listActions,
  mayShowDeveloperDetails,
  showsService,
} from '../../../src/shell/platform/screen-rights';

const none = { read: false, create: false, write: false, delete: false, read_pii: false };
/** The sample apps' Support Agent: reads customers, works tickets, nothing of leads or stock. */
const supportAgent: PermissionsState = {
  status: 'ready',
  whoami: {
    user: 'sam',
    roles: ['Support Agent'],
    permissions: {
      'crm.Customer': { ...none, read: true },
      'crm.Lead': none,
      'support.Ticket': { ...none, read: true, create: true, write: true, read_pii: true },
      'stock.Item': none,
    },
  },
};
const can = (state: PermissionsState) => (docType: string, op: Parameters<typeof permits>[2]) =>
  permits(state, docType, op);
const sam = can(supportAgent);

describe('screen rights', () => {
  it('shows a record read-only to a user without write, and a new one read-only without create', () => {
    expect(formMode(sam, 'crm.Customer', true)).toBe('read-only');
    expect(formMode(sam, 'crm.Customer', false)).toBe('read-only');
    expect(formMode(sam, 'support.Ticket', true)).toBe('editable');
    expect(formMode(sam, 'support.Ticket', false)).toBe('editable');
  });

  it('treats permissions not known yet as allowing nothing', () => {
    const loading = can({ status: 'loading' });
    expect(formMode(loading, 'support.Ticket', true)).toBe('read-only');
    expect(listActions(loading, 'support.Ticket')).toEqual({ create: false, select: false });
    expect(showsService(loading, ['support.Ticket'])).toBe(false);
  });

  it('offers New with create and row selection (bulk delete) with delete only', () => {
    expect(listActions(sam, 'crm.Customer')).toEqual({ create: false, select: false });
    expect(listActions(sam, 'support.Ticket')).toEqual({ create: true, select: false });
  });

  it('shows a service when one of its DocTypes is readable, and not before its DocTypes are known', () => {
    expect(showsService(sam, ['crm.Customer', 'crm.Lead'])).toBe(true);
    expect(showsService(sam, ['stock.Item', 'stock.Warehouse'])).toBe(false);
    expect(showsService(sam, undefined)).toBe(false);
  });

  it('lets the palette go to readable lists and create only where create is granted', () => {
    expect(allowsCommand(sam, { kind: 'go', docType: 'crm.Customer' })).toBe(true);
    expect(allowsCommand(sam, { kind: 'new', docType: 'crm.Customer' })).toBe(false);
    expect(allowsCommand(sam, { kind: 'go', docType: 'crm.Lead' })).toBe(false);
    expect(allowsCommand(sam, { kind: 'new', docType: 'support.Ticket' })).toBe(true);
  });

  it('gives the developer details to System Managers only', () => {
    expect(mayShowDeveloperDetails(['Support Agent'])).toBe(false);
    expect(mayShowDeveloperDetails(['Stock User', 'System Manager'])).toBe(true);
    // A System Manager may do everything, whatever the per-DocType table says.
    const admin = can({ status: 'ready', whoami: { user: 'a', roles: ['System Manager'], permissions: {} } });
    expect(formMode(admin, 'crm.Lead', true)).toBe('editable');
  });
});
