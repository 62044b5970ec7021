/**
 * Short confirmations shown after an action ("Customer saved."), in one polite live region. Each notice
 * goes away on its own after a few seconds or when dismissed.
 */
import { SnapshotStore } from '../../sdk/store';

/** One notice on screen. */
export interface Notice {
  id: number;
  message: string;
  tone: 'success' | 'error';
}

/** How long a notice stays, in milliseconds. */
export const NOTICE_MS = 5_000;

/** The notices currently shown, newest last. */
export class NoticeStore extends SnapshotStore<readonly Notice[]> {
  #notices: readonly Notice[] = [];
  #next = 1;

  /** Shows `message`; returns its id. */
  show(message: string, tone: Notice['tone'] = 'success'): number {
    const id = this.#next++;
    this.#notices = [...this.#notices.slice(-2), { id, message, tone }];
    this.notify();
    setTimeout(() => this.dismiss(id), NOTICE_MS);
    return id;
  }

  /** Removes a notice. */
  dismiss(id: number): void {
    if (!this.#notices.some((n) => n.id === id)) return;
    this.#notices = this.#notices.filter((n) => n.id !== id);
    this.notify();
  }

  /** The notices as they are now. */
  protected override createSnapshot(): readonly Notice[] {
    return this.#notices;
  }
}
