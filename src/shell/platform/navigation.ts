/**
 * The Desk's navigation as people see it: every known service with its DocTypes, labelled by the app's own
 * menu entries ("Customers") and ordered as the app lists them; DocTypes an app has no menu entry for come
 * after, under their label.
 */
import type { ServiceMetadata } from '../../protocol';
import { pluralLabel } from '../words/plural';

/** One navigation entry: a DocType's list. */
export interface NavEntry {
  docType: string;
  /** What the navigation shows, e.g. "Customers". */
  label: string;
  /** The DocType's singular label, e.g. "Customer" (for "New Customer"). */
  singular: string;
}

/** Entries of one service, in its menu order. */
export function navEntries(meta: ServiceMetadata): NavEntry[] {
  const byName = new Map(meta.doctypes.map((d) => [d.name, d]));
  const entries: NavEntry[] = [];
  const seen = new Set<string>();
  for (const menu of meta.menus ?? []) {
    const doctype = byName.get(menu.doctype);
    if (!doctype || seen.has(doctype.name)) continue;
    seen.add(doctype.name);
    entries.push({ docType: doctype.name, label: menu.label, singular: doctype.label });
  }
  for (const doctype of meta.doctypes) {
    if (seen.has(doctype.name)) continue;
    entries.push({ docType: doctype.name, label: pluralLabel(doctype.label), singular: doctype.label });
  }
  return entries;
}

/** The heading of a service in the navigation: its label when the metadata has one, else its name, capitalised. */
export function serviceLabel(service: string, meta?: ServiceMetadata): string {
  const label = (meta as { label?: unknown } | undefined)?.label;
  if (typeof label === 'string' && label) return label;
  return service.charAt(0).toUpperCase() + service.slice(1);
}
