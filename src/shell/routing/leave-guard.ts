/**
 * The guard against leaving a form with unsaved changes. A form with edits registers a guard; while it is
 * registered and dirty, a route change (a link, `navigate`, the Back button: every one is a `hashchange`)
 * is held: the Desk keeps showing the form and asks the user to Save, Discard or Stay. Closing or reloading
 * the tab asks the browser's own question (`beforeunload`). The URL is the route's only source, so this
 * module sits between the URL and {@link useRoute}: it hands out the hash the Desk should show.
 */
import { SnapshotStore } from '../../sdk/store';

/** What a form with edits registers. */
export interface LeaveGuard {
  /** True while there are edits the user would lose. */
  isDirty(): boolean;
  /** Saves the edits; resolves true when they were stored (false: the form shows why not). */
  save(): Promise<boolean>;
}

/** The state a screen reads: the hash to show, and the one the user tried to go to while held. */
export interface LeaveState {
  /** The hash the Desk renders. */
  hash: string;
  /** Set while a route change waits for the user's choice. */
  pending?: string;
  /** True while the guard's save runs. */
  saving?: boolean;
}

/** Holds route changes while a dirty form is open (one per window). */
export class LeaveGuardStore extends SnapshotStore<LeaveState> {
  #guard: LeaveGuard | undefined;
  #state: LeaveState;

  readonly #onHash = () => this.#onHashChange();
  readonly #onUnload = (event: BeforeUnloadEvent) => {
    if (!this.#guard?.isDirty()) return;
    // Both spellings: the standard one and the one older browsers still need to ask.
    event.preventDefault();
    event.returnValue = '';
  };

  constructor(private readonly win: Window) {
    super();
    this.#state = { hash: win.location.hash };
    win.addEventListener('hashchange', this.#onHash);
    win.addEventListener('beforeunload', this.#onUnload);
  }

  /** Stops following the window (a store that is no longer used). */
  dispose(): void {
    this.win.removeEventListener('hashchange', this.#onHash);
    this.win.removeEventListener('beforeunload', this.#onUnload);
    this.#guard = undefined;
  }

  /** Registers the open form's guard; the returned function removes it (when the form closes). */
  register(guard: LeaveGuard): () => void {
    this.#guard = guard;
    return () => {
      if (this.#guard === guard) this.#guard = undefined;
    };
  }

  /** Drops the open form's guard: its edits no longer matter (the record was deleted). */
  forget(): void {
    this.#guard = undefined;
  }

  /** Stay: the held route change is undone (the URL shows the form's route again). */
  stay(): void {
    if (this.#state.pending === undefined) return;
    this.win.history.replaceState(this.win.history.state, '', this.#state.hash || '#/');
    this.#set({ hash: this.#state.hash });
  }

  /** Discard: the edits are dropped and the held route change goes ahead. */
  discard(): void {
    const pending = this.#state.pending;
    if (pending === undefined) return;
    this.#guard = undefined;
    this.#go(pending);
  }

  /** Save: the edits are saved, then the held route change goes ahead; if the save fails, the form stays. */
  async save(): Promise<void> {
    const pending = this.#state.pending;
    const guard = this.#guard;
    if (pending === undefined || !guard) return;
    this.#set({ ...this.#state, saving: true });
    const saved = await guard.save().catch(() => false);
    if (saved) {
      this.#guard = undefined;
      this.#go(pending);
    } else {
      this.#set({ hash: this.#state.hash });
      this.win.history.replaceState(this.win.history.state, '', this.#state.hash || '#/');
    }
  }

  protected override createSnapshot(): LeaveState {
    return this.#state;
  }

  #go(hash: string): void {
    // The form's own save may have moved the URL (a new record gets its id): go where the user asked.
    if (this.win.location.hash !== hash) this.win.location.hash = hash;
    this.#set({ hash: this.win.location.hash });
  }

  /**
   * Reads the URL now, as its `hashchange` will a task later. The Desk's own navigations call it, so the
   * screen follows in the same event as the click that moved the URL: a controlled control (a column's
   * checkbox) shows its new state at once instead of its old one until the event arrives.
   */
  followUrl(): void {
    this.#onHashChange();
  }

  #onHashChange(): void {
    const hash = this.win.location.hash;
    // Already followed (the Desk's own navigation called followUrl before its event arrived).
    if (hash === this.#state.hash && this.#state.pending === undefined) return;
    if (this.#state.pending !== undefined) {
      // A change while the question is open: the user went on anyway (typed a URL); the question stays.
      if (hash !== this.#state.hash) this.#set({ ...this.#state, pending: hash });
      return;
    }
    if (hash !== this.#state.hash && this.#guard?.isDirty()) {
      this.#set({ hash: this.#state.hash, pending: hash });
      return;
    }
    this.#set({ hash });
  }

  #set(state: LeaveState): void {
    this.#state = state;
    this.notify();
  }
}

let shared: LeaveGuardStore | undefined;

/** The window's guard store, created on first use. */
export function leaveGuard(): LeaveGuardStore {
  shared ??= new LeaveGuardStore(window);
  return shared;
}
