import { describe, expect, it } from 'vitest';
import { createCleanupStack } from '../../../backend/lifecycle/cleanup-stack';

describe('createCleanupStack', () => {
  it('releases in reverse order of registration', async () => {
    const order: string[] = [];
    const stack = createCleanupStack(() => {});
    stack.defer(() => {
      order.push('database');
    });
    stack.defer(async () => {
      order.push('server');
    });
    await stack.close();
    expect(order).toEqual(['server', 'database']);
  });

  it('logs a failing step and still runs the others', async () => {
    const order: string[] = [];
    const lines: string[] = [];
    const stack = createCleanupStack((line) => lines.push(line));
    stack.defer(() => {
      order.push('first');
    });
    stack.defer(() => {
      throw new Error('socket gone');
    });
    await stack.close();
    expect(order).toEqual(['first']);
    expect(lines).toEqual(['close failed: socket gone']);
  });

  it('is idempotent: a second close runs nothing again', async () => {
    let runs = 0;
    const stack = createCleanupStack(() => {});
    stack.defer(() => {
      runs += 1;
    });
    await Promise.all([stack.close(), stack.close()]);
    await stack.close();
    expect(runs).toBe(1);
  });

  it('runs a step registered after close at once', async () => {
    const stack = createCleanupStack(() => {});
    await stack.close();
    let ran = false;
    stack.defer(() => {
      ran = true;
    });
    await stack.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toBe(true);
  });
});
