/**
 * The build status `m app dev` pushes to the Desk: each webpack compilation of the remote turns into a
 * {@link DevBuildStatus} (file, line and message of each error, from webpack's stats), sent to every Desk tab
 * that listens on the dev server's {@link DEV_BUILD_STATUS_PATH} as a Server-Sent Event. The Desk shows a
 * failed build over the overridden remote's area (docs/mfe-teams.md#working-against-a-running-desk).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { relative, sep } from 'node:path';
import type { Compiler, StatsError } from 'webpack';
import {
  DEV_BUILD_STATUS_EVENT,
  DEV_BUILD_STATUS_PATH,
  type DevBuildError,
  type DevBuildStatus,
} from '../../protocol/dev-build';

/** At most this many errors are sent: the first ones are what a developer fixes first. */
const MAX_ERRORS = 10;

/** `<path>:<line>:<column>: ERROR: <text>`, the line esbuild writes for a syntax or transform error. */
const ESBUILD_ERROR = /^(.+?):(\d+):(\d+): ERROR: (.+)$/m;

/** `12:5` or `12:5-20` (webpack's `loc`): line and column. */
const LOC = /^(\d+):(\d+)/;

/** `path` relative to the app's folder with `/` separators; outside it, the path as given. */
function fromApp(path: string, appDir: string): string {
  const rel = relative(appDir, path);
  const inside = rel && !rel.startsWith('..') && !rel.startsWith(sep);
  return (inside ? rel : path).split(sep).join('/');
}

/** The message without stack frames, loader banners or absolute paths under the app's folder. */
function cleanMessage(message: string, appDir: string): string {
  const lines = message
    .split('\n')
    .filter((line) => !/^\s+at\s/.test(line) && !/^Module build failed \(from /.test(line));
  const prefix = appDir.endsWith(sep) ? appDir : `${appDir}${sep}`;
  return lines.join('\n').split(prefix).join('').trim();
}

/** One webpack stats error as a {@link DevBuildError}: where it is, relative to `appDir`, and what it says. */
export function devBuildErrorOf(error: Pick<StatsError, 'message' | 'moduleName' | 'loc'>, appDir: string) {
  const esbuild = ESBUILD_ERROR.exec(error.message);
  if (esbuild) {
    const [, file, line, column, text] = esbuild;
    return {
      file: fromApp(file!, appDir),
      line: Number(line),
      column: Number(column) + 1,
      message: text!.trim(),
    } satisfies DevBuildError;
  }
  const loc = LOC.exec(error.loc ?? '');
  const file = error.moduleName?.replace(/^\.\//, '');
  return {
    ...(file ? { file } : {}),
    ...(loc ? { line: Number(loc[1]), column: Number(loc[2]) + 1 } : {}),
    message: cleanMessage(error.message, appDir),
  } satisfies DevBuildError;
}

/** The status after a compilation that reported `errors` (webpack's `stats.toJson().errors`). */
export function devBuildStatusOf(errors: readonly StatsError[], appDir: string): DevBuildStatus {
  if (errors.length === 0) return { state: 'ok', errors: [] };
  return { state: 'failed', errors: errors.slice(0, MAX_ERRORS).map((e) => devBuildErrorOf(e, appDir)) };
}

/**
 * The latest build status of one compiler and the Desk tabs listening to it. {@link attach} follows the
 * compiler; {@link handle} answers the stream's requests (a connect-style middleware for webpack-dev-server).
 */
export class DevBuildChannel {
  #status: DevBuildStatus = { state: 'building', errors: [] };
  readonly #clients = new Set<ServerResponse>();
  readonly #appDir: string;

  constructor(appDir: string) {
    this.#appDir = appDir;
  }

  /** The latest status. */
  get status(): DevBuildStatus {
    return this.#status;
  }

  /** Follows `compiler`: `building` when a change starts a compilation, `ok` or `failed` when it is done. */
  attach(compiler: Pick<Compiler, 'hooks'>): void {
    compiler.hooks.invalid.tap('DeskDevBuildStatus', () => this.publish({ state: 'building', errors: [] }));
    compiler.hooks.done.tap('DeskDevBuildStatus', (stats) => {
      const { errors = [] } = stats.toJson({ all: false, errors: true });
      this.publish(devBuildStatusOf(errors, this.#appDir));
    });
  }

  /** Records `status` and sends it to every listening tab. */
  publish(status: DevBuildStatus): void {
    this.#status = status;
    for (const client of this.#clients) this.#send(client);
  }

  /**
   * Answers `GET` {@link DEV_BUILD_STATUS_PATH} with the event stream (the current status first), any origin
   * may read it (the Desk runs on another); anything else goes to `next`.
   */
  handle = (request: IncomingMessage, response: ServerResponse, next: () => void): void => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== DEV_BUILD_STATUS_PATH) {
      next();
      return;
    }
    response.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-store',
      'Access-Control-Allow-Origin': '*',
      Connection: 'keep-alive',
    });
    this.#clients.add(response);
    request.on('close', () => this.#clients.delete(response));
    this.#send(response);
  };

  /** Ends every open stream (the dev server stops). */
  close(): void {
    for (const client of this.#clients) client.end();
    this.#clients.clear();
  }

  #send(client: ServerResponse): void {
    client.write(`event: ${DEV_BUILD_STATUS_EVENT}\ndata: ${JSON.stringify(this.#status)}\n\n`);
  }
}
