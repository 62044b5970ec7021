/** The live region of short confirmations ("Customer saved."): polite for successes, assertive for failures. */
import { useSyncExternalStore } from 'react';
import { usePlatform } from '../hooks/use-platform';

/** The notices, bottom right; each can be dismissed. */
export function Notices(): React.JSX.Element {
  const { notices } = usePlatform();
  const list = useSyncExternalStore(notices.subscribe, notices.getSnapshot);
  return (
    <div className="desk-notices" role="status" aria-live="polite">
      {list.map((notice) => (
        <div key={notice.id} className={`desk-notice desk-notice--${notice.tone}`}>
          <span>{notice.message}</span>
          <button
            type="button"
            className="desk-notice__close"
            aria-label="Dismiss"
            onClick={() => notices.dismiss(notice.id)}
          >
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
