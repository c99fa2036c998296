import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { createWorld } from './helpers/fixtures';
import { graphql, startGateway, tokenFor, type Gateway } from './helpers/gateway';

/**
 * The partner URL policy (INSURER_URL_ALLOW, WEBHOOK_URL_ALLOW) as a partner meets it: registering a webhook endpoint
 * (special-purpose addresses are refused in every environment) and an insurer (in production).
 */

/**
 * Every entry of the IANA IPv4 and IPv6 special-purpose address registries, plus multicast, broadcast, the deprecated
 * site-local range and IPv6 forms that embed an IPv4 address: [range, a representative address].
 */
const SPECIAL_PURPOSE: [string, string][] = [
  // IPv4 (RFC 6890 and its updates)
  ['0.0.0.0/8', '0.1.2.3'],
  ['0.0.0.0/32', '0.0.0.0'],
  ['10.0.0.0/8', '10.1.2.3'],
  ['100.64.0.0/10', '100.100.0.1'],
  ['127.0.0.0/8', '127.0.0.1'],
  ['169.254.0.0/16', '169.254.169.254'],
  ['172.16.0.0/12', '172.31.255.1'],
  ['192.0.0.0/24', '192.0.0.1'],
  ['192.0.0.0/29', '192.0.0.2'],
  ['192.0.0.8/32', '192.0.0.8'],
  ['192.0.0.9/32', '192.0.0.9'],
  ['192.0.0.10/32', '192.0.0.10'],
  ['192.0.0.170/32', '192.0.0.170'],
  ['192.0.0.171/32', '192.0.0.171'],
  ['192.0.2.0/24', '192.0.2.1'],
  ['192.31.196.0/24', '192.31.196.1'],
  ['192.52.193.0/24', '192.52.193.1'],
  ['192.88.99.0/24', '192.88.99.1'],
  ['192.168.0.0/16', '192.168.1.1'],
  ['192.175.48.0/24', '192.175.48.1'],
  ['198.18.0.0/15', '198.19.255.254'],
  ['198.51.100.0/24', '198.51.100.1'],
  ['203.0.113.0/24', '203.0.113.1'],
  ['240.0.0.0/4', '240.0.0.1'],
  ['255.255.255.255/32', '255.255.255.255'],
  ['224.0.0.0/4', '224.0.0.1'],
  ['224.0.0.0/4', '239.255.255.250'],
  // IPv6
  ['::1/128', '::1'],
  ['::/128', '::'],
  ['::ffff:0:0/96', '::ffff:127.0.0.1'],
  ['::ffff:0:0/96', '::ffff:10.0.0.1'],
  ['::ffff:0:0:0/96', '::ffff:0:7f00:1'],
  ['::/96', '::127.0.0.1'],
  ['64:ff9b::/96', '64:ff9b::7f00:1'],
  ['64:ff9b::/96', '64:ff9b::192.168.0.1'],
  ['64:ff9b:1::/48', '64:ff9b:1::808:808'],
  ['100::/64', '100::1'],
  ['100:0:0:1::/64', '100:0:0:1::1'],
  ['2001::/23', '2001:1ff::1'],
  ['2001::/32', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
  ['2001:1::1/128', '2001:1::1'],
  ['2001:1::2/128', '2001:1::2'],
  ['2001:1::3/128', '2001:1::3'],
  ['2001:2::/48', '2001:2::1'],
  ['2001:3::/32', '2001:3::1'],
  ['2001:4:112::/48', '2001:4:112::1'],
  ['2001:10::/28', '2001:10::1'],
  ['2001:20::/28', '2001:20::1'],
  ['2001:30::/28', '2001:30::1'],
  ['2001:db8::/32', '2001:db8::1'],
  ['2002::/16', '2002:7f00:1::1'],
  ['2002::/16', '2002:a9fe:a9fe::1'],
  ['2620:4f:8000::/48', '2620:4f:8000::1'],
  ['3fff::/20', '3fff::1'],
  ['5f00::/16', '5f00::1'],
  ['fc00::/7', 'fd12:3456::1'],
  ['fe80::/10', 'fe80::1'],
  ['fec0::/10', 'fec0::1'],
  ['ff00::/8', 'ff02::1'],
];

/** Ordinary public addresses, also when embedded in an IPv6 form. */
const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.215.14',
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '::ffff:8.8.8.8',
  '64:ff9b::8.8.8.8',
  '2002:808:808::1',
  '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
];

const hostOf = (address: string) => (address.includes(':') ? `[${address}]` : address);

async function register(gateway: Gateway, token: string, url: string) {
  const response = await fetch(`${gateway.url}/integration/v1/webhook-endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, event_types: ['tender.status_changed'] }),
  });
  const body: any = await response.json();
  // Registered endpoints are removed again: a client has at most 10.
  if (response.status === 201) {
    const removed = await fetch(`${gateway.url}/integration/v1/webhook-endpoints/${body._id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(removed.status).toBe(204);
  }
  return { status: response.status, body };
}

describe('special-purpose addresses in webhook endpoint URLs', () => {
  let unlisted: Gateway;
  let listed: Gateway;
  let unlistedToken: string;
  let listedToken: string;

  beforeAll(async () => {
    unlisted = await startGateway({ dispatch: false });
    // The IPv4-mapped ranges are listed by their representatives: listed whole, they would list every IPv4 address.
    const entries = SPECIAL_PURPOSE.map(([range, address]) => (range.startsWith('::ffff:') ? address : range));
    listed = await startGateway({ dispatch: false, env: { WEBHOOK_URL_ALLOW: [...new Set(entries)].join(',') } });
    unlistedToken = await tokenFor(unlisted, Role.BROKER, { brokerCompanyId: (await createWorld(unlisted.em())).brokers[0].id });
    listedToken = await tokenFor(listed, Role.BROKER, { brokerCompanyId: (await createWorld(listed.em())).brokers[0].id });
  });

  afterAll(async () => {
    await unlisted?.close();
    await listed?.close();
  });

  it.each(SPECIAL_PURPOSE)('%s (%s) is refused naming WEBHOOK_URL_ALLOW, and accepted once its range is listed', async (range, address) => {
    const url = `http://${hostOf(address)}:8080/hooks`;
    const refused = await register(unlisted, unlistedToken, url);
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body.errors).toEqual([
      {
        pointer: '/url',
        message: expect.stringMatching(/^not allowed: the address .* is special-purpose .* not listed in WEBHOOK_URL_ALLOW$/),
      },
    ]);
    const accepted = await register(listed, listedToken, url);
    expect(accepted.status, `${range}: ${JSON.stringify(accepted.body)}`).toBe(201);
  });

  it.each(PUBLIC)('the public address %s is accepted, also where only special-purpose ranges are listed', async (address) => {
    const url = `https://${hostOf(address)}/hooks`;
    expect((await register(unlisted, unlistedToken, url)).status).toBe(201);
    expect((await register(listed, listedToken, url)).status).toBe(201);
  });
});

describe('WEBHOOK_URL_ALLOW in development', () => {
  it('the demo entry 127.0.0.1 lets the simulator be called without turning the list into an allow-list: public URLs stay allowed', async () => {
    const development = await startGateway({ dispatch: false, env: { NODE_ENV: 'development', DEMO: 'true', SIM_PORT: '0' } });
    try {
      const token = await tokenFor(development, Role.BROKER, { brokerCompanyId: (await createWorld(development.em())).brokers[0].id });
      for (const url of [
        'https://hooks.partner.example/in',
        'http://hooks.partner.example:8080/in',
        'http://127.0.0.1:4100/hooks',
        'https://8.8.8.8/in',
      ]) {
        const { status, body } = await register(development, token, url);
        expect(status, `${url}: ${JSON.stringify(body)}`).toBe(201);
      }
      const privateUrl = await register(development, token, 'http://10.0.0.7/hooks');
      expect(privateUrl.status).toBe(400);
      expect(privateUrl.body.errors[0].message).toContain('WEBHOOK_URL_ALLOW');
    } finally {
      await development.close();
    }
  });

  it('a URL outside a listed host is refused with a message naming WEBHOOK_URL_ALLOW, not INSURER_URL_ALLOW', async () => {
    const guarded = await startGateway({
      dispatch: false,
      env: { NODE_ENV: 'development', DEMO: 'true', SIM_PORT: '0', WEBHOOK_URL_ALLOW: 'hooks.partner.example' },
    });
    try {
      const token = await tokenFor(guarded, Role.BROKER, { brokerCompanyId: (await createWorld(guarded.em())).brokers[0].id });
      expect((await register(guarded, token, 'https://hooks.partner.example/in')).status).toBe(201);
      expect((await register(guarded, token, 'http://127.0.0.1:4100/hooks')).status).toBe(201);
      const elsewhere = await register(guarded, token, 'https://elsewhere.example/in');
      expect(elsewhere.status).toBe(400);
      expect(elsewhere.body.errors).toEqual([{ pointer: '/url', message: 'not allowed: the URL matches no WEBHOOK_URL_ALLOW entry' }]);
    } finally {
      await guarded.close();
    }
  });
});

describe('INSURER_URL_ALLOW in production', () => {
  it('an insurer URL at an IPv6 form of loopback is refused naming INSURER_URL_ALLOW; a listed private address is an exception, not an allow-list', async () => {
    const production = await startGateway({ dispatch: false, env: { NODE_ENV: 'production', INSURER_URL_ALLOW: '10.20.0.0/16' } });
    try {
      const internal = await tokenFor(production, Role.INTERNAL);
      const create = (name: string, url: string) =>
        graphql(
          production,
          internal,
          'mutation($name: String!, $url: String!) { createInsurer(input: { name: $name, quoteApiUrl: $url }) { id } }',
          { name, url },
        );
      for (const [i, url] of [
        'http://[::127.0.0.1]/quotes',
        'http://[::ffff:0:7f00:1]/quotes',
        'http://[64:ff9b::7f00:1]/quotes',
        'http://[2002:7f00:1::1]/quotes',
        'http://10.21.0.1/quotes',
      ].entries()) {
        const { status, body } = await create(`Refused ${i}`, url);
        expect(status, url).toBe(400);
        expect(body.errors[0].extensions.errors[0].message, url).toMatch(/^not allowed: the address .* not listed in INSURER_URL_ALLOW$/);
      }
      for (const [i, url] of ['http://10.20.1.2/quotes', 'https://quotes.insurer.example/api'].entries()) {
        const { body } = await create(`Accepted ${i}`, url);
        expect(body.errors, url).toBeUndefined();
      }
    } finally {
      await production.close();
    }
  });
});
