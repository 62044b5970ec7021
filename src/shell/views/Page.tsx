/**
 * The frame of a DocType's screen: its title (with the way back to the list on a record), the owning
 * service for who may see developer details, the screen's actions, and the screen itself.
 */
import { formatRoute } from '../routing/route';
import { useDeveloperDetails } from '../words/developer-details';

/** Props of {@link Page}. */
export interface PageProps {
  title: string;
  service: string;
  docType: string;
  actions?: React.ReactNode;
  back?: () => void;
  backLabel?: string;
  children: React.ReactNode;
}

/** A DocType screen's header and content. */
export function Page({
  title,
  service,
  docType,
  actions,
  back,
  backLabel,
  children,
}: PageProps): React.JSX.Element {
  const developer = useDeveloperDetails();
  return (
    <div className="desk-page">
      <div className="desk-page__header">
        <div>
          {back ? (
            <a
              className="desk-page__back"
              href={formatRoute({ kind: 'list', docType })}
              onClick={(e) => {
                e.preventDefault();
                back();
              }}
            >
              ← {backLabel}
            </a>
          ) : null}
          <h1 className="desk-page__title">{title}</h1>
          {developer ? (
            <p className="desk-page__service">
              <code>{docType}</code> · service <code>{service}</code>
            </p>
          ) : null}
        </div>
        {actions ? <div className="desk-actions">{actions}</div> : null}
      </div>
      {children}
    </div>
  );
}
