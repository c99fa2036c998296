import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { Tender, TenderStatus, TENDER_FIELD_LIST, exportedTenderValues, personalTenderFields } from '../src/tenders';
import { createTender, createWorld, type World } from './helpers/fixtures';
import { getJson, graphql, startGateway, tokenFor, type Gateway } from './helpers/gateway';

/**
 * The tender's shape (src/tenders/shape/): what is personal, what the creation input takes, and the exported values,
 * each derived from the declaration.
 */

let gateway: Gateway;
let world: World;
let internal: string;

beforeAll(async () => {
  gateway = await startGateway();
  world = await createWorld(gateway.em());
  internal = await tokenFor(gateway, Role.INTERNAL);
});

afterAll(() => gateway?.close());

describe('the tender shape', () => {
  it('flags the customer and the person in charge as personal, and every field as erased or kept', () => {
    expect(personalTenderFields).toEqual(['customer', 'personInCharge']);
    for (const field of TENDER_FIELD_LIST) expect(['erase', 'keep']).toContain(field.personal);
  });

  it('exports a tender as the REST JSON shows it to an internal viewer, in its names and order', async () => {
    const em = gateway.em();
    const open = await createTender(em, world);
    const successful = await createTender(em, world, { status: TenderStatus.SUCCESSFUL, awardedInsurer: world.insurers[0] });
    successful.policyNumber = 'POL-1';
    successful.policyConfirmedAt = new Date('2026-05-04T09:15:00.000Z');
    await em.flush();
    for (const { id } of [open, successful]) {
      const tender = await gateway
        .em()
        .findOneOrFail(Tender, id, { populate: ['lineOfBusiness', 'customer', 'brokerCompany', 'personInCharge', 'awardedInsurer'] });
      const { status, body } = await getJson(gateway, `/api/v1/tenders/${id}`, internal);
      expect(status).toBe(200);
      expect(JSON.stringify(exportedTenderValues(tender))).toBe(JSON.stringify(body));
    }
  });

  it('takes the declared input columns in the creation input, with their rules, and stores them trimmed', async () => {
    const create = (product: string, taxRate: number) =>
      graphql(
        gateway,
        internal,
        `
          mutation ($input: CreateTenderInput!) {
            createTender(input: $input) {
              product
              taxRate
            }
          }
        `,
        {
          input: {
            product,
            taxRate,
            lineOfBusinessId: world.lines.cyber.id,
            brokerCompanyId: world.brokers[0].id,
            customer: { id: world.customer.id },
            submitter: { accountId: 'shape-1', email: 'shape@example.com', firstName: 'Sam', lastName: 'Shape' },
          },
        },
      );
    const created = await create('  Cyber Shape ', 0.07);
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createTender).toEqual({ product: 'Cyber Shape', taxRate: 0.07 });
    const refused = await create('Cyber Shape', 1.5);
    expect(refused.body.errors[0].extensions.errors).toEqual([expect.objectContaining({ parameter: 'taxRate' })]);
  });
});
