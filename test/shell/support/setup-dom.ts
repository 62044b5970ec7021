/**
 * Setup of the dom projects. `findBy*` and `waitFor` wait for a state the test names; their timeout only
 * stops a test that would otherwise hang, like vitest's own. Testing Library's default (1 s) is shorter
 * than the mock backend's answer on a loaded two-core machine running two test files at once, so it is
 * raised here for every dom test rather than file by file.
 *
 * The `dom` project's files share their worker's modules and its page (vitest.config.ts): each file starts
 * as it would in a page of its own, with empty storage and an empty document. The mock backend's cookies are
 * kept by MSW in memory for the whole worker, out of reach: a file that ends signed in would send its
 * session to the next file's backend, which refuses it (401) in whatever that file does first. So a file
 * must sign out before it ends, and one that does not fails here, naming itself.
 */
import { configure } from '@testing-library/react';
import { afterAll, beforeAll, expect } from 'vitest';
import { securityClient } from '../../../src/sdk/security';

configure({ asyncUtilTimeout: 15_000 });

beforeAll(() => {
  // The SDK's default security client keeps the security config and the JWKS keys it fetched, as a page
  // does: the previous file's backend had other keys, so a body would be encrypted to a key this file's
  // backend does not hold (refused, then sent again: two requests where the file expects one).
  securityClient.reset();
  localStorage.clear();
  sessionStorage.clear();
  document.head.innerHTML = '';
  document.body.innerHTML = '';
});

/** Where MSW mirrors the cookies its handlers set (its in-memory store is what requests carry). */
const MSW_COOKIES = '__msw-cookie-store__';

afterAll(() => {
  const stored = JSON.parse(localStorage.getItem(MSW_COOKIES) ?? '[]') as Array<{
    key: string;
    value?: string;
    expires?: string;
    maxAge?: number | string;
  }>;
  // A sign-out leaves its cookie behind emptied and expired: only one still sent counts.
  const sent = stored.filter(
    (c) =>
      c.value &&
      !(c.expires && c.expires !== 'Infinity' && Date.parse(c.expires) <= Date.now()) &&
      !(c.maxAge !== undefined && Number(c.maxAge) <= 0),
  );
  expect(
    sent.map((c) => c.key),
    'cookies left by this file for the next one in its worker: sign out (platform.logout()) before it ends',
  ).toEqual([]);
});
