import type { MikroORM } from '@mikro-orm/core';
import { ApiClient } from '../auth/api-client.entity';
import { ApiClientService } from '../auth/api-client.service';
import { Role } from '../auth/role';
import { Tender } from '../tenders/tender.entity';
import { SeedService } from './seed.service';

export const DEMO_TENDERS = 500;
const DEMO_SEED = 42;

/** Fixed, documented credentials for local exploration; created only in demo mode on an empty database. */
export const DEMO_CLIENTS = [
  { appId: 'demo-insurer', secret: 'demo-insurer-secret', role: Role.INSURER },
  { appId: 'demo-broker', secret: 'demo-broker-secret', role: Role.BROKER },
  { appId: 'demo-internal', secret: 'demo-internal-secret', role: Role.INTERNAL },
  { appId: 'demo-analyst', secret: 'demo-analyst-secret', role: Role.ANALYST },
] as const;

/** Seeds demo data into an empty database; answers whether the demo clients exist (new or from before). */
export async function ensureDemoData(orm: MikroORM): Promise<boolean> {
  const em = orm.em.fork();
  if ((await em.count(Tender)) === 0 && (await em.count(ApiClient)) === 0) {
    const seeded = await new SeedService(em).run({ tenders: DEMO_TENDERS, seed: DEMO_SEED });
    const clients = new ApiClientService(em);
    for (const demo of DEMO_CLIENTS) {
      await clients.create({
        ...demo,
        insurerId: demo.role === Role.INSURER ? seeded.insurers[0].id : undefined,
        brokerCompanyId: demo.role === Role.BROKER ? seeded.brokerCompanies[0].id : undefined,
        description: 'demo client',
      });
    }
  }
  return (await em.count(ApiClient, { appId: DEMO_CLIENTS[0].appId })) > 0;
}
