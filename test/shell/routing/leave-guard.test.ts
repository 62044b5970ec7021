/**
 * The leave guard in jsdom's window: while a dirty form is registered, a route change is held and the Desk
 * keeps showing the form until the user chooses Stay (the URL comes back), Discard (the change goes ahead)
 * or Save (saved first, then the change goes ahead; a failed save stays); closing the tab asks the browser.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LeaveGuardStore } from '../../../src/shell/routing/leave-guard';

/** Changes the hash as a link or the Back button does, and waits for the browser's hashchange. */
async function goTo(hash: string): Promise<void> {
  if (window.location.hash === hash) return;
  const changed = new Promise((resolve) => window.addEventListener('hashchange', resolve, { once: true }));
  window.location.hash = hash;
  await changed;
}

const stores: LeaveGuardStore[] = [];
function newStore(): LeaveGuardStore {
  const store = new LeaveGuardStore(window);
  stores.push(store);
  return store;
}

afterEach(async () => {
  for (const store of stores.splice(0)) store.dispose();
  await goTo('#/start');
});

describe('LeaveGuardStore', () => {
  it('lets route changes through while no form is dirty', async () => {
    await goTo('#/app/stock.Item/A');
    const store = newStore();
    let dirty = false;
    const off = store.register({ isDirty: () => dirty, save: async () => true });
    await goTo('#/app/stock.Item');
    expect(store.getSnapshot()).toEqual({ hash: '#/app/stock.Item' });
    dirty = true;
    off();
    await goTo('#/');
    expect(store.getSnapshot()).toEqual({ hash: '#/' });
  });

  it("follows the Desk's own navigation in the same event, and its later hashchange changes nothing", async () => {
    await goTo('#/app/stock.Item');
    const store = newStore();
    const seen: string[] = [];
    store.subscribe(() => seen.push(store.getSnapshot().hash));
    const changed = new Promise((resolve) => window.addEventListener('hashchange', resolve, { once: true }));
    window.location.replace('#/app/stock.Item?columns=item_code');
    store.followUrl();
    // Before the browser's event: what a click handler's re-render reads.
    expect(store.getSnapshot()).toEqual({ hash: '#/app/stock.Item?columns=item_code' });
    await changed;
    expect(seen).toEqual(['#/app/stock.Item?columns=item_code']);
  });

  it('holds a change away from a dirty form; Stay puts the URL back', async () => {
    await goTo('#/app/stock.Item/A');
    const store = newStore();
    store.register({ isDirty: () => true, save: async () => true });
    await goTo('#/app/stock.Item');
    expect(store.getSnapshot()).toEqual({ hash: '#/app/stock.Item/A', pending: '#/app/stock.Item' });

    store.stay();
    expect(store.getSnapshot()).toEqual({ hash: '#/app/stock.Item/A' });
    expect(window.location.hash).toBe('#/app/stock.Item/A');
  });

  it('Discard goes where the user asked, and the form no longer holds anything', async () => {
    await goTo('#/app/stock.Item/A');
    const store = newStore();
    store.register({ isDirty: () => true, save: async () => true });
    await goTo('#/');
    store.discard();
    expect(store.getSnapshot()).toEqual({ hash: '#/' });
    await goTo('#/app/crm.Customer');
    expect(store.getSnapshot()).toEqual({ hash: '#/app/crm.Customer' });
  });

  it('Save saves first, then goes; a save that fails keeps the form and its URL', async () => {
    await goTo('#/app/stock.Item/A');
    const store = newStore();
    const save = vi.fn(async () => false);
    store.register({ isDirty: () => true, save });
    await goTo('#/');
    await store.save();
    expect(save).toHaveBeenCalledTimes(1);
    expect(store.getSnapshot()).toEqual({ hash: '#/app/stock.Item/A' });
    expect(window.location.hash).toBe('#/app/stock.Item/A');

    save.mockResolvedValue(true);
    await goTo('#/');
    await store.save();
    expect(save).toHaveBeenCalledTimes(2);
    expect(store.getSnapshot()).toEqual({ hash: '#/' });
    expect(window.location.hash).toBe('#/');
  });

  it('lets the route change once the form is forgotten (its record was deleted)', async () => {
    await goTo('#/app/stock.Item/A');
    const store = newStore();
    store.register({ isDirty: () => true, save: async () => true });
    store.forget();
    await goTo('#/app/stock.Item');
    expect(store.getSnapshot()).toEqual({ hash: '#/app/stock.Item' });
  });

  it('asks before the tab closes while the form is dirty, and not otherwise', async () => {
    const store = newStore();
    let dirty = true;
    store.register({ isDirty: () => dirty, save: async () => true });
    const closing = () => {
      const event = new Event('beforeunload', { cancelable: true });
      window.dispatchEvent(event);
      return event.defaultPrevented;
    };
    expect(closing()).toBe(true);
    dirty = false;
    expect(closing()).toBe(false);
  });
});
