/**
 * Developer details of the remotes (a collapsed section on the home page): per service the entry the Desk
 * loads, its published integrity hash, whether it is overridden, the release this tab runs, the live one and
 * the user's channel (live, canary or pinned; asked of the gateway again when the section opens), and
 * shared-version mismatches; and, when
 * this Desk allows overrides, a form to point one service's remote at a dev server.
 */
import { type FormEvent, useId, useState } from 'react';
import { REMOTES_PATH, type RemotesMap } from '../../protocol';
import { fetchWithCredentials } from '../../sdk/http';
import { useCatalog } from '../hooks/use-catalog';
import { usePlatform } from '../hooks/use-platform';
import { releaseInfo } from '../platform/releases';
import { adoptStyles } from '../styles/adopt-styles';
import devtoolsCss from '../styles/devtools.css';

adoptStyles('devtools', devtoolsCss);

const REFUSALS: Record<string, string> = {
  not_allowed: 'This Desk does not allow remote overrides.',
  invalid_service: 'Give a service name (lower-case letters, digits and _).',
  invalid_origin: 'Only http://localhost, http://127.0.0.1 and the origins this Desk lists are allowed.',
};

/** The developer details section. */
export function DeveloperDetails(): React.JSX.Element {
  const { overrides, remotes, config } = usePlatform();
  const snapshot = useCatalog();
  // The remotes map as the tab started with it, until the section is opened and asks again.
  const [current, setCurrent] = useState<RemotesMap>();
  const remotesNow = current ?? (snapshot.remotes.status === 'ready' ? snapshot.remotes.value : {});
  const onToggle = (event: React.SyntheticEvent<HTMLDetailsElement>) => {
    if (!event.currentTarget.open) return;
    fetchWithCredentials<RemotesMap>(`${config.gatewayUrl}${REMOTES_PATH}`).then(setCurrent, () => {});
  };
  const uid = useId();
  const [service, setService] = useState('');
  const [url, setUrl] = useState('');
  const [refusal, setRefusal] = useState<string | undefined>();
  const active = overrides.list();
  const services = Object.values(snapshot.services)
    .filter((s) => s.url)
    .sort((a, b) => a.service.localeCompare(b.service));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const result = overrides.set(service.trim(), url.trim());
    if (!result.ok) return setRefusal(REFUSALS[result.reason]);
    window.location.reload();
  };

  return (
    <details className="desk-devtools" onToggle={onToggle}>
      <summary>Developer details</summary>
      <table className="desk-devtools__table">
        <thead>
          <tr>
            <th scope="col" className="desk-devtools__cell">
              Service
            </th>
            <th scope="col" className="desk-devtools__cell">
              Remote entry
            </th>
            <th scope="col" className="desk-devtools__cell">
              Integrity
            </th>
            <th scope="col" className="desk-devtools__cell">
              Release
            </th>
            <th scope="col" className="desk-devtools__cell">
              Shared versions
            </th>
          </tr>
        </thead>
        <tbody>
          {services.map((s) => {
            const mismatches = remotes.sharedMismatches(s.service);
            const release = releaseInfo(s.url, remotesNow[s.service]);
            return (
              <tr key={s.service}>
                <th scope="row" className="desk-devtools__cell">
                  {s.service}
                </th>
                <td className="desk-devtools__cell">
                  <code>{active[s.service] ?? s.url}</code>
                  {active[s.service] ? <span className="desk-devtools__flag"> overridden</span> : null}
                </td>
                <td className="desk-devtools__cell">
                  {active[s.service] ? (
                    'not checked (override)'
                  ) : (
                    <code>{s.integrity ?? 'none published'}</code>
                  )}
                </td>
                <td className="desk-devtools__cell">
                  {release.tab || release.live ? (
                    <dl className="desk-devtools__release">
                      <dt>This tab</dt>
                      <dd>
                        <code>{release.tab ?? 'static build'}</code>
                      </dd>
                      <dt>Live</dt>
                      <dd>
                        <code>{release.live ?? 'none'}</code>
                      </dd>
                      <dt>Your channel</dt>
                      <dd>{release.channel ?? '—'}</dd>
                    </dl>
                  ) : (
                    'not a release (static build)'
                  )}
                </td>
                <td className="desk-devtools__cell">
                  {mismatches.length === 0
                    ? 'match the Desk'
                    : mismatches.map((m) => (
                        <p key={m.package} role="alert">
                          {m.package}: remote {m.remoteVersion}, Desk {m.deskVersion}
                        </p>
                      ))}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {overrides.allowed ? (
        <form className="desk-devtools__form" onSubmit={submit} aria-label="Override a remote">
          <div className="desk-field">
            <label htmlFor={`${uid}-service`}>Service</label>
            <input id={`${uid}-service`} value={service} onChange={(e) => setService(e.target.value)} />
          </div>
          <div className="desk-field desk-devtools__url">
            <label htmlFor={`${uid}-url`}>Dev server entry URL</label>
            <input
              id={`${uid}-url`}
              value={url}
              placeholder="http://localhost:3001/remoteEntry.js"
              onChange={(e) => setUrl(e.target.value)}
            />
          </div>
          <button type="submit" className="desk-button">
            Override
          </button>
          {refusal ? (
            <p role="alert" className="desk-field__error">
              {refusal}
            </p>
          ) : null}
        </form>
      ) : (
        <p className="desk-field__hint">
          Remote overrides are off on this Desk (desk.allow_remote_overrides).
        </p>
      )}
    </details>
  );
}
