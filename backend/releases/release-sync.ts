import type { Bus } from '../bus/bus';
import type { ReleaseService } from './release-service';

/**
 * Subject on which a MACROSERVICE gateway says it changed a service's channel or pins
 * (docs/operators.md#releases-in-macroservice). It carries no state: the records are in the database the
 * gateways share, and a gateway hearing it reads them again.
 */
export const RELEASES_CHANGED_SUBJECT = 'platform.releases.changed';

/** Options of {@link followReleaseChanges}. */
export interface ReleaseSyncOptions {
  releases: Pick<ReleaseService, 'refresh'>;
  bus: Pick<Bus, 'subscribe'>;
  /** The manifests' heartbeat: the longest a lost notification leaves a gateway's view behind. */
  heartbeatMs: number;
  log: (line: string) => void;
}

/**
 * Keeps a gateway's view of the release channels in step with the shared database: read again on every
 * {@link RELEASES_CHANGED_SUBJECT} notification, and at each heartbeat whatever the bus delivered, so a
 * notification lost (NATS restarted, a gateway reconnecting) is made up for within one heartbeat. Reads never
 * overlap: a notification arriving during a read is served by one more read after it. Returns the stop,
 * which resolves once a read under way has ended (so the database can be closed after it).
 */
export function followReleaseChanges(options: ReleaseSyncOptions): () => Promise<void> {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const read = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = options.releases
      .refresh()
      .then(
        () => undefined,
        (err: unknown) => options.log(`releases: reading the channels failed (${(err as Error).message})`),
      )
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          read();
        }
      });
  };
  const unsubscribe = options.bus.subscribe(RELEASES_CHANGED_SUBJECT, read);
  const timer = setInterval(read, options.heartbeatMs);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    unsubscribe();
    await running;
  };
}

/** Tells the other gateways that `service`'s channel or pins changed (fire and forget: the heartbeat heals a loss). */
export function announceReleaseChange(bus: Pick<Bus, 'publish'>, log: (line: string) => void) {
  return (service: string): void => {
    bus
      .publish(RELEASES_CHANGED_SUBJECT, { service })
      .catch((err: unknown) =>
        log(`releases: change of ${service} not announced (${(err as Error).message})`),
      );
  };
}
