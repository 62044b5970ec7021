import { createHash } from 'node:crypto';
import type { Principal } from '../http/env';
import type { ChannelState, ReleasePin } from './model';

/**
 * The bucket (0 to 99) a user falls in for a service's canary: the first four bytes of a SHA-256 of the
 * service and user names. The same user always lands in the same bucket, on every gateway and after every
 * restart, and the buckets of different services are independent.
 */
export function canaryBucket(service: string, user: string): number {
  return createHash('sha256').update(`${service}\u0000${user}`).digest().readUInt32BE(0) % 100;
}

/** Why a user sees the release chosen for them. */
export type Assignment = 'pin:user' | 'pin:role' | 'canary' | 'live';

/**
 * The release a principal is handed for a service (docs/mfe-teams.md#canaries-and-pins): their own pin, else
 * a pin of one of their roles (the latest set), else the canary when their bucket is below its share, else
 * the live release. Someone not signed in gets the live release.
 */
export function chooseRelease(
  channel: ChannelState | undefined,
  pins: readonly ReleasePin[],
  principal: Pick<Principal, 'user' | 'roles'> | undefined,
): { version: string; why: Assignment } | undefined {
  if (!channel) return undefined;
  if (principal) {
    const own = pins.find((p) => p.kind === 'user' && p.subject === principal.user);
    if (own) return { version: own.version, why: 'pin:user' };
    const roles = new Set(principal.roles ?? []);
    const byRole = pins
      .filter((p) => p.kind === 'role' && roles.has(p.subject))
      .sort((a, b) => b.at - a.at)[0];
    if (byRole) return { version: byRole.version, why: 'pin:role' };
    const { canary } = channel;
    if (canary && canaryBucket(channel.service, principal.user) < canary.percent) {
      return { version: canary.version, why: 'canary' };
    }
  }
  return channel.live ? { version: channel.live, why: 'live' } : undefined;
}
