/**
 * Setup file of every project (vitest.config.ts): the temporary folders a test file's helpers made
 * (test/helpers/file-temp-dirs.ts) are removed after it. Hooks of a setup file are registered first, on each
 * file's root suite, so this one runs after the file's own `afterAll` hooks have closed what used them.
 */
import { afterAll } from 'vitest';
import { removeFileTempDirs } from './file-temp-dirs';

afterAll(removeFileTempDirs);
