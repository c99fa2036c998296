import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { SeedService, type SeedResult } from '../src/seed/seed.service';
import { getJson, graphql, tokenFor } from './helpers/gateway';
import { withGateway } from './helpers/scene';

/**
 * The REST names of spec 2.1 as aliases of the GraphQL fields: what the REST shims promise to be. The REST answer
 * may carry additions beyond these (the OpenAPI document, which every answer is checked against, names them).
 */
const ALIASED = `
  _id: id changes_metadata: changesMetadata created_at: createdAt updated_at: updatedAt product status tax_rate: taxRate
  line_of_business: lineOfBusiness { _id: id name }
  customer { _id: id address { street house_number: houseNumber zip city country } company_id: companyId name }
  broker_company: brokerCompany { _id: id address { street house_number: houseNumber zip city country } company_id: companyId email name }
  person_in_charge: personInCharge { _id: id account_id: accountId email first_name: firstName last_name: lastName salutation }
  policy_documentation: policyDocumentation { status policy_number: policyNumber confirmed_at: confirmedAt document_id: documentId period { start end } }
`;

/** The REST tender's fields that the aliased GraphQL result has. */
const sharedWith = (rest: Record<string, unknown>, gql: Record<string, unknown>) =>
  Object.fromEntries(Object.keys(gql).map((key) => [key, rest[key]]));

const REST_SORT: Record<string, string> = { CREATED_AT: 'created_at', UPDATED_AT: 'updated_at', STATUS: 'status', PRODUCT: 'product' };

let seeded: SeedResult;
const viewers: Record<string, { token: string; prefix: string }> = {};

const scene = withGateway({ per: 'file' });

beforeAll(async () => {
  seeded = await new SeedService(scene.gateway.em()).run({ tenders: 600, seed: 11 });
  viewers.insurer = { token: await tokenFor(scene.gateway, Role.INSURER, { insurerId: seeded.insurers[2].id }), prefix: '/public/v1' };
  viewers.broker = {
    token: await tokenFor(scene.gateway, Role.BROKER, { brokerCompanyId: seeded.brokerCompanies[1].id }),
    prefix: '/api/v1',
  };
  viewers.internal = { token: await scene.token(Role.INTERNAL), prefix: '/api/v1' };
});

describe('REST and GraphQL agree', () => {
  const cases = [
    { sort: [], status: undefined, skip: 0, limit: 50 },
    { sort: [{ field: 'UPDATED_AT', direction: 'DESC' }], status: undefined, skip: 10, limit: 200 },
    {
      sort: [
        { field: 'STATUS', direction: 'ASC' },
        { field: 'PRODUCT', direction: 'DESC' },
      ],
      status: ['CLOSED', 'SUCCESSFUL'],
      skip: 3,
      limit: 37,
    },
    { sort: [{ field: 'PRODUCT', direction: 'ASC' }], status: ['QUOTES_AVAILABLE'], skip: 0, limit: 1 },
  ];

  for (const viewer of ['insurer', 'broker', 'internal']) {
    it.each(cases)(`for the ${viewer} the REST page equals the aliased GraphQL result (%o)`, async (params) => {
      const { token, prefix } = viewers[viewer];
      const query = new URLSearchParams({ skip: String(params.skip), limit: String(params.limit) });
      if (params.sort.length)
        query.set('sort', params.sort.map((s) => `${s.direction === 'DESC' ? '-' : ''}${REST_SORT[s.field]}`).join(','));
      if (params.status) query.set('status', params.status.join(','));
      const rest = await getJson(scene.gateway, `${prefix}/tenders?${query.toString()}`, token);
      expect(rest.status).toBe(200);

      const gql = await graphql(
        scene.gateway,
        token,
        `query($status: [TenderStatus!], $sort: [TenderSort!], $skip: Int, $limit: Int) {
           tenders(status: $status, sort: $sort, skip: $skip, limit: $limit) { count items { ${ALIASED} } } }`,
        { status: params.status, sort: params.sort, skip: params.skip, limit: params.limit },
      );
      expect(gql.body.errors).toBeUndefined();
      expect(rest.body.metadata.count).toBe(String(gql.body.data.tenders.count));
      const items = gql.body.data.tenders.items as Record<string, unknown>[];
      expect(rest.body.payload.map((tender: Record<string, unknown>, i: number) => sharedWith(tender, items[i] ?? {}))).toEqual(items);
      expect(rest.body.payload.length).toBeGreaterThan(0);
    });
  }

  it('a single tender agrees too, redaction included', async () => {
    const { token } = viewers.insurer;
    const closed = (await getJson(scene.gateway, '/public/v1/tenders/closed?limit=1', token)).body.payload[0];
    const gql = await graphql(scene.gateway, token, `query($id: ID!) { tender(id: $id) { ${ALIASED} } }`, { id: closed._id });
    expect(sharedWith((await getJson(scene.gateway, `/public/v1/tenders/${closed._id}`, token)).body, gql.body.data.tender)).toEqual(
      gql.body.data.tender,
    );
    expect(closed.customer).toBeNull();
  });
});
