import type { MikroORM } from '@mikro-orm/core';
import { ApiClient, ApiClientService } from '../auth';
import { Role, operatorViewer } from '../access';
import type { SimInsurerOptions } from '../insurer-sim/insurer-sim';
import { Insurer } from '../insurers';
import { LineOfBusiness, Tender, TenderStatus } from '../tenders';
import { InsurerRequirement, QuestionSet, QuestionSetService, RiskAssessmentService } from '../risk';
import { WebhookEndpoint, EVENTS_FOR, newWebhookSecret } from '../webhooks';
import { SeedService, insurerSlug, PRODUCTS } from './seed.service';
import { DEMO_QUESTION_SETS, demoAnswers, demoRequirements } from './demo-question-sets';

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
 * which verifies the events' signatures, and a contact the gateway mails (caught at /dev/mail by `npm start`).
 * Answers the simulator's insurers.
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
  await ensureDemoQuestionSets(orm);
  const prefix = `${simulatorBaseUrl(simPort)}/insurers/`;
  const simulated = (await em.find(Insurer, {}, { orderBy: { name: 'asc' } })).filter((insurer) => insurer.quoteApiUrl?.startsWith(prefix));
  // One after another: they share one EntityManager.
  const options: SimInsurerOptions[] = [];
  for (const [index, insurer] of simulated.entries()) {
    const slug = insurerSlug(insurer.name);
    // A contact to mail: `npm run demo` invites the insurer, and the invitation shows at /dev/mail.
    if (insurer.contacts.length === 0) {
      insurer.contacts = [
        { email: `underwriting@${slug}.example`, name: `Underwriting ${insurer.name}`, language: index % 2 === 0 ? 'de' : 'en' },
      ];
    }
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

/** The demo's operator, publishing question sets and answering for brokers: what the demo data was written by. */
const DEMO_VIEWER = operatorViewer('demo-seed');
/** Open tenders per product of the demo broker's company answered and submitted: quotes are asked for from them. */
const QUOTABLE = [TenderStatus.QUOTES_AVAILABLE, TenderStatus.IN_NEGOTIATION, TenderStatus.REOPENED];
const ANSWERED_PER_PRODUCT = 3;

/**
 * Demo mode, once: every product of a line with a demo question set gets it as version 1; each insurer requires the
 * questions `demoRequirements` gives its place; and a few open tenders of each such product have their risk
 * assessment answered and submitted (docs/risk-assessment.md).
 */
async function ensureDemoQuestionSets(orm: MikroORM): Promise<void> {
  const em = orm.em.fork();
  if ((await em.count(QuestionSet)) > 0) return;
  const lines = await em.find(LineOfBusiness, {});
  const insurers = await em.find(Insurer, {}, { orderBy: { name: 'asc' } });
  const past = new Date(Date.UTC(2020, 0, 1));
  // The demo broker's own tenders are the ones answered: `npm run demo` asks for quotes from one of them.
  const demoBroker = (await em.findOne(ApiClient, { appId: 'demo-broker' }))?.brokerCompany?.id;
  let seed = 7;
  // A fixed sequence: the demo's answers are the same on every machine.
  const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
  for (const set of DEMO_QUESTION_SETS) {
    const line = lines.find((candidate) => candidate.name === set.lineOfBusiness);
    if (!line) continue;
    for (const product of PRODUCTS[set.lineOfBusiness] ?? []) {
      await new QuestionSetService(em.fork(), DEMO_VIEWER).publish({
        product,
        lineOfBusinessId: line.id,
        schema: structuredClone<Record<string, unknown>>(set.schema),
      });
      for (const [index, insurer] of insurers.entries()) {
        em.create(InsurerRequirement, {
          insurer,
          product,
          pointers: demoRequirements(index, set.lineOfBusiness),
          effectiveFrom: past,
          setBy: DEMO_VIEWER.appId,
        });
      }
      await em.flush();
      const open = await em.find(
        Tender,
        { product, status: { $in: QUOTABLE }, ...(demoBroker ? { brokerCompany: demoBroker } : {}) },
        { orderBy: { updatedAt: 'desc' }, limit: ANSWERED_PER_PRODUCT },
      );
      for (const tender of open) {
        await new RiskAssessmentService(em.fork(), DEMO_VIEWER).save({
          tenderId: tender.id,
          answers: demoAnswers(set.lineOfBusiness, random),
          expectedVersion: 0,
          submit: true,
        });
      }
    }
  }
}
