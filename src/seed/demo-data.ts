import type { MikroORM } from '@mikro-orm/core';
import { ApiClient, ApiClientService } from '../auth';
import { Role } from '../access';
import type { SimInsurerOptions } from '../insurer-sim/insurer-sim';
import { Insurer } from '../insurers';
import { Tender } from '../tenders';
import { WebhookEndpoint, EVENTS_FOR, newWebhookSecret } from '../webhooks';
import { SeedService, insurerSlug } from './seed.service';

const DEMO_TENDERS = 500;
const DEMO_SEED = 42;

/** Fixed, documented credentials for local exploration; created only in demo mode. */
export const DEMO_CLIENTS = [
  { appId: 'demo-insurer', secret: 'demo-insurer-secret', role: Role.INSURER },
  { appId: 'demo-broker', secret: 'demo-broker-secret', role: Role.BROKER },
  { appId: 'demo-internal', secret: 'demo-internal-secret', role: Role.INTERNAL },
  { appId: 'demo-analyst', secret: 'demo-analyst-secret', role: Role.ANALYST },
] as const;

export const simulatorBaseUrl = (simPort: number) => `http://127.0.0.1:${simPort}`;

/**
 * Demo mode: an empty database gets demo data and the demo clients; every insurer whose quote API is the
 * bundled simulator gets a callback client `sim-<slug>` / `sim-<slug>-secret` and a webhook endpoint at the simulator,
 * which verifies the events' signatures. Answers the simulator's insurers.
 */
export async function ensureDemoData(orm: MikroORM, simPort: number): Promise<SimInsurerOptions[]> {
  const em = orm.em.fork();
  const clients = new ApiClientService(em);
  if ((await em.count(Tender)) === 0 && (await em.count(ApiClient)) === 0) {
    const seeded = await new SeedService(em).run({ tenders: DEMO_TENDERS, seed: DEMO_SEED, insurerApiUrl: simulatorBaseUrl(simPort) });
    for (const demo of DEMO_CLIENTS) {
      await clients.create({
        ...demo,
        insurerId: demo.role === Role.INSURER ? seeded.insurers[0].id : undefined,
        brokerCompanyId: demo.role === Role.BROKER ? seeded.brokerCompanies[0].id : undefined,
        description: 'demo client',
      });
    }
  }
  const prefix = `${simulatorBaseUrl(simPort)}/insurers/`;
  const simulated = (await em.find(Insurer, {}, { orderBy: { name: 'asc' } })).filter((insurer) => insurer.quoteApiUrl?.startsWith(prefix));
  // One after another: they share one EntityManager.
  const options: SimInsurerOptions[] = [];
  for (const [index, insurer] of simulated.entries()) {
    const slug = insurerSlug(insurer.name);
    const credentials = { appId: `sim-${slug}`, secret: `sim-${slug}-secret` };
    if (!(await em.count(ApiClient, { appId: credentials.appId }))) {
      await clients.create({ role: Role.INSURER, insurerId: insurer.id, description: 'insurer simulator callbacks', ...credentials });
    }
    // Its tender events go to the simulator, which verifies their signatures: the demo shows the whole loop.
    const client = await em.findOneOrFail(ApiClient, { appId: credentials.appId });
    const url = `${insurer.quoteApiUrl}/webhooks`;
    const endpoint =
      (await em.findOne(WebhookEndpoint, { owner: client, url })) ??
      em.create(WebhookEndpoint, {
        owner: client,
        url,
        eventTypes: [...(EVENTS_FOR[Role.INSURER] ?? [])],
        description: 'insurer simulator',
        secret: newWebhookSecret(),
      });
    await em.flush();
    // Prices differ by insurer so the proposal has something to compare; the first lists its quote slip with its quote.
    options.push({
      slug,
      ...credentials,
      pricingFactor: 0.8 + (index % 5) * 0.1,
      webhookSecret: endpoint.secret,
      ...(index === 0 ? { behaviour: 'quote-document' as const } : {}),
    });
  }
  return options;
}
