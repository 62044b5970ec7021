/**
 * Whose code is running, from the call stack (docs/mfe-teams.md#styles-of-a-remote): the style guard and the
 * portal redirect both tell a remote's insertions into the page by the script URLs on the stack.
 */

/** What the isolation needs to know about remotes: which one a script URL belongs to. */
export interface RemoteUrlOwner {
  serviceOfUrl(url: string): string | undefined;
}

const URL_IN_STACK = /(https?:\/\/[^\s()]+?)(?::\d+){1,2}\)?$/gm;

/** The service of the first script URL in `stack` that belongs to a remote, if any. */
export function serviceInStack(stack: string, owner: RemoteUrlOwner): string | undefined {
  for (const match of stack.matchAll(URL_IN_STACK)) {
    const service = owner.serviceOfUrl(match[1]!);
    if (service) return service;
  }
  return undefined;
}
