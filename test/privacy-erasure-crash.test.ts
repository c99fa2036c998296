import { afterAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { ApiClientService } from '../src/auth';
import { openDatabase } from '../src/database';
import { Customer } from '../src/parties';
import { loadConfig } from '../src/platform/config';
import { CustomerErasure } from '../src/privacy';
import { Tender } from '../src/tenders';
import { createWorld } from './helpers/fixtures';
import { discardProductionData, freePort, productionData, spawnGateway, type GatewayProcess } from './helpers/gateway-process';
import { LARGE_MARKER, largeCustomer } from './helpers/large-customer';
import { whereMarkersAre } from './helpers/privacy';

const ERASE = `mutation ($customerId: ID!) { eraseCustomer(customerId: $customerId, reason: "Ticket PRIV-9") { tenders alreadyErased } }`;

/** `kill -9` of the production start in the middle of an erasure (issue 29, "Must hold"), on the configured engine. */
describe('kill -9 during an erasure', () => {
  let gateway: GatewayProcess | undefined;
  let dataDir = '';
  afterAll(async () => {
    await discardProductionData(gateway, dataDir);
  });

  it('after the restart the customer is erased wholly or not at all; erasing again then completes', async () => {
    const data = await productionData('tender-exchange-erasure-crash-');
    dataDir = data.dataDir;
    const world = await createWorld(data.orm.em.fork());
    const { customer, tenderIds } = await largeCustomer(data.orm.em.fork(), world, 3000);
    await data.orm.close();
    const port = await freePort();
    const start = () => spawnGateway(dataDir, port, data.env, { production: true });
    gateway = await start();
    const token = async () => {
      const orm = await openDatabase(loadConfig(data.env));
      const { client, secret } = await new ApiClientService(orm.em.fork()).create({ role: Role.INTERNAL }).finally(() => orm.close());
      const response = await fetch(`${gateway!.url}/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ app_id: client.appId, secret }),
      });
      return ((await response.json()) as { access_token: string }).access_token;
    };
    const internal = await token();
    const erase = () =>
      fetch(`${gateway!.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${internal}` },
        body: JSON.stringify({ query: ERASE, variables: { customerId: customer.id } }),
      });

    // Cut while the erasure of 3000 tenders is under way: its answer must not have come.
    const answer = erase().then(
      () => 'answered',
      () => 'cut',
    );
    await new Promise((resolve) => setTimeout(resolve, 400));
    await gateway.kill();
    expect(await answer).toBe('cut');

    gateway = await start();
    const orm = await openDatabase(loadConfig(data.env));
    try {
      const em = orm.em.fork();
      const held = await em.count(Tender, { customer: customer.id, erasedAt: null });
      const erasedCustomer = (await em.findOneOrFail(Customer, { id: customer.id })).erasedAt !== null;
      const records = await em.count(CustomerErasure, { customerId: customer.id });
      const markers = await whereMarkersAre(em, [LARGE_MARKER]);
      const whole = held === 0 && erasedCustomer && records === 1 && markers.length === 0;
      const none = held === tenderIds.length && !erasedCustomer && records === 0 && markers.length === 5;
      expect({ held, erasedCustomer, records, markers, whole, none }).toMatchObject({ ...(whole ? { whole } : { none: true }) });

      const again = (await (await erase()).json()) as { data: { eraseCustomer: unknown } };
      expect(again.data.eraseCustomer).toEqual({ tenders: 3000, alreadyErased: whole });
      expect(await em.fork().count(Tender, { customer: customer.id, erasedAt: null })).toBe(0);
      expect(await whereMarkersAre(em.fork(), [LARGE_MARKER])).toEqual([]);
    } finally {
      await orm.close();
    }
  }, 240_000);
});
