/**
 * The colour theme choice: the system's setting by default (no `data-theme`), light or dark once chosen,
 * kept per browser, and an unknown stored value taken as the system's setting.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { applyTheme, setThemeChoice, subscribeTheme, themeChoice } from '../../../src/shell/platform/theme';

afterEach(() => {
  localStorage.clear();
  applyTheme('system');
});

describe('theme choice', () => {
  it('follows the system until the user chooses, then shows the choice on the root element', () => {
    expect(themeChoice()).toBe('system');
    expect(document.documentElement.dataset.theme).toBeUndefined();
    let told = 0;
    const off = subscribeTheme(() => told++);

    setThemeChoice('dark');
    expect(document.documentElement.dataset.theme).toBe('dark');
    expect(localStorage.getItem('desk.theme')).toBe('dark');
    expect(themeChoice()).toBe('dark');

    setThemeChoice('system');
    expect(document.documentElement.dataset.theme).toBeUndefined();
    expect(localStorage.getItem('desk.theme')).toBeNull();
    expect(told).toBe(2);
    off();
  });

  it('takes an unknown stored value as the system setting', () => {
    localStorage.setItem('desk.theme', 'purple');
    expect(themeChoice()).toBe('system');
  });
});
