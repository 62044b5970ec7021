/**
 * Setup of the dom projects. `findBy*` and `waitFor` wait for a state the test names; their timeout only
 * stops a test that would otherwise hang, like vitest's own. Testing Library's default (1 s) is shorter
 * than the mock backend's answer on a loaded two-core machine running two test files at once, so it is
 * raised here for every dom test rather than file by file.
 *
 * The `dom` project's files share their worker's modules and its page (vitest.config.ts): each file starts
 * as it would in a page of its own, with empty storage and an empty document.
 */
import { configure } from '@testing-library/react';
import { beforeAll } from 'vitest';

configure({ asyncUtilTimeout: 15_000 });

beforeAll(() => {
  localStorage.clear();
  sessionStorage.clear();
  document.head.innerHTML = '';
  document.body.innerHTML = '';
});
