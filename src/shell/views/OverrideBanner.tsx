/**
 * The banner shown while any service's remote is overridden (local development): it names each override
 * and resets it. A reset reloads the page, so every remote comes from its published entry again.
 */
import { usePlatform } from '../hooks/use-platform';

/** One line per overridden service, with Reset; nothing when there is none. */
export function OverrideBanner(): React.JSX.Element | null {
  const { overrides } = usePlatform();
  const active = Object.entries(overrides.list());
  if (active.length === 0) return null;
  return (
    <div
      className="desk-banner desk-banner--warning desk-override-banner"
      role="status"
      aria-label="Remote overrides"
    >
      {active.map(([service, url]) => (
        <p key={service}>
          <strong>{service}</strong> remote overridden: loaded from <code>{url}</code>{' '}
          <button
            type="button"
            className="desk-button desk-button--small"
            onClick={() => {
              overrides.reset(service);
              window.location.reload();
            }}
          >
            Reset {service}
          </button>
        </p>
      ))}
    </div>
  );
}
