/**
 * Setup of the dom project. `findBy*` and `waitFor` wait for a state the test names; their timeout only
 * stops a test that would otherwise hang, like vitest's own. Testing Library's default (1 s) is shorter
 * than the mock backend's answer on a loaded two-core machine running two test files at once, so it is
 * raised here for every dom test rather than file by file.
 */
import { configure } from '@testing-library/react';

configure({ asyncUtilTimeout: 15_000 });
