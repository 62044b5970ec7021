/**
 * The Users page (`#/users`), for System Managers: lists users with their roles, creates a user, replaces a
 * user's roles, resets a password, disables a user and enables one again. A password reset or a disable signs the user out
 * everywhere (the server revokes their sessions, tokens and API keys).
 */
import {
  createContext,
  type FormEvent,
  useCallback,
  useContext,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react';
import { ROLE_NAME_PATTERN } from '../../contract/permissions';
import { usePermissions } from '../hooks/use-permissions';
import { usePlatform } from '../hooks/use-platform';
import adminPagesCss from '../styles/admin-pages.css';
import { adoptStyles } from '../styles/adopt-styles';
import { describeError, Empty, ErrorState, Loading } from './states';
import { type DeskUser, usersApi } from './users-api';

adoptStyles('admin-pages', adminPagesCss);

/** The built-in user the server never disables. */
const ADMINISTRATOR = 'Administrator';

/** The roles the server offers (`platform.users.roles`); empty until it answers, or if it cannot. */
const OfferedRoles = createContext<readonly string[]>([]);

function RoleChoices({
  selected,
  onChange,
  legend,
}: {
  selected: string[];
  onChange(roles: string[]): void;
  legend: string;
}): React.JSX.Element {
  const offered = useContext(OfferedRoles);
  const [other, setOther] = useState('');
  // Roles typed in stay choices once unticked, as the offered ones do.
  const [typedRoles, setTypedRoles] = useState<string[]>([]);
  const id = useId();
  const roles = [...new Set([...offered, ...typedRoles, ...selected])];
  const typed = other.trim();
  // The server refuses a name outside this pattern: say so here rather than after Save.
  const invalid = typed !== '' && !ROLE_NAME_PATTERN.test(typed);
  const add = () => {
    if (typed === '' || invalid) return;
    if (!selected.includes(typed)) onChange([...selected, typed]);
    if (!typedRoles.includes(typed)) setTypedRoles([...typedRoles, typed]);
    setOther('');
  };
  return (
    <fieldset className="desk-field desk-roles">
      <legend>{legend}</legend>
      {roles.map((role) => (
        <label key={role} className="desk-field--check">
          <input
            type="checkbox"
            checked={selected.includes(role)}
            onChange={(e) =>
              onChange(e.target.checked ? [...selected, role] : selected.filter((r) => r !== role))
            }
          />{' '}
          {role}
        </label>
      ))}
      <div className="desk-roles__other">
        <label htmlFor={`${id}-other`}>Another role</label>
        <input
          id={`${id}-other`}
          value={other}
          aria-invalid={invalid || undefined}
          aria-describedby={`${id}-other-hint`}
          onChange={(e) => setOther(e.target.value)}
          onKeyDown={(e) => {
            // Enter adds the role instead of submitting the whole form.
            if (e.key === 'Enter') {
              e.preventDefault();
              add();
            }
          }}
        />
        <button
          type="button"
          className="desk-button desk-button--small"
          onClick={add}
          disabled={!typed || invalid}
        >
          Add
        </button>
        <small id={`${id}-other-hint`} className={invalid ? 'desk-field__error' : 'desk-field__hint'}>
          {invalid
            ? 'A role name starts with a letter and holds letters, digits, spaces, _ . or -.'
            : 'A role no permission rule names grants nothing until one does.'}
        </small>
      </div>
    </fieldset>
  );
}

function NewUserForm({ onCreated }: { onCreated(): void }): React.JSX.Element {
  const { config } = usePlatform();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [roles, setRoles] = useState<string[]>([]);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const id = useId();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await usersApi(config.gatewayUrl).add(name.trim(), password, roles);
      setName('');
      setPassword('');
      setRoles([]);
      onCreated();
    } catch (err) {
      setError(describeError(err).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="desk-form desk-card"
      style={{ marginTop: '1.5rem' }}
      onSubmit={submit}
      aria-labelledby={`${id}-title`}
    >
      <h2 id={`${id}-title`} className="desk-form__subtitle">
        New user
      </h2>
      <div className="desk-form__grid">
        <label className="desk-field">
          <span>User name</span>
          <input required value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" />
        </label>
        <label className="desk-field">
          <span>Password (at least 8 characters)</span>
          <input
            required
            type="password"
            minLength={8}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            autoComplete="new-password"
          />
        </label>
      </div>
      <RoleChoices legend="Roles" selected={roles} onChange={setRoles} />
      {error ? (
        <p className="desk-field__error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="desk-actions">
        <button type="submit" className="desk-button desk-button--primary" disabled={busy}>
          Create user
        </button>
      </div>
    </form>
  );
}

function UserRow({ user, onChanged }: { user: DeskUser; onChanged(): void }): React.JSX.Element {
  const { config, notices } = usePlatform();
  const api = usersApi(config.gatewayUrl);
  const [editing, setEditingState] = useState<'roles' | 'password' | undefined>();
  const [roles, setRoles] = useState(user.roles);
  const [password, setPassword] = useState('');
  const [message, setMessage] = useState<string>();
  const rowRef = useRef<HTMLTableRowElement>(null);
  // Where focus goes once the row is drawn anew: into the editor just opened, or back to the button that
  // opened the one just closed (the buttons swap places, and focus would otherwise fall to the page).
  const focusNext = useRef<string | undefined>(undefined);
  const setEditing = (next: 'roles' | 'password' | undefined) => {
    // Each edit starts from the user's roles as stored and an empty password, not from a cancelled edit.
    setRoles(user.roles);
    setPassword('');
    setMessage(undefined);
    focusNext.current = next ? 'td input' : `button[data-edit="${editing ?? ''}"]`;
    setEditingState(next);
  };
  useEffect(() => {
    void editing;
    if (!focusNext.current) return;
    rowRef.current?.querySelector<HTMLElement>(focusNext.current)?.focus();
    focusNext.current = undefined;
  }, [editing]);
  const act = async (work: () => Promise<unknown>, done: string) => {
    setMessage(undefined);
    try {
      await work();
      setEditing(undefined);
      // A notice rather than a line in the row: the row is drawn anew once the list reloads.
      notices.show(done);
      onChanged();
    } catch (err) {
      setMessage(describeError(err).message);
    }
  };
  const setUserPassword = () =>
    act(
      () => api.setPassword(user.name, password),
      `Password of ${user.name} reset; they are signed out everywhere.`,
    );
  return (
    <tr
      ref={rowRef}
      // Escape closes the row's editor, as it closes the Desk's dialogs.
      onKeyDown={(e) => {
        if (e.key !== 'Escape' || !editing) return;
        e.preventDefault();
        setEditing(undefined);
      }}
    >
      <th scope="row">{user.name}</th>
      <td>{user.enabled ? 'Enabled' : 'Disabled'}</td>
      <td>
        {editing === 'roles' ? (
          <RoleChoices legend={`Roles of ${user.name}`} selected={roles} onChange={setRoles} />
        ) : (
          user.roles.join(', ') || '—'
        )}
        {editing === 'password' ? (
          <label className="desk-field">
            <span>New password for {user.name}</span>
            <input
              type="password"
              minLength={8}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              onKeyDown={(e) => {
                // Enter sets the password, as Enter submits the Desk's forms.
                if (e.key !== 'Enter') return;
                e.preventDefault();
                if (password.length >= 8) void setUserPassword();
              }}
              autoComplete="new-password"
            />
          </label>
        ) : null}
        {message ? <p role="status">{message}</p> : null}
      </td>
      <td>
        <div className="desk-actions">
          {editing === 'roles' ? (
            <button
              type="button"
              className="desk-button desk-button--small desk-button--primary"
              onClick={() => act(() => api.setRoles(user.name, roles), `Roles of ${user.name} saved.`)}
            >
              Save roles
            </button>
          ) : editing === 'password' ? (
            <button
              type="button"
              className="desk-button desk-button--small desk-button--primary"
              disabled={password.length < 8}
              onClick={() => void setUserPassword()}
            >
              Set password
            </button>
          ) : (
            <>
              <button
                type="button"
                className="desk-button desk-button--small"
                data-edit="roles"
                onClick={() => setEditing('roles')}
              >
                Edit roles
              </button>
              <button
                type="button"
                className="desk-button desk-button--small"
                data-edit="password"
                onClick={() => setEditing('password')}
              >
                Reset password
              </button>
              {user.name === ADMINISTRATOR ? null : user.enabled ? (
                <button
                  type="button"
                  className="desk-button desk-button--small"
                  onClick={() =>
                    act(() => api.disable(user.name), `${user.name} disabled and signed out everywhere.`)
                  }
                >
                  Disable
                </button>
              ) : (
                <button
                  type="button"
                  className="desk-button desk-button--small"
                  onClick={() => act(() => api.enable(user.name), `${user.name} enabled again.`)}
                >
                  Enable
                </button>
              )}
            </>
          )}
          {editing ? (
            <button
              type="button"
              className="desk-button desk-button--small"
              onClick={() => setEditing(undefined)}
            >
              Cancel
            </button>
          ) : null}
        </div>
      </td>
    </tr>
  );
}

/** The Users page; a user who is not a System Manager sees a refusal instead. */
export function UsersPage(): React.JSX.Element {
  const { config } = usePlatform();
  const permissions = usePermissions();
  const [users, setUsers] = useState<DeskUser[]>();
  const [error, setError] = useState<unknown>();
  const [offered, setOffered] = useState<readonly string[]>([]);
  useEffect(() => {
    if (!permissions.isSystemManager) return;
    // Offered choices only: without them every role can still be typed.
    usersApi(config.gatewayUrl)
      .roles()
      .then(setOffered)
      .catch(() => setOffered([]));
  }, [permissions.isSystemManager, config.gatewayUrl]);
  const reload = useCallback(() => {
    usersApi(config.gatewayUrl)
      .list()
      .then((list) => {
        setUsers(list);
        setError(undefined);
      })
      .catch(setError);
  }, [config.gatewayUrl]);
  useEffect(() => {
    if (permissions.isSystemManager) reload();
  }, [permissions.isSystemManager, reload]);

  if (!permissions.ready) return <Loading />;
  if (!permissions.isSystemManager) {
    // A refusal is not a failure: no error words, just where to go instead.
    return (
      <Empty title="Only a System Manager may manage users.">
        <a href="#/">Back to the home page</a>
      </Empty>
    );
  }
  return (
    <OfferedRoles.Provider value={offered}>
      <section className="desk-users" aria-labelledby="desk-users-title">
        <header className="desk-page__header">
          <h1 id="desk-users-title" className="desk-page__title">
            Users
          </h1>
        </header>
        {error ? (
          <ErrorState title="The users could not be loaded." {...describeError(error)} onRetry={reload} />
        ) : !users ? (
          <Loading />
        ) : (
          <div className="desk-table-wrap">
            <table className="desk-table">
              <thead>
                <tr>
                  <th scope="col">User</th>
                  <th scope="col">Status</th>
                  <th scope="col">Roles</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {users.map((u) => (
                  <UserRow key={`${u.name}:${u.roles.join()}:${u.enabled}`} user={u} onChanged={reload} />
                ))}
              </tbody>
            </table>
          </div>
        )}
        <NewUserForm onCreated={reload} />
      </section>
    </OfferedRoles.Provider>
  );
}
