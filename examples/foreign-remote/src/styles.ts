/**
 * The remote's stylesheet, added to the page the way style-loader does (a `<style>` in `document.head`). The
 * Desk confines it to this remote's own views and widgets (docs/mfe-teams.md#styles-of-a-remote).
 */
import css from './remote.css';

/** Adds the stylesheet once (called when `./views` is loaded). */
export function addStyles(): void {
  if (document.head.querySelector('style[data-gadgets-styles]')) return;
  const style = document.createElement('style');
  style.setAttribute('data-gadgets-styles', '');
  style.textContent = css;
  document.head.appendChild(style);
}
