import type { Config } from './platform/config';
import { DEMO_CLIENTS, simulatorBaseUrl } from './seed/demo-data';

/**
 * The start banner is for a person at a terminal: in production the output is JSON log lines only (a log shipper
 * reads them), and in development the banner is printed only when stdout is a TTY. It shows a secret only in demo
 * mode (the demo clients' published credentials); a database password never.
 */
export const showsBanner = (config: Config, stdoutIsTty: boolean): boolean => config.nodeEnv !== 'production' && stdoutIsTty;

/** The database URL with its password (in the authority or as a `password` parameter) replaced by `***`. */
export function withoutPassword(databaseUrl: string): string {
  if (!/^postgres(ql)?:\/\//i.test(databaseUrl)) return databaseUrl;
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = '***';
    if (url.searchParams.has('password')) url.searchParams.set('password', '***');
    return url.toString().replace(/%2A%2A%2A/g, '***');
  } catch {
    return 'postgres://***';
  }
}

/**
 * `simulatedInsurers`: how many insurers the demo's insurer simulator answers for (0: none); `devMail`: whether the
 * development mailbox catches the mails (`/dev/mail`).
 */
export function startBanner(base: string, config: Config, simulatedInsurers: number, devMail = false): string {
  const lines = [
    '',
    `Tender Exchange gateway on ${base}`,
    `  GraphQL (Apollo Sandbox in a browser)  ${base}/graphql`,
    `  GraphQL explorer, no internet needed   ${base}/graphiql`,
    `  Insurer REST API                       ${base}/public/v1/tenders`,
    `  Broker REST API                        ${base}/api/v1/tenders`,
    `  Risk question sets                     ${base}/api/v1/question-sets`,
    `  Token service                          ${base}/auth/token`,
    `  Database                               ${withoutPassword(config.databaseUrl)}`,
  ];
  if (config.databaseListenUrl && config.databaseListenUrl !== config.databaseUrl)
    lines.push(`  Its LISTEN connection                  ${withoutPassword(config.databaseListenUrl)}`);
  if (devMail) lines.push(`  Mail sent, caught in development       ${base}/dev/mail`);
  if (!config.demo) return lines.join('\n');
  lines.push('', 'Demo credentials (app_id / secret):');
  for (const client of DEMO_CLIENTS) lines.push(`  ${client.role.padEnd(9)} ${client.appId} / ${client.secret}`);
  if (simulatedInsurers > 0) {
    lines.push(
      '',
      `Insurer simulator: ${simulatedInsurers} insurers at ${simulatorBaseUrl(config.simPort)}/insurers/<slug>, answering requestQuotes`,
      `  and verifying the gateway's signed tender events: ${simulatorBaseUrl(config.simPort)}/insurers/<slug>/_sim/webhooks`,
    );
  }
  lines.push(
    '',
    "A quote round trip from a tender's risk assessment to the proposal, in a few seconds:  npm run demo",
    '',
    'Try:',
    `  TOKEN=$(curl -s -X POST ${base}/auth/token -H 'content-type: application/json' \\`,
    `    -d '{"app_id":"demo-broker","secret":"demo-broker-secret"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).access_token')`,
    `  curl -s -H "Authorization: Bearer $TOKEN" '${base}/api/v1/tenders?limit=2'`,
    '',
  );
  return lines.join('\n');
}
