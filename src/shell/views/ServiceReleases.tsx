/**
 * One service on the Releases page: where its channel stands (live, canary, pins), Roll back, its kept
 * releases with Promote, and its history (who did what and when; a forced move with the differences it
 * overrode).
 */
import { useCallback, useEffect, useId, useState } from 'react';
import type { ReleaseHistoryEntry, ServiceReleasesAnswer } from '../../protocol';
import { usePlatform } from '../hooks/use-platform';
import { forcedDifferences, historySentence, rollbackTarget } from '../releases/release-words';
import { releasesApi } from '../releases/releases-api';
import { adoptStyles } from '../styles/adopt-styles';
import releasesCss from '../styles/releases.css';
import { DifferenceList, type ReleaseMove, ReleaseMoveDialog } from './ReleaseMoveDialog';
import { ErrorState, Loading } from './states';

adoptStyles('releases', releasesCss);

/** A time of the releases API (ms since the epoch) in the user's locale. */
function timeOf(ms: number | null): string {
  if (ms === null) return '—';
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(ms);
}

function HistoryLine({ entry }: { entry: ReleaseHistoryEntry }): React.JSX.Element {
  const differences = forcedDifferences(entry);
  return (
    <li className={entry.forced ? 'desk-release__forced' : undefined}>
      <time dateTime={new Date(entry.at).toISOString()}>{timeOf(entry.at)}</time> {historySentence(entry)}
      {differences.length > 0 ? <DifferenceList differences={differences} /> : null}
    </li>
  );
}

/** Props of {@link ServiceReleases}. */
export interface ServiceReleasesProps {
  service: string;
  label: string;
}

/** The section of one service. */
export function ServiceReleases({ service, label }: ServiceReleasesProps): React.JSX.Element {
  const { config, notices } = usePlatform();
  const headingId = useId();
  const [answer, setAnswer] = useState<ServiceReleasesAnswer>();
  const [error, setError] = useState<unknown>();
  const [move, setMove] = useState<ReleaseMove>();
  const api = releasesApi(config.gatewayUrl);

  const reload = useCallback(() => {
    releasesApi(config.gatewayUrl)
      .service(service)
      .then((a) => {
        setAnswer(a);
        setError(undefined);
      })
      .catch(setError);
  }, [config.gatewayUrl, service]);
  useEffect(reload, [reload]);

  const back = answer && rollbackTarget(answer);
  const run = async (force: boolean) => {
    if (!move) return;
    if (move.kind === 'promote') await api.promote(service, move.version, force);
    else await api.rollback(service, force);
  };
  const closed = (done: boolean) => {
    if (done && move) {
      notices.show(
        move.kind === 'promote'
          ? `${label} ${move.version} is live.`
          : `${label} rolled back: ${move.version} is live again.`,
      );
      reload();
    }
    setMove(undefined);
  };

  return (
    <section className="desk-release" aria-labelledby={headingId}>
      <h2 id={headingId} className="desk-release__title">
        {label}
      </h2>
      {error ? (
        <ErrorState title={`The releases of ${label} could not be loaded.`} error={error} onRetry={reload} />
      ) : !answer ? (
        <Loading />
      ) : (
        <>
          <dl className="desk-release__channel">
            <dt>Live</dt>
            <dd>{answer.channel.live ? <code>{answer.channel.live}</code> : 'none yet'}</dd>
            <dt>Canary</dt>
            <dd>
              {answer.channel.canary ? (
                <>
                  <code>{answer.channel.canary.version}</code> for {answer.channel.canary.percent}% of users
                </>
              ) : (
                'none'
              )}
            </dd>
            <dt>Pins</dt>
            <dd>
              {answer.pins.length === 0 ? (
                'none'
              ) : (
                <ul>
                  {answer.pins.map((p) => (
                    <li key={`${p.kind}:${p.subject}`}>
                      {p.kind === 'role' ? 'Role' : 'User'} {p.subject}: <code>{p.version}</code>
                    </li>
                  ))}
                </ul>
              )}
            </dd>
          </dl>
          <div className="desk-actions">
            <button
              type="button"
              className="desk-button"
              disabled={!back}
              aria-describedby={back ? undefined : `${headingId}-no-rollback`}
              onClick={() => back && setMove({ kind: 'rollback', version: back, label })}
            >
              Roll back{back ? ` to ${back}` : ''}
            </button>
            {back ? null : (
              <span id={`${headingId}-no-rollback`} className="desk-field__hint">
                No earlier live release to go back to.
              </span>
            )}
          </div>
          <h3 className="desk-release__subtitle">Kept releases</h3>
          <div className="desk-table-wrap">
            <table className="desk-table" aria-label={`Releases of ${label}`}>
              <thead>
                <tr>
                  <th scope="col">Version</th>
                  <th scope="col">Published by</th>
                  <th scope="col">Published</th>
                  <th scope="col">In use</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {answer.releases.map((r) => (
                  <tr key={r.version}>
                    <th scope="row">
                      <code>{r.version}</code>
                    </th>
                    <td>{r.publisher}</td>
                    <td>{r.state === 'published' ? timeOf(r.publishedAt) : 'uploading…'}</td>
                    <td>{r.channels.join(', ') || '—'}</td>
                    <td>
                      {r.state === 'published' && answer.channel.live !== r.version ? (
                        <button
                          type="button"
                          className="desk-button desk-button--small"
                          aria-label={`Promote ${r.version}`}
                          onClick={() => setMove({ kind: 'promote', version: r.version, label })}
                        >
                          Promote
                        </button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h3 className="desk-release__subtitle">History</h3>
          {answer.history.length === 0 ? (
            <p>Nothing happened yet.</p>
          ) : (
            <ol className="desk-release__history" aria-label={`History of ${label}`}>
              {answer.history.map((e) => (
                <HistoryLine key={e.seq} entry={e} />
              ))}
            </ol>
          )}
        </>
      )}
      {move ? <ReleaseMoveDialog move={move} run={run} onClose={closed} /> : null}
    </section>
  );
}
