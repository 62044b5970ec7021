import { useEffect } from 'react';

/** The product name every tab title ends with. */
export const PRODUCT_NAME = 'Desk';

/**
 * Sets `document.title` to the given parts and the product name ("Ada Lovelace · Customer · Desk"), so
 * tabs, history and bookmarks say which record and DocType they show. A first part `null` sets nothing: a
 * screen whose title another component sets (a record page inside a DocType screen) leaves it alone.
 */
export function useDocumentTitle(...parts: Array<string | undefined | null>): void {
  const skip = parts[0] === null;
  const title = [...parts.filter((p): p is string => Boolean(p)), PRODUCT_NAME].join(' · ');
  useEffect(() => {
    if (!skip) document.title = title;
  }, [title, skip]);
}
