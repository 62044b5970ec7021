import { useEffect } from 'react';

/** The product name every tab title ends with. */
export const PRODUCT_NAME = 'Desk';

/**
 * Sets `document.title` to the given parts and the product name ("Ada Lovelace · Customer · Desk"), so
 * tabs, history and bookmarks say which record and DocType they show.
 */
export function useDocumentTitle(...parts: Array<string | undefined>): void {
  const title = [...parts.filter((p): p is string => Boolean(p)), PRODUCT_NAME].join(' · ');
  useEffect(() => {
    document.title = title;
  }, [title]);
}
