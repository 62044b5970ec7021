import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { type ReactNode, useState } from 'react';
import { createPortal } from 'react-dom';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PORTAL_ATTRIBUTE, portalContainerOf } from '../../../src/shell/isolation/portal-container';
import { PortalRedirect } from '../../../src/shell/isolation/portal-redirect';
import { REMOTE_ROOT_ATTRIBUTE } from '../../../src/shell/isolation/remote-root';

/** The call stack the redirect reads; a test sets it to a remote's file. */
let stack = '';

beforeAll(() => {
  new PortalRedirect(
    { serviceOfUrl: (url) => (url.startsWith('http://remotes.test/gadgets/') ? 'gadgets' : undefined) },
    document,
    () => stack,
  ).start();
});

afterEach(() => {
  cleanup();
  stack = '';
});

/** A component that renders `children` into the body while open, with a button to toggle it. */
function BodyPortal({ label, children }: { label: string; children: ReactNode }): React.JSX.Element {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen((o) => !o)}>
        {label}
      </button>
      {open ? createPortal(children, document.body) : null}
    </>
  );
}

describe('PortalRedirect', () => {
  it('moves a portal a remote renders into the body into its portal container, and takes it out on close', () => {
    render(
      <div {...{ [REMOTE_ROOT_ATTRIBUTE]: 'gadgets' }}>
        <BodyPortal label="Open">
          <div role="dialog">gadget dialog</div>
          text of the dialog
        </BodyPortal>
      </div>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Open' }));
    const dialog = screen.getByRole('dialog');
    const container = dialog.parentElement!;
    expect(container.getAttribute(PORTAL_ATTRIBUTE)).toBe('gadgets');
    expect(container.getAttribute(REMOTE_ROOT_ATTRIBUTE)).toBe('gadgets');
    expect(container.parentElement).toBe(document.body);
    expect(container.textContent).toBe('gadget dialog' + 'text of the dialog');
    expect(container).toBe(portalContainerOf('gadgets'));
    expect(container.style.getPropertyValue('position')).toBe('fixed');
    expect(container.style.getPropertyPriority('pointer-events')).toBe('important');

    act(() => screen.getByRole('button', { name: 'Open' }).click());
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(container.childNodes).toHaveLength(0);
  });

  it('leaves the Desk’s own body portals in the body', () => {
    render(
      <BodyPortal label="Open">
        <div role="dialog">desk dialog</div>
      </BodyPortal>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Open' }));
    expect(screen.getByRole('dialog').parentElement).toBe(document.body);
  });

  it('moves an element a remote’s own code appends to the body, and follows its removal and insertions before it', () => {
    stack = 'Error\n    at mount (http://remotes.test/gadgets/vendor.js:1:20)';
    const toast = document.createElement('div');
    toast.className = 'toast';
    document.body.appendChild(toast);
    expect(toast.parentElement?.getAttribute(PORTAL_ATTRIBUTE)).toBe('gadgets');
    stack = '';
    const before = document.createElement('div');
    document.body.insertBefore(before, toast);
    expect(before.nextSibling).toBe(toast);
    document.body.removeChild(toast);
    document.body.removeChild(before);
    expect(portalContainerOf('gadgets').childNodes).toHaveLength(0);

    const desk = document.createElement('div');
    document.body.appendChild(desk);
    expect(desk.parentElement).toBe(document.body);
    document.body.removeChild(desk);
  });
});
