/**
 * The services this tab has seen, with their labels, kept for the tab's life (`sessionStorage`, so a reload
 * remembers them): a page of a service that is down right now (restarting, updating, its heartbeat
 * lapsed) then says so and offers to try again, instead of claiming no app provides it.
 */

const STORAGE_KEY = 'desk.seen-services';

function storage(): Storage | undefined {
  try {
    return globalThis.sessionStorage;
  } catch {
    return undefined; // storage blocked by the browser's privacy settings
  }
}

/** The services seen so far, by name, with their label when one was known. */
export function seenServices(): Record<string, string | null> {
  try {
    const parsed = JSON.parse(storage()?.getItem(STORAGE_KEY) ?? '{}') as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, string | null>)
      : {};
  } catch {
    return {};
  }
}

/** Remembers services seen now (a label replaces none; none never replaces a label). */
export function rememberServices(services: Readonly<Record<string, string | undefined>>): void {
  const seen = seenServices();
  let changed = false;
  for (const [service, label] of Object.entries(services)) {
    if (service in seen && (label === undefined || seen[service] === label)) continue;
    seen[service] = label ?? seen[service] ?? null;
    changed = true;
  }
  if (!changed) return;
  try {
    storage()?.setItem(STORAGE_KEY, JSON.stringify(seen));
  } catch {
    // A full or blocked storage only loses the memory, not the page.
  }
}

/**
 * The service a DocType's name points at (`crm.Customer` -> `crm`): the apps name their DocTypes after
 * themselves, so this names the likely owner of a DocType discovery does not know right now.
 */
export function serviceOfDocType(docType: string): string | undefined {
  return /^([a-z][a-z0-9_]{0,63})\.[A-Z]/.exec(docType)?.[1];
}
