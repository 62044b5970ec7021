/** The users API the Users page calls (System Manager only; docs/http-api.md#users). */
import { fetchWithCredentials } from '../../sdk/http';

/** A user as the users API lists it. */
export interface DeskUser {
  name: string;
  roles: string[];
  enabled: boolean;
}

/** Calls of the users API, relative to the gateway. */
export function usersApi(gatewayUrl: string) {
  const call = async <T>(method: string, body: unknown): Promise<T> =>
    (
      await fetchWithCredentials<{ message: T }>(`${gatewayUrl}/api/method/platform.users.${method}`, {
        method: 'POST',
        body,
      })
    ).message;
  return {
    list: () => call<DeskUser[]>('list', {}),
    add: (name: string, password: string, roles: string[]) => call<null>('add', { name, password, roles }),
    setRoles: (name: string, roles: string[]) => call<null>('set_roles', { name, roles }),
    setPassword: (name: string, password: string) => call<null>('set_password', { name, password }),
    disable: (name: string) => call<null>('disable', { name }),
    enable: (name: string) => call<null>('enable', { name }),
    /** The roles worth giving: the platform's own and those the permission rules name. */
    roles: () => call<string[]>('roles', {}),
  };
}
