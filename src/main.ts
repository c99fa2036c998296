import 'reflect-metadata';
import { createServer } from 'node:http';
import { createApp } from './app';
import { ConfigError, loadConfig } from './config';
import { openDatabase } from './db/database';
import { logger } from './logger';
import { DEMO_CLIENTS, ensureDemoData } from './seed/demo-data';

async function main(): Promise<void> {
  const config = loadConfig();
  const orm = await openDatabase(config);
  const demo = config.demo && (await ensureDemoData(orm));
  const app = await createApp({ config, orm });
  const server = createServer(app.express);
  await new Promise<void>((resolve) => server.listen(config.port, resolve));
  const address = server.address();
  const base = `http://localhost:${typeof address === 'object' && address ? address.port : config.port}`;
  logger.info({ port: config.port, database: config.databaseUrl }, 'gateway listening');

  console.log(`
Tender Exchange gateway on ${base}
  GraphQL (Apollo Sandbox in a browser)  ${base}/graphql
  Insurer REST API                       ${base}/public/v1/tenders
  Broker REST API                        ${base}/api/v1/tenders
  Token service                          ${base}/auth/token
  Database                               ${config.databaseUrl}`);
  if (demo) {
    console.log('\nDemo credentials (app_id / secret):');
    for (const client of DEMO_CLIENTS) console.log(`  ${client.role.padEnd(9)} ${client.appId} / ${client.secret}`);
    console.log(`
Try:
  TOKEN=$(curl -s -X POST ${base}/auth/token -H 'content-type: application/json' \\
    -d '{"app_id":"demo-broker","secret":"demo-broker-secret"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).access_token')
  curl -s -H "Authorization: Bearer $TOKEN" '${base}/api/v1/tenders?limit=2'
`);
  }

  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    server.close(async () => {
      await app.stop();
      await orm.close();
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(`Configuration error: ${error.message}`);
  else logger.error({ err: error }, 'failed to start');
  process.exit(1);
});
