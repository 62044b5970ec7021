/**
 * The mark of the element each remote view or widget renders in (docs/mfe-teams.md#styles-of-a-remote): a
 * remote's stylesheets are confined to the elements carrying its service's mark. Its own small module, so
 * the error boundary that sets it does not bring the style guard into the first screen.
 */

/** The attribute on the element each remote view or widget renders in; its value is the service. */
export const REMOTE_ROOT_ATTRIBUTE = 'data-desk-remote-root';
