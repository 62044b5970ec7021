/**
 * The release offer's wording: "A new version of <app> is available" for a newer release, "A different
 * version of <app> is now live" after a rollback or when the versions do not order them; the same button,
 * which reloads the page, either way.
 */
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ReleaseChange } from '../../../src/shell/platform/releases';
import { ReleaseOfferLine } from '../../../src/shell/views/ReleaseOffer';

const V1 = 'http://desk.test/desk/assets/crm/1.0.0+3f9a0c1d2e4b/remoteEntry.js';
const V2 = 'http://desk.test/desk/assets/crm/1.1.0+0a1b2c3d4e5f/remoteEntry.js';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function offerFor(change: ReleaseChange): HTMLElement {
  render(<ReleaseOfferLine change={change} label="CRM" />);
  return screen.getByRole('button', { name: 'Load the new version' }).parentElement!;
}

describe('ReleaseOfferLine', () => {
  it('offers a newer release as a new version', () => {
    const line = offerFor({ service: 'crm', from: V1, to: V2, direction: 'newer' });
    expect(line.textContent).toBe('A new version of CRM is available. Load the new version');
  });

  it('offers an older release, after a rollback, as a different version now live', () => {
    const line = offerFor({ service: 'crm', from: V2, to: V1, direction: 'older' });
    expect(line.textContent).toBe('A different version of CRM is now live. Load the new version');
    expect(line.textContent).not.toContain('A new version');
  });

  it('offers a release the versions do not order as a different version too', () => {
    const line = offerFor({
      service: 'crm',
      from: V1,
      to: V1.replace('3f9a0c1d2e4b', '999999999999'),
      direction: 'other',
    });
    expect(line.textContent).toBe('A different version of CRM is now live. Load the new version');
  });

  it('reloads the page when the button is pressed', () => {
    const reload = vi.fn();
    vi.spyOn(window, 'location', 'get').mockReturnValue({ ...window.location, reload });
    offerFor({ service: 'crm', from: V2, to: V1, direction: 'older' });
    fireEvent.click(screen.getByRole('button', { name: 'Load the new version' }));
    expect(reload).toHaveBeenCalledTimes(1);
  });
});
