/** The sign-in screen (session login, `POST /api/method/login` with `usr` / `pwd`). */
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { isSdkError } from '../../sdk/errors';
import { usePlatform } from '../hooks/use-platform';
import { adoptStyles } from '../styles/adopt-styles';
import loginCss from '../styles/login.css';
import { failureWords } from '../words/failure';

adoptStyles('login', loginCss);

/** Sign-ins sent again by themselves after the server answered `login_busy`, before it shows as an error. */
const BUSY_RETRIES = 5;
/** The longest pause taken on the server's word; a longer `Retry-After` shows as an error at once. */
const MAX_BUSY_WAIT_MS = 60_000;

/**
 * The pause a refused sign-in asks for: the server checks passwords a few at a time and, when its queue is
 * full, answers 503 `login_busy` with the `Retry-After` of the sign-in's turn (docs/security.md#login-throttling).
 */
function busyWaitMs(error: unknown): number | undefined {
  if (!isSdkError(error) || error.code !== 'login_busy') return undefined;
  const ms = error.retryAfterMs;
  return ms !== undefined && ms <= MAX_BUSY_WAIT_MS ? ms : undefined;
}

/** Resolves after `ms`, counting the whole seconds left down through `tick`; false if `signal` aborted. */
function countDown(ms: number, tick: (seconds: number) => void, signal: AbortSignal): Promise<boolean> {
  const end = Date.now() + ms;
  return new Promise((resolve) => {
    const step = () => {
      if (signal.aborted) return resolve(false);
      const left = end - Date.now();
      if (left <= 0) return resolve(true);
      tick(Math.ceil(left / 1000));
      setTimeout(step, Math.min(left, ((left - 1) % 1000) + 1));
    };
    step();
  });
}

/** Sign-in form; `expired` explains why it shows again. */
export function LoginScreen({ expired }: { expired?: boolean }): React.JSX.Element {
  const { login } = usePlatform();
  // Empty, and focused: the Desk suggests no account's name, not even the Administrator's.
  const [usr, setUsr] = useState('');
  const [pwd, setPwd] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  /** Seconds until a sign-in the server refused as busy is sent again by itself. */
  const [retryIn, setRetryIn] = useState<number | undefined>();
  const userRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  // Stops a pending automatic retry when the screen goes away.
  const leaving = useRef(new AbortController());

  useEffect(() => {
    userRef.current?.focus();
    const controller = new AbortController();
    leaving.current = controller;
    return () => controller.abort();
  }, []);

  /** Shows a failed sign-in: wrong credentials as such, anything else in plain words. */
  const fail = (e: unknown) => {
    const words = failureWords(e);
    setError(
      words.code === 'unauthorized' || words.code === 'invalid_credentials' || words.status === 401
        ? 'Wrong user name or password.'
        : `Signing in did not work. ${words.message}`,
    );
    setBusy(false);
    passwordRef.current?.select();
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    for (let tries = 0; ; tries++) {
      try {
        await login(usr.trim(), pwd);
        return;
      } catch (e) {
        const wait = busyWaitMs(e);
        if (wait === undefined || tries >= BUSY_RETRIES) return fail(e);
        // The server named this sign-in's turn: wait for it, counting down, and send it again.
        if (!(await countDown(wait, setRetryIn, leaving.current.signal))) return;
        setRetryIn(undefined);
      }
    }
  };

  return (
    <main className="desk-login">
      <form className="desk-login__card" onSubmit={submit} aria-labelledby="desk-login-title">
        <h1 id="desk-login-title">Sign in to the Desk</h1>
        {expired ? (
          <p className="desk-banner desk-banner--warning">Your session ended. Please sign in again.</p>
        ) : null}
        {retryIn !== undefined ? (
          <p className="desk-banner desk-banner--warning" role="status">
            Many people are signing in right now. Trying again in {retryIn} s…
          </p>
        ) : null}
        {error ? (
          <p className="desk-banner desk-banner--error" role="alert">
            {error}
          </p>
        ) : null}
        <div className="desk-field">
          <label htmlFor="desk-login-usr">User</label>
          <input
            id="desk-login-usr"
            ref={userRef}
            name="usr"
            autoComplete="username"
            value={usr}
            onChange={(e) => setUsr(e.target.value)}
            required
          />
        </div>
        <div className="desk-field">
          <label htmlFor="desk-login-pwd">Password</label>
          <input
            id="desk-login-pwd"
            ref={passwordRef}
            name="pwd"
            type="password"
            autoComplete="current-password"
            value={pwd}
            onChange={(e) => setPwd(e.target.value)}
            required
          />
        </div>
        <button
          type="submit"
          className="desk-button desk-button--primary desk-login__submit"
          disabled={busy || !usr || !pwd}
        >
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
