import type { AppContext } from '../../backend/context';

/** Creates a user holding `roles` and returns the `Authorization` header of an API key of theirs. */
export async function userWithRoles(
  ctx: AppContext,
  name: string,
  roles: readonly string[],
  password = `${name}-password`,
): Promise<string> {
  await ctx.security.users.addUser(name, password, roles);
  const { api_key, api_secret } = await ctx.security.auth.generateApiKey(name);
  return `token ${api_key}:${api_secret}`;
}
