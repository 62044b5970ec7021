/**
 * Keeps the tabs of one browser in step about the session: a sign-out in one tab signs out every tab, and a
 * sign-in lets tabs showing the sign-in screen check the session again. Messages carry no credential, only
 * what happened (`BroadcastChannel`, same origin only).
 */

/** What one tab tells the others. */
export type SessionEvent = 'signed-in' | 'signed-out';

const CHANNEL = 'desk.session';

/** A channel to the other tabs; a no-op where `BroadcastChannel` does not exist. */
export interface SessionChannel {
  post(event: SessionEvent): void;
  /** Listens to the other tabs; returns the function that stops listening. */
  listen(listener: (event: SessionEvent) => void): () => void;
}

/** Opens the session channel of this page. */
export function openSessionChannel(): SessionChannel {
  const Channel = (globalThis as { BroadcastChannel?: typeof BroadcastChannel }).BroadcastChannel;
  if (!Channel) return { post: () => {}, listen: () => () => {} };
  const channel = new Channel(CHANNEL);
  return {
    post: (event) => channel.postMessage(event),
    listen(listener) {
      const onMessage = (message: MessageEvent) => {
        if (message.data === 'signed-in' || message.data === 'signed-out') listener(message.data);
      };
      channel.addEventListener('message', onMessage);
      return () => {
        channel.removeEventListener('message', onMessage);
        channel.close();
      };
    },
  };
}
