/**
 * The gateway reuses a discovery answer only while the directory is unchanged: a repeated body gets the same
 * answer, and a manifest change (the directory's listener firing) is visible to the very next query.
 */
import { describe, expect, it } from 'vitest';
import { createDiscoveryAnswers } from '../../../backend/gateway/discovery-cache';
import type { DirectoryListener, ServiceDirectory } from '../../../backend/gateway/service-directory';
import type { ServiceManifest } from '../../../src/protocol';

function manifest(service: string, rev: number, doctypes: string[]): ServiceManifest {
  return {
    service,
    rev,
    doctypes,
    url: null,
    apiUrl: `http://127.0.0.1/${service}/api`,
    metaUrl: `http://127.0.0.1/${service}/meta`,
  } as unknown as ServiceManifest;
}

/** A directory whose manifests the test replaces, notifying listeners as a real one does. */
function mutableDirectory(initial: ServiceManifest[]) {
  let manifests = initial;
  const listeners = new Set<DirectoryListener>();
  const directory: Pick<ServiceDirectory, 'get' | 'ownerOf' | 'list' | 'subscribe'> = {
    get: (service) => manifests.find((m) => m.service === service),
    list: () => manifests,
    ownerOf: (doctype) => manifests.find((m) => m.doctypes.includes(doctype))?.service,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return {
    directory,
    replace(next: ServiceManifest[]) {
      manifests = next;
      for (const l of listeners) l(next);
    },
    listeners,
  };
}

const limits = { maxResources: 50, maxBodyBytes: 65536 };
const body = JSON.stringify({ resources: ['crm.Customer', 'stock.Item'] });

describe('createDiscoveryAnswers', () => {
  it('answers a repeated body alike, and follows a directory change at once', () => {
    const dir = mutableDirectory([manifest('crm', 1, ['crm.Customer'])]);
    const answers = createDiscoveryAnswers(dir.directory, limits);
    const first = JSON.parse(answers.answer(body));
    expect(first.resources).toEqual({ 'crm.Customer': 'crm', 'stock.Item': null });
    expect(answers.answer(body)).toBe(JSON.stringify(first));

    dir.replace([manifest('crm', 2, ['crm.Customer']), manifest('stock', 1, ['stock.Item'])]);
    const second = JSON.parse(answers.answer(body));
    expect(second.resources).toEqual({ 'crm.Customer': 'crm', 'stock.Item': 'stock' });
    expect(second.services.crm.rev).toBe(2);
  });

  it('gives the same answer as UTF-8 bytes, and new bytes after a directory change', () => {
    const dir = mutableDirectory([manifest('crm', 1, ['crm.Customer'])]);
    const answers = createDiscoveryAnswers(dir.directory, limits);
    expect(new TextDecoder().decode(answers.answerBytes(body))).toBe(answers.answer(body));
    dir.replace([manifest('stock', 1, ['stock.Item'])]);
    const after = JSON.parse(new TextDecoder().decode(answers.answerBytes(body)));
    expect(after.resources).toEqual({ 'crm.Customer': null, 'stock.Item': 'stock' });
  });

  it('still validates every body, and stops listening when closed', () => {
    const dir = mutableDirectory([]);
    const answers = createDiscoveryAnswers(dir.directory, limits);
    expect(() => answers.answer('{"resources":[1]}')).toThrow();
    expect(() => answers.answer('{"resources":[1]}')).toThrow();
    answers.close();
    expect(dir.listeners.size).toBe(0);
  });
});
