/**
 * What counts as a chunk that failed to download, and the one retry after it: discovery is asked again
 * first, a second chunk failure becomes `remote_chunk_failed`, and any other failure passes unchanged.
 */
import { describe, expect, it, vi } from 'vitest';
import { SdkError } from '../../../src/sdk/errors';
import { isChunkLoadError, withChunkRetry } from '../../../src/shell/platform/chunk-retry';

const chunkError = () =>
  Object.assign(new Error('Loading chunk 318 failed.\n(error: http://desk.test/desk/assets/crm/318.js)'), {
    name: 'ChunkLoadError',
  });

describe('isChunkLoadError', () => {
  it("recognises webpack's ChunkLoadError, failed dynamic imports and a load failure caused by one", () => {
    expect(isChunkLoadError(chunkError())).toBe(true);
    expect(isChunkLoadError(new Error('Loading CSS chunk 12 failed.'))).toBe(true);
    expect(isChunkLoadError(new TypeError('Failed to fetch dynamically imported module: /x.js'))).toBe(true);
    expect(
      isChunkLoadError(new SdkError('remote_load_failed', 'could not load ./views', { cause: chunkError() })),
    ).toBe(true);
  });

  it('leaves other failures alone', () => {
    expect(isChunkLoadError(new Error('customerForm is not a function'))).toBe(false);
    expect(isChunkLoadError(new SdkError('remote_load_failed', 'remoteEntry.js answered 500'))).toBe(false);
    expect(isChunkLoadError(undefined)).toBe(false);
    expect(isChunkLoadError('Loading chunk 1 failed')).toBe(false);
  });
});

describe('withChunkRetry', () => {
  it('asks discovery again, then loads once more', async () => {
    const steps: string[] = [];
    const load = vi.fn(async () => {
      steps.push('load');
      if (steps.length === 1) throw chunkError();
      return 'views';
    });
    const reResolve = vi.fn(async () => {
      steps.push('re-resolve');
    });
    await expect(withChunkRetry('crm', load, reResolve)).resolves.toBe('views');
    expect(steps).toEqual(['load', 're-resolve', 'load']);
  });

  it('turns a second chunk failure into remote_chunk_failed, after exactly one retry', async () => {
    const load = vi.fn(async () => {
      throw chunkError();
    });
    const reResolve = vi.fn(async () => {});
    await expect(withChunkRetry('crm', load, reResolve)).rejects.toMatchObject({
      code: 'remote_chunk_failed',
    });
    expect(load).toHaveBeenCalledTimes(2);
    expect(reResolve).toHaveBeenCalledTimes(1);
  });

  it('rethrows any other failure without asking discovery', async () => {
    const failure = new SdkError('remote_integrity_failed', 'changed after publication');
    const reResolve = vi.fn(async () => {});
    await expect(
      withChunkRetry(
        'crm',
        async () => {
          throw failure;
        },
        reResolve,
      ),
    ).rejects.toBe(failure);
    expect(reResolve).not.toHaveBeenCalled();
  });
});
