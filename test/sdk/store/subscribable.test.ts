import { describe, expect, it } from 'vitest';
import { SnapshotStore, Subscribable } from '../../../src/sdk/store';

/** A store whose only state is a counter; `bump` changes it and notifies. */
class Counter extends SnapshotStore<{ count: number }> {
  count = 0;
  built = 0;
  bump(): void {
    this.count++;
    this.notify();
  }
  protected override createSnapshot(): { count: number } {
    this.built++;
    return { count: this.count };
  }
}

/** Exposes `notify` and records the first-subscribe / last-unsubscribe hooks. */
class Channel extends Subscribable<(message: string) => void> {
  readonly events: string[] = [];
  send(message: string): void {
    this.notify(message);
  }
  protected override onSubscribe(): void {
    this.events.push(`subscribe:${this.hasListeners()}`);
  }
  protected override onUnsubscribe(): void {
    this.events.push(`unsubscribe:${this.hasListeners()}`);
  }
}

describe('Subscribable', () => {
  it('calls listeners in subscription order with the notified arguments', () => {
    const channel = new Channel();
    const heard: string[] = [];
    channel.subscribe((m) => heard.push(`a:${m}`));
    channel.subscribe((m) => heard.push(`b:${m}`));
    channel.send('hello');
    expect(heard).toEqual(['a:hello', 'b:hello']);
  });

  it('stops calling a listener once unsubscribed; unsubscribing twice is harmless', () => {
    const channel = new Channel();
    const heard: string[] = [];
    const off = channel.subscribe((m) => heard.push(m));
    channel.send('one');
    off();
    off();
    channel.send('two');
    expect(heard).toEqual(['one']);
    expect(channel.hasListeners()).toBe(false);
    expect(channel.events).toEqual(['subscribe:true', 'unsubscribe:false']);
  });

  it('a listener subscribed twice is held once', () => {
    const channel = new Channel();
    const heard: string[] = [];
    const listener = (m: string) => heard.push(m);
    channel.subscribe(listener);
    const off = channel.subscribe(listener);
    channel.send('x');
    off();
    channel.send('y');
    expect(heard).toEqual(['x']);
  });

  it('during a notification: a removed listener is skipped, an added one waits for the next round', () => {
    const channel = new Channel();
    const heard: string[] = [];
    let offB = () => {};
    channel.subscribe((m) => {
      heard.push(`a:${m}`);
      offB();
      channel.subscribe((n) => heard.push(`c:${n}`));
    });
    offB = channel.subscribe((m) => heard.push(`b:${m}`));
    channel.send('1');
    expect(heard).toEqual(['a:1']);
  });

  it('a listener may unsubscribe itself while being notified', () => {
    const channel = new Channel();
    const heard: string[] = [];
    const off = channel.subscribe((m) => {
      heard.push(`once:${m}`);
      off();
    });
    channel.subscribe((m) => heard.push(`always:${m}`));
    channel.send('1');
    channel.send('2');
    expect(heard).toEqual(['once:1', 'always:1', 'always:2']);
  });

  it('subscribe works detached from its store', () => {
    const channel = new Channel();
    const { subscribe } = channel;
    const heard: string[] = [];
    subscribe((m) => heard.push(m));
    channel.send('detached');
    expect(heard).toEqual(['detached']);
  });
});

describe('SnapshotStore', () => {
  it('returns the same snapshot between notifications and builds it lazily, once', () => {
    const counter = new Counter();
    expect(counter.built).toBe(0);
    const first = counter.getSnapshot();
    expect(counter.getSnapshot()).toBe(first);
    expect(counter.built).toBe(1);
    counter.bump();
    counter.bump();
    expect(counter.built).toBe(1);
    const second = counter.getSnapshot();
    expect(second).not.toBe(first);
    expect(second).toEqual({ count: 2 });
    expect(counter.getSnapshot()).toBe(second);
    expect(counter.built).toBe(2);
  });

  it('listeners read the new snapshot when notified (the useSyncExternalStore contract)', () => {
    const counter = new Counter();
    const { getSnapshot, subscribe } = counter;
    const seen: number[] = [];
    subscribe(() => seen.push(getSnapshot().count));
    counter.bump();
    counter.bump();
    expect(seen).toEqual([1, 2]);
  });

  it('caches a snapshot of undefined too', () => {
    let builds = 0;
    class Empty extends SnapshotStore<undefined> {
      protected override createSnapshot(): undefined {
        builds++;
        return undefined;
      }
    }
    const empty = new Empty();
    empty.getSnapshot();
    empty.getSnapshot();
    expect(builds).toBe(1);
  });
});
