import { setFlagsFromString } from 'node:v8';

/**
 * Lets V8's young generation grow again once the server has started (docs/performance.md#memory). `bin/m.js`
 * keeps it at its start size while the modules load and the database opens, which would otherwise double it
 * to its largest for good; a server that serves requests, though, allocates a short-lived object graph per
 * request, and at 1 MB per semi-space it scavenges hundreds of times a second and promotes whatever is in
 * flight at that moment to the old generation, which then needs full collections: at 20,000 requests a
 * minute that cost about a tenth of the server's CPU. From here V8 grows it as it does by default, only when
 * scavenges find much of it alive, that is under load. V8 reads the factor at each growth.
 */
export function letYoungGenerationGrow(): void {
  setFlagsFromString('--semi-space-growth-factor=2');
}
