/** The page shown when `__PLATFORM_CONFIG__` is missing or invalid: the Desk cannot know where its backend is. */
import { describeError } from './states';

/** A full-page, readable explanation of a configuration problem. */
export function ConfigError({ error }: { error: unknown }): React.JSX.Element {
  const { code, message } = describeError(error);
  const fields = (error as { fields?: Array<{ field: string; message: string }> } | null)?.fields ?? [];
  return (
    <main className="desk-fatal" role="alert" aria-labelledby="desk-fatal-title">
      <h1 id="desk-fatal-title">The Desk cannot start</h1>
      <p>
        Its configuration (<code>__PLATFORM_CONFIG__</code>) is missing or invalid. The backend injects it
        when it serves <code>/desk/</code>; open the Desk through the backend, or run <code>npm run dev</code>{' '}
        for offline development.
      </p>
      <p>
        {message} {code ? <code>{code}</code> : null}
      </p>
      {fields.length > 0 ? (
        <ul>
          {fields.map((f) => (
            <li key={f.field}>
              <code>{f.field}</code>: {f.message}
            </li>
          ))}
        </ul>
      ) : null}
    </main>
  );
}
