import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import { createApp } from './api/app';
import { withJwtSecret } from './auth';
import { ConfigError, loadConfig, type Config } from './platform/config';
import { createHttpServer } from './api/http/server';
import { openDatabase, openWorkerDatabase } from './database';
import { InsurerSimulator, type SimInsurerOptions } from './insurer-sim/insurer-sim';
import { createLogger } from './platform/logger';
import { DEMO_CLIENTS, ensureDemoData, simulatorBaseUrl } from './seed/demo-data';

const listen = (server: Server, port: number, host?: string) =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });

function printWelcome(base: string, config: Config, simulated: SimInsurerOptions[]): void {
  console.log(`
Tender Exchange gateway on ${base}
  GraphQL (Apollo Sandbox in a browser)  ${base}/graphql
  GraphQL explorer, no internet needed   ${base}/graphiql
  Insurer REST API                       ${base}/public/v1/tenders
  Broker REST API                        ${base}/api/v1/tenders
  Token service                          ${base}/auth/token
  Database                               ${config.databaseUrl}`);
  if (!config.demo) return;
  console.log('\nDemo credentials (app_id / secret):');
  for (const client of DEMO_CLIENTS) console.log(`  ${client.role.padEnd(9)} ${client.appId} / ${client.secret}`);
  if (simulated.length > 0) {
    console.log(
      `\nInsurer simulator: ${simulated.length} insurers at ${simulatorBaseUrl(config.simPort)}/insurers/<slug>, answering requestQuotes`,
    );
    console.log(`  and verifying the gateway's signed tender events: ${simulatorBaseUrl(config.simPort)}/insurers/<slug>/_sim/webhooks`);
  }
  console.log(`
A quote round trip, from the request to the proposal, in a few seconds:  npm run demo

Try:
  TOKEN=$(curl -s -X POST ${base}/auth/token -H 'content-type: application/json' \\
    -d '{"app_id":"demo-broker","secret":"demo-broker-secret"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).access_token')
  curl -s -H "Authorization: Bearer $TOKEN" '${base}/api/v1/tenders?limit=2'
`);
}

async function main(): Promise<void> {
  const config = withJwtSecret(loadConfig());
  const logger = createLogger(config.logLevel);
  const orm = await openDatabase(config);
  const simulated = config.demo ? await ensureDemoData(orm, config.simPort) : [];
  const workerOrm = await openWorkerDatabase(config);
  const server = createHttpServer();
  const app = await createApp({ config, orm, workerOrm, logger, httpServer: server });
  server.on('request', app.express);
  await listen(server, config.port);
  const base = `http://localhost:${config.port}`;

  // Demo mode: the reference insurer system answers the seeded insurers' quote requests, over loopback.
  let simulator: InsurerSimulator | undefined;
  let simServer: Server | undefined;
  if (simulated.length > 0 && config.simPort > 0) {
    simulator = new InsurerSimulator({ gatewayUrl: base, insurers: simulated, quoteDelayMs: 500 });
    simServer = createServer(simulator.app);
    await listen(simServer, config.simPort, '127.0.0.1');
  }
  app.dispatcher.start();
  app.webhooks.start();
  logger.info({ port: config.port, database: config.databaseUrl }, 'gateway listening');
  printWelcome(base, config, simulated);

  // The one shutdown path: stop accepting, let requests in flight finish (SHUTDOWN_GRACE_MS at most, then their
  // connections are closed), let the outbox workers finish their work in hand and release its leases, close the
  // database, exit 0. A repeated signal (npm and a terminal both pass on Ctrl-C) does not cut it short.
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down');
    try {
      await app.stop();
      await simulator?.close();
      simServer?.close();
      await workerOrm?.close();
      await orm.close();
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(`Configuration error: ${error.message}`);
  else console.error('failed to start:', error);
  process.exit(1);
});
