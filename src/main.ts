import './telemetry';
import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import { isIP } from 'node:net';
import { createApp } from './api/app';
import { withJwtSecret } from './auth';
import { ConfigError, loadConfig, tracingEnabled, type Config } from './platform/config';
import { createHttpServer } from './api/http/server';
import { openDatabase, openWorkerDatabase } from './database';
import { InsurerSimulator } from './insurer-sim/insurer-sim';
import { createLogger } from './platform/logger';
import { DevMailbox } from './mail';
import { stopTracing } from './platform/telemetry/tracing-stop';
import { ensureDemoData } from './seed/demo-data';
import { showsBanner, startBanner, withoutPassword } from './start-banner';

/**
 * Connections waiting to be accepted: Node's default (511) dropped the connections of a burst (thousands of uploads
 * at once, answered 503 in microseconds each) and with them other clients', who waited for their SYN's retry. The
 * kernel caps it at net.core.somaxconn.
 */
const LISTEN_BACKLOG = 4096;

const listen = (server: Server, port: number, host?: string) =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, resolve);
  });

/**
 * `npm start` outside production (development, demo mode) without SMTP_URL: a mailbox in the process catches every mail (shown at
 * /dev/mail) and the mail worker sends to it; nothing leaves the machine. Never in production.
 */
async function withDevMailbox(config: Config): Promise<{ config: Config; devMail?: DevMailbox }> {
  if (config.nodeEnv === 'production' || config.mail.smtpUrl) return { config };
  const devMail = await new DevMailbox().start();
  return { config: { ...config, mail: { ...config.mail, smtpUrl: devMail.url } }, devMail };
}

async function main(): Promise<void> {
  const { config, devMail } = await withDevMailbox(withJwtSecret(loadConfig()));
  const logger = createLogger(config.logLevel, { tracing: tracingEnabled(process.env) });
  const orm = await openDatabase(config);
  const simulated = config.demo ? await ensureDemoData(orm, config.simPort) : [];
  const workerOrm = await openWorkerDatabase(config);
  const server = createHttpServer();
  const app = await createApp({ config, orm, workerOrm, logger, httpServer: server, devMail });
  server.on('request', app.express);
  await listen(server, config.port, config.host);
  const base = `http://${config.host === undefined ? 'localhost' : isIP(config.host) === 6 ? `[${config.host}]` : config.host}:${config.port}`;

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
  app.mail?.start();
  logger.info({ host: config.host ?? '*', port: config.port, database: withoutPassword(config.databaseUrl) }, 'gateway listening');
  if (showsBanner(config, process.stdout.isTTY === true)) console.log(startBanner(base, config, simulated.length, devMail !== undefined));

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
      await devMail?.close();
      simServer?.close();
      await workerOrm?.close();
      await orm.close();
      await stopTracing();
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
  // In production the output is JSON lines only, a failed start included (the configuration may be what failed).
  if (process.env.NODE_ENV === 'production') createLogger('fatal').fatal({ err: error }, 'failed to start');
  else if (error instanceof ConfigError) console.error(`Configuration error: ${error.message}`);
  else console.error('failed to start:', error);
  process.exit(1);
});
