import type { AuthPlan } from '../config/plan';
import type { HttpClient } from '../engine/http-client';
import type { PayloadEncoder } from '../target/encryptor';
import { customAuth } from './custom-auth';
import { sessionAuth } from './session-auth';
import { staticAuth, type UserAuth } from './user-auth';

/** What creating a user's auth needs. */
export interface AuthDeps {
  http: HttpClient;
  encoder: PayloadEncoder;
  targetUrl: string;
  user: number;
}

/** Creates one user's credentials for one auth provider (docs/load-testing.md#auth-providers). */
export function createAuth(plan: AuthPlan, deps: AuthDeps): UserAuth {
  switch (plan.mode) {
    case 'session':
      return sessionAuth({
        http: deps.http,
        encoder: deps.encoder,
        loginUrl: new URL(plan.loginUrl, `${deps.targetUrl}/`).href,
        username: plan.username,
        password: plan.password,
      });
    case 'api_key':
      return staticAuth({ [plan.headerName.toLowerCase()]: plan.key });
    case 'bearer':
      return staticAuth({ authorization: `Bearer ${plan.token}` });
    case 'none':
      return staticAuth({});
    case 'custom':
      return customAuth(plan.factory, { user: deps.user, targetUrl: deps.targetUrl });
  }
}
