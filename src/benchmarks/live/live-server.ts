import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TimelinePoint } from '../report/aggregate';
import { liveStageBars } from '../report/server-stages';
import type { StageBar } from '../report/stage-chart';
import type { ProcSample } from '../watch/proc-sampler';
import type { TargetMetricsSample } from '../watch/target-metrics';
import { type DashboardInfo, dashboardPage } from './dashboard-page';
import type { Listen } from './listen';
import { type MetricsSource, renderOpenMetrics } from './openmetrics';

export { type Listen, parseListen } from './listen';

/** What the live servers serve. */
export interface LiveOptions {
  metrics?: Listen;
  dashboard?: Listen;
}

/** The running live endpoints: their URLs, the feed the run pushes into, and how to stop them. */
export interface LiveServers {
  urls: { metrics?: string; dashboard?: string };
  /**
   * A second is final: pushed to every open dashboard, with the server's stages per scenario so far when the
   * run asks for `Server-Timing`.
   */
  publish(
    point: TimelinePoint,
    target: { pid: number; samples: readonly ProcSample[] } | undefined,
    server?: { samples: readonly TargetMetricsSample[] },
  ): void;
  /** The run is over: dashboards are told its verdict, then everything closes. */
  close(status: string): Promise<void>;
}

/**
 * Serves the run while it lasts: `GET /metrics` (OpenMetrics) on the metrics address and, on the
 * dashboard address, `GET /` (the page) and `GET /events` (server-sent events, one per finished second).
 * One server when both share an address.
 */
export async function startLiveServers(
  o: LiveOptions,
  metrics: MetricsSource,
  info: DashboardInfo,
): Promise<LiveServers> {
  const clients = new Set<ServerResponse>();
  let target: { pid: number; samples: readonly ProcSample[] } | undefined;
  let server: { samples: readonly TargetMetricsSample[] } | undefined;
  let stages: StageBar[] | undefined;
  const page = dashboardPage(info);
  const handle =
    (serveMetrics: boolean, serveDashboard: boolean) => (req: IncomingMessage, res: ServerResponse) => {
      const path = (req.url ?? '/').split('?')[0];
      if (serveMetrics && path === '/metrics') {
        res.writeHead(200, { 'content-type': 'application/openmetrics-text; version=1.0.0; charset=utf-8' });
        res.end(renderOpenMetrics(metrics));
      } else if (serveDashboard && path === '/') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        res.end(page);
      } else if (serveDashboard && path === '/events') {
        res.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-store',
          connection: 'keep-alive',
        });
        res.write(
          `data: ${JSON.stringify({ timeline: metrics.agg.timeline, target, server, stages, status: 'running' })}\n\n`,
        );
        clients.add(res);
        req.on('close', () => clients.delete(res));
      } else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'not_found', message: 'no such live endpoint' } }));
      }
    };
  const servers: Server[] = [];
  const urls: LiveServers['urls'] = {};
  const listen = async (at: Listen, m: boolean, d: boolean) => {
    const server = createServer(handle(m, d));
    servers.push(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(at.port, at.host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const base = `http://${at.host.includes(':') ? `[${at.host}]` : at.host}:${port}`;
    if (m) urls.metrics = `${base}/metrics`;
    if (d) urls.dashboard = `${base}/`;
  };
  try {
    const same =
      o.metrics &&
      o.dashboard &&
      o.metrics.host === o.dashboard.host &&
      o.metrics.port === o.dashboard.port &&
      o.metrics.port !== 0;
    if (same) await listen(o.metrics!, true, true);
    else {
      if (o.metrics) await listen(o.metrics, true, false);
      if (o.dashboard) await listen(o.dashboard, false, true);
    }
  } catch (err) {
    for (const s of servers) s.close();
    throw err;
  }
  const send = (m: unknown) => {
    const line = `data: ${JSON.stringify(m)}\n\n`;
    for (const c of clients) c.write(line);
  };
  return {
    urls,
    publish(point, t, s) {
      target = t;
      server = s;
      // The means since the start, the report's bars so far (summed per series by the aggregator).
      if (info.serverTiming) stages = liveStageBars(metrics.agg.labels, metrics.agg.scenarioCounters);
      if (clients.size > 0) send({ point, target: t, server: s, stages });
    },
    async close(status) {
      send({ status });
      for (const c of clients) c.end();
      clients.clear();
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.close(() => resolve());
              s.closeAllConnections();
            }),
        ),
      );
    },
  };
}
