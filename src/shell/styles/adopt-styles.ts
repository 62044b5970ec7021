/**
 * Styles of a screen that is not on the first screen travel with that screen's code: its module adds them
 * to the page when it loads (docs/performance.md#the-budget), after the Desk's own stylesheet.
 */

/** Adds `css` to the page as `<style data-desk="<name>">`, once per name. */
export function adoptStyles(name: string, css: string): void {
  if (typeof document === 'undefined' || !css) return;
  if (document.head.querySelector(`style[data-desk="${name}"]`)) return;
  const style = document.createElement('style');
  style.dataset.desk = name;
  style.textContent = css;
  document.head.appendChild(style);
}
