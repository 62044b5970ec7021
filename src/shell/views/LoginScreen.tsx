/** The sign-in screen (session login, `POST /api/method/login` with `usr` / `pwd`). */
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { usePlatform } from '../hooks/use-platform';
import { failureWords } from '../words/failure';

/** Sign-in form; `expired` explains why it shows again. */
export function LoginScreen({ expired }: { expired?: boolean }): React.JSX.Element {
  const { login } = usePlatform();
  const [usr, setUsr] = useState('Administrator');
  const [pwd, setPwd] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const passwordRef = useRef<HTMLInputElement>(null);

  useEffect(() => passwordRef.current?.focus(), []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await login(usr.trim(), pwd);
    } catch (e) {
      const words = failureWords(e);
      setError(
        words.code === 'unauthorized' || words.code === 'invalid_credentials' || words.status === 401
          ? 'Wrong user name or password.'
          : `Signing in did not work. ${words.message}`,
      );
      setBusy(false);
      passwordRef.current?.select();
    }
  };

  return (
    <main className="desk-login">
      <form className="desk-login__card" onSubmit={submit} aria-labelledby="desk-login-title">
        <h1 id="desk-login-title">Sign in to the Desk</h1>
        {expired ? (
          <p className="desk-banner desk-banner--warning">Your session ended. Please sign in again.</p>
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
