import { randomBytes } from 'node:crypto';
import type { ParsedMail } from 'mailparser';
import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { AccessLink } from '../src/links';
import { MailMessage, MailStatus } from '../src/mail';
import { TenderStatus, type Tender } from '../src/tenders';
import { createTender } from './helpers/fixtures';
import { graphql, graphqlData } from './helpers/gateway';
import { cyberQuestionSet } from './helpers/question-sets';
import { withGateway } from './helpers/scene';
import { awayFromWindowEdge } from './helpers/rate-limit-window';
import { waitFor } from './helpers/simulator';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';
import { capturedLogger } from './helpers/captured-log';

/** Issue 40 part 3 and 5: the customer's questionnaire page, over plain HTTP as a browser without JavaScript sends it. */

/** The gateway's clock: the real time, moved on by `ahead` (a link expires by it; no test sleeps). */
let ahead = 0;
const now = () => new Date(Date.now() + ahead);

/** Every log line the gateway writes. */
const { logger, lines: logLines } = capturedLogger();

const scene = withGateway({ per: 'file', world: true, webhooks: 'fast', clock: now, logger, start: 'manual' });
let smtp: SmtpSink;
let receiver: WebhookReceiver;

const MAIL = {
  MAIL_POLL_INTERVAL_MS: '20',
  MAIL_RETRY_SCHEDULE: '100ms,100ms,100ms',
  MAIL_TIMEOUT_MS: '1000',
  MAIL_FROM: 'Tender Exchange <gateway@tender-exchange.test>',
};

beforeAll(async () => {
  smtp = scene.closes(await startSmtpSink());
  receiver = scene.closes(await startWebhookReceiver());
  // Each test's requests come from an address of their own (X-Forwarded-For, trusted from loopback), so that the
  // per-address limit is each test's own.
  await scene.start({
    ...MAIL,
    SMTP_URL: smtp.url,
    TRUST_PROXY: 'loopback',
    PAGE_RATE_LIMIT_PER_MINUTE: '40',
    PAGE_LINK_RATE_LIMIT_PER_MINUTE: '25',
  });
  const internal = await scene.token(Role.INTERNAL);
  const published = await graphql(
    scene.gateway,
    internal,
    'mutation($input: PublishQuestionSetInput!) { publishQuestionSet(input: $input) { questionSet { version } } }',
    { input: { product: 'Cyber Protect', lineOfBusinessId: scene.world.lines.cyber.id, schema: cyberQuestionSet() } },
  );
  expect(published.body.errors).toBeUndefined();
});

let addresses = 0;
/** A client address of the test's own. */
const newAddress = () => `10.0.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`;

const gql = (token: string, query: string, variables?: Record<string, unknown>) => graphqlData(scene.gateway, token, query, variables);

const CREATE =
  'mutation($input: CreateQuestionnaireLinkInput!) { createQuestionnaireLink(input: $input) { id url expiresAt email language } }';

interface Link {
  id: string;
  url: string;
  expiresAt: string;
  token: string;
  path: string;
}

async function newLink(tender: Tender, input: Record<string, unknown> = {}, broker?: string): Promise<Link> {
  const token = broker ?? (await scene.token(Role.BROKER));
  const link = (await gql(token, CREATE, { input: { tenderId: tender.id, ...input } })).createQuestionnaireLink as Omit<
    Link,
    'token' | 'path'
  >;
  const url = new URL(link.url);
  return { ...link, token: url.pathname.split('/').pop()!, path: url.pathname };
}

/** A tender of broker 0 and a link to its questionnaire. */
async function tenderWithLink(input: Record<string, unknown> = {}): Promise<{ tender: Tender; link: Link }> {
  const tender = await createTender(scene.em(), scene.world);
  return { tender, link: await newLink(tender, input) };
}

interface Page {
  status: number;
  headers: Headers;
  html: string;
  location: string | null;
}

/** A page as a browser gets it (no redirects followed), from `address`. */
async function get(path: string, address: string, headers: Record<string, string> = {}): Promise<Page> {
  const response = await fetch(`${scene.gateway.url}${path}`, { redirect: 'manual', headers: { 'x-forwarded-for': address, ...headers } });
  return { status: response.status, headers: response.headers, html: await response.text(), location: response.headers.get('location') };
}

/** A form sent as a browser without JavaScript sends it: urlencoded, fields in order (a name may repeat). */
async function post(path: string, address: string, fields: [string, string][], headers: Record<string, string> = {}): Promise<Page> {
  const response = await fetch(`${scene.gateway.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address, ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, headers: response.headers, html: await response.text(), location: response.headers.get('location') };
}

/** The hidden fields of the page's form: what a browser sends back unchanged. */
function hiddenFields(html: string): [string, string][] {
  return [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((match) => [match[1], unescape(match[2])]);
}

const unescape = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** Loads the page and sends its form with `fields` and the button `action`. */
async function send(link: Link, address: string, action: string, fields: [string, string][]): Promise<Page> {
  const page = await get(link.path, address);
  expect(page.status).toBe(200);
  return post(link.path, address, [...hiddenFields(page.html), ...fields, ['_action', action]]);
}

const COMPLETE: [string, string][] = [
  ['/turnover/amount', '5000000'],
  ['/turnover/currency', 'EUR'],
  ['/type_of_business', 'Software'],
  ['/employees', '42'],
  ['/mfa', 'true'],
  ['/had_incident', 'true'],
  ['/incident_description', 'Phishing, 2024'],
  ['/contact_email', 'it@acme.example'],
];

describe("the customer's questionnaire page", () => {
  it('shows the product, the broker company, the customer and the questions, nothing else, under a strict policy', async () => {
    const { tender, link } = await tenderWithLink();
    const address = newAddress();
    const page = await get(link.path, address);
    expect(page.status).toBe(200);
    expect(link.url).toBe(`${scene.gateway.url}/questionnaire/${link.token}`);
    expect(link.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Its words and facts: German by default.
    expect(page.html).toContain('<html lang="de">');
    for (const shown of ['Cyber Protect', 'First Brokers', 'Acme GmbH', 'Umsatz', 'Beschäftigte', 'Standorte', 'Nur auszufüllen, wenn'])
      expect(page.html).toContain(shown);
    // Nothing else of the tender: no id, no person in charge, no insurer, no other party.
    for (const hidden of [tender.id, 'person0@broker.example', 'Muster0', 'Alpha Insurance', 'office@broker0.example'])
      expect(page.html).not.toContain(hidden);

    // A policy with a nonce of its own per response, and the nonce on the one script.
    const csp = page.headers.get('content-security-policy')!;
    const nonce = /'nonce-([^']+)'/.exec(csp)![1];
    expect(csp).toBe(
      `default-src 'self'; script-src 'self' 'nonce-${nonce}'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    );
    expect(page.html).toContain(`<script src="/pages/assets/pages.js" nonce="${nonce}"></script>`);
    expect(/'nonce-([^']+)'/.exec((await get(link.path, address)).headers.get('content-security-policy')!)![1]).not.toBe(nonce);
    expect(page.html).not.toMatch(/<script(?![^>]*nonce=)/);
    expect(page.html).not.toMatch(/\sstyle=|\son[a-z]+=/i);
    // Nothing from another host: every URL in the page is this gateway's own path.
    expect(page.html).not.toMatch(/(?:src|href|action)="(?:https?:)?\/\//);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    // Labels for every field, and the stylesheet and script served by the gateway itself.
    for (const [, id] of page.html.matchAll(/<(?:input|select|textarea) id="([^"]+)"/g)) {
      if (!id.endsWith('-true') && !id.endsWith('-false')) expect(page.html).toContain(`<label for="${id}">`);
    }
    for (const asset of ['/pages/assets/pages.css', '/pages/assets/pages.js'])
      expect((await fetch(`${scene.gateway.url}${asset}`)).status).toBe(200);

    // English by ?lang=, or by the browser's language.
    expect((await get(`${link.path}?lang=en`, address)).html).toMatch(/<html lang="en">[\s\S]*Turnover/);
    expect((await get(link.path, address, { 'accept-language': 'en-GB,en;q=0.9' })).html).toContain('<html lang="en">');
  });

  it('works without JavaScript: a draft, another location and one removed, errors, a submission the broker reads over REST', async () => {
    const broker = await scene.token(Role.BROKER);
    const subscribed = await fetch(`${scene.gateway.url}/integration/v1/webhook-endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${broker}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url('/broker'), event_types: ['risk_assessment.submitted'] }),
    });
    expect(subscribed.status).toBe(201);
    const { tender, link } = await tenderWithLink();
    const address = newAddress();

    // A draft: saved, then the page again (POST-redirect-GET).
    const saved = await send(link, address, 'save', [['/type_of_business', 'Software']]);
    expect([saved.status, saved.location]).toEqual([303, `${link.path}?saved=1`]);
    expect((await get(saved.location!, address)).html).toContain('Ihr Entwurf ist gespeichert.');

    // Another location: the draft is saved with one more group, shown at once.
    const added = await send(link, address, 'add:/locations', [['/type_of_business', 'Software']]);
    expect([added.status, added.location]).toEqual([303, `${link.path}?saved=1#q-locations-0`]);
    const withOne = await get(link.path, address);
    expect(withOne.html).toContain('name="/locations/0/city"');
    const two = await post(link.path, address, [
      ...hiddenFields(withOne.html),
      ['/locations/0/city', 'Berlin'],
      ['_action', 'add:/locations'],
    ]);
    expect(two.location).toBe(`${link.path}?saved=1#q-locations-1`);
    const withTwo = await get(link.path, address);
    const removed = await post(link.path, address, [
      ...hiddenFields(withTwo.html),
      ['/locations/0/city', 'Berlin'],
      ['/locations/1/city', 'Köln'],
      ['_action', 'remove:/locations/0'],
    ]);
    expect(removed.status).toBe(303);
    const afterRemoval = await get(link.path, address);
    expect(afterRemoval.html).toContain('value="Köln"');
    expect(afterRemoval.html).not.toContain('value="Berlin"');

    // Errors next to their fields, by the API's rules: the same pointers as saveRiskAnswers reports.
    const wrong = await send(link, address, 'submit', [
      ['/employees', 'many'],
      ['/contact_email', 'not an address'],
      ['/had_incident', 'true'],
      ['/locations/0/city', 'Köln'],
    ]);
    expect(wrong.status).toBe(400);
    const alike = await createTender(scene.em(), scene.world);
    const api = await graphql(
      scene.gateway,
      broker,
      'mutation($id: ID!, $answers: JSONObject!) { saveRiskAnswers(tenderId: $id, answers: $answers, expectedVersion: 0, submit: true) { version } }',
      { id: alike.id, answers: { employees: 'many', contact_email: 'not an address', had_incident: true, locations: [{ city: 'Köln' }] } },
    );
    const pointers = (api.body.errors[0].extensions.problems as { pointer: string }[]).map((problem) => problem.pointer);
    expect(pointers).toEqual(['/contact_email', '/employees', '/incident_description', '/turnover', '/type_of_business']);
    expect(wrong.html).toContain('class="error-summary"');
    for (const id of ['q-employees', 'q-contact_5femail', 'q-incident_5fdescription', 'q-turnover', 'q-type_5fof_5fbusiness']) {
      expect(wrong.html, id).toContain(`href="#${id}"`);
      expect(wrong.html, id).toContain(`id="${id}-error"`);
    }
    expect(wrong.html).toMatch(
      /<input id="q-employees" name="\/employees" type="text" inputmode="decimal" value="many" aria-describedby="q-employees-error" aria-invalid="true">/,
    );

    // The whole of it: submitted, a read-only summary, the broker's webhook and mail, the answers over REST.
    const submitted = await send(link, address, 'submit', [
      ...COMPLETE,
      ['/locations/0/city', 'Köln'],
      ['/locations/0/building_value', '2 Mio.'],
    ]);
    expect(submitted.status).toBe(400); // "2 Mio." is no number: it reaches the rules as text
    const fixed = await send(link, address, 'submit', [
      ...COMPLETE,
      ['/locations/0/city', 'Köln'],
      // As a German page reads what is typed: points group the thousands, the comma is the decimal point.
      ['/locations/0/building_value', '2.000.000,5'],
    ]);
    expect([fixed.status, fixed.location]).toEqual([303, link.path]);
    const summary = await get(link.path, address);
    expect(summary.html).toContain('Vielen Dank, Ihre Antworten sind eingereicht');
    expect(summary.html).toContain('Phishing, 2024');
    expect(summary.html).not.toContain('<form');

    const rest = await fetch(`${scene.gateway.url}/api/v1/tenders/${tender.id}/risk-assessment`, {
      headers: { authorization: `Bearer ${broker}` },
    });
    expect(rest.status).toBe(200);
    const body = {
      payload: (await rest.json()) as { status: string; answers: Record<string, unknown>; sources: { source: string; by: string }[] },
    };
    expect(body.payload.status).toBe('SUBMITTED');
    expect(body.payload.answers).toEqual({
      turnover: { amount: 5_000_000, currency: 'EUR' },
      type_of_business: 'Software',
      employees: 42,
      mfa: true,
      had_incident: true,
      incident_description: 'Phishing, 2024',
      contact_email: 'it@acme.example',
      locations: [{ city: 'Köln', building_value: 2_000_000.5 }],
    });
    expect(new Set(body.payload.sources.map((source) => source.source))).toEqual(new Set(['CUSTOMER']));
    expect(body.payload.sources[0].by).toBe(`questionnaire:${link.id}`);

    const [event] = await waitFor(
      'the submission event',
      async () => receiver.received('/broker').length > 0 && receiver.received('/broker'),
    );
    expect(event.event).toMatchObject({ type: 'risk_assessment.submitted', data: { tender_id: tender.id } });
    const mail = await waitFor('the broker’s mail', async () =>
      smtp
        .accepted()
        .find((sent) => sent.subject === 'Risikoerfassung abgeschlossen: Cyber Protect' && to(sent) === 'person0@broker.example'),
    );
    expect(mail.text).not.toContain('Phishing');
  });

  it('refuses a form without its token, with another link’s, or from another site (403)', async () => {
    const { link } = await tenderWithLink();
    const other = (await tenderWithLink()).link;
    const address = newAddress();
    const page = await get(link.path, address);
    const hidden = hiddenFields(page.html);
    const withoutToken = hidden.filter(([name]) => name !== '_csrf');
    const otherToken = hiddenFields((await get(other.path, address)).html).find(([name]) => name === '_csrf')!;
    const fields: [string, string][] = [
      ['/type_of_business', 'Forged'],
      ['_action', 'save'],
    ];

    for (const [what, sent, headers] of [
      ['no token', [...withoutToken, ...fields], {}],
      ['another link’s token', [...withoutToken, otherToken, ...fields], {}],
      ['another origin', [...hidden, ...fields], { origin: 'https://evil.example' }],
      ['a cross-site request', [...hidden, ...fields], { 'sec-fetch-site': 'cross-site' }],
    ] as const) {
      const refused = await post(link.path, address, [...sent], headers);
      expect(refused.status, what).toBe(403);
      expect(refused.html, what).toContain('Anfrage abgelehnt');
    }
    // The page's own form, from the page itself, passes.
    const own = await post(link.path, address, [...hidden, ...fields], { origin: scene.gateway.url, 'sec-fetch-site': 'same-origin' });
    expect(own.status).toBe(303);
    // A link's page is no API: its token is no bearer token.
    const api = await fetch(`${scene.gateway.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${link.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ tenders(limit: 1) { count } }' }),
    });
    expect(api.status).toBe(401);
  });

  it('limits the requests per link and per address (429 pages)', async () => {
    const { link } = await tenderWithLink();
    await awayFromWindowEdge(60_000);
    // Per link: 25 a minute, whichever addresses ask.
    for (let at = 0; at < 25; at++) expect((await get(link.path, newAddress())).status).toBe(200);
    const limited = await get(link.path, newAddress());
    expect(limited.status).toBe(429);
    expect(limited.html).toContain('Zu viele Anfragen');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Per address: 40 a minute over every link, guessed ones included.
    const fresh = await tenderWithLink();
    await awayFromWindowEdge(60_000);
    const address = newAddress();
    for (let at = 0; at < 40; at++) await get(`/questionnaire/${randomBytes(32).toString('base64url')}`, address);
    expect((await get(fresh.link.path, address)).status).toBe(429);
    expect((await get(fresh.link.path, newAddress())).status).toBe(200);
  });

  it('answers 410 for a revoked or expired link, 404 for a guessed one, in the reader’s language', async () => {
    const address = newAddress();
    const revoked = await tenderWithLink();
    const broker = await scene.token(Role.BROKER);
    const hidden = hiddenFields((await get(revoked.link.path, address)).html);
    expect(
      (await gql(broker, 'mutation($id: ID!) { revokeQuestionnaireLink(id: $id) { revokedAt } }', { id: revoked.link.id }))
        .revokeQuestionnaireLink.revokedAt,
    ).toBeTruthy();
    const gone = await get(revoked.link.path, address);
    expect(gone.status).toBe(410);
    expect(gone.html).toContain('Der Link wurde zurückgezogen');
    // Replayed after its revocation, the form is refused too.
    expect((await post(revoked.link.path, address, [...hidden, ['_action', 'save']])).status).toBe(410);
    expect((await get(revoked.link.path, address, { 'accept-language': 'en' })).html).toContain('The link was withdrawn');

    const expiring = await tenderWithLink({ expiresInDays: 2 });
    expect(Date.parse(expiring.link.expiresAt) - now().getTime()).toBeGreaterThan(2 * 86_400_000 - 60_000);
    expect((await get(expiring.link.path, address)).status).toBe(200);
    ahead += 2 * 86_400_000 + 1000;
    try {
      const expired = await get(expiring.link.path, address);
      expect(expired.status).toBe(410);
      expect(expired.html).toContain('Der Link ist abgelaufen');
    } finally {
      ahead = 0;
    }

    // One character off a real token (the last one changed, whatever it was).
    for (const guessed of [
      randomBytes(32).toString('base64url'),
      'short',
      `${revoked.link.token.slice(0, 42)}${revoked.link.token.endsWith('A') ? 'B' : 'A'}`,
    ]) {
      const unknown = await get(`/questionnaire/${guessed}`, address);
      expect(unknown.status, guessed).toBe(404);
      expect(unknown.html).toContain('Seite nicht gefunden');
    }
    // A questionnaire link opens no other kind of page.
    expect((await get(`/underwriting/${expiring.link.token}`, address)).status).toBe(404);
  });

  it('shows nothing of another tender, and saves to its own tender only', async () => {
    const address = newAddress();
    const other = await createTender(scene.em(), scene.world, { broker: 1, product: 'Cyber Protect' });
    const secondBroker = await scene.token(Role.BROKER, 1);
    await gql(
      secondBroker,
      'mutation($id: ID!) { saveRiskAnswers(tenderId: $id, answers: { type_of_business: "Secret Other Business" }, expectedVersion: 0) { version } }',
      {
        id: other.id,
      },
    );
    const { tender, link } = await tenderWithLink();
    const page = await get(link.path, address);
    expect(page.html).not.toContain('Secret Other Business');
    expect(page.html).not.toContain('Second Brokers');
    // No field names another tender: whatever is sent, the link's own tender is saved.
    const sent = await send(link, address, 'save', [['/type_of_business', 'Own Business']]);
    expect(sent.status).toBe(303);
    const assessments = await scene.em().find('RiskAssessment', { tender: { $in: [tender.id, other.id] } });
    const byTender = new Map(
      (assessments as { tender: { id: string }; answers: Record<string, unknown> }[]).map((row) => [row.tender.id, row.answers]),
    );
    expect(byTender.get(tender.id)).toEqual({ type_of_business: 'Own Business' });
    expect(byTender.get(other.id)).toEqual({ type_of_business: 'Secret Other Business' });
  });

  it('refuses or escapes hostile input: huge, control characters, extra or repeated fields, HTML and script', async () => {
    const { link } = await tenderWithLink();
    const address = newAddress();
    const script = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'';
    const saved = await send(link, address, 'save', [['/type_of_business', script]]);
    expect(saved.status).toBe(303);
    const shown = await get(link.path, address);
    expect(shown.html).not.toContain('<script>alert');
    expect(shown.html).not.toContain('<img src=x');
    expect(shown.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&quot;&#39;');

    const huge = await send(link, address, 'save', [['/incident_description', 'x'.repeat(300_000)]]);
    expect(huge.status).toBe(413);
    expect(huge.html).toContain('Zu viele Angaben');
    const long = await send(link, address, 'save', [['/incident_description', 'x'.repeat(2001)]]);
    expect(long.status).toBe(400);
    expect(long.html).toContain('Höchstens 2000 Zeichen.');

    const control = await send(link, address, 'save', [
      ['/type_of_business', 'Soft\u0000ware'],
      ['/incident_description', 'line\u202Eone'],
    ]);
    expect(control.status).toBe(400);
    expect(control.html.match(/class="error-message" id="[^"]+">Enthält unzulässige Steuerzeichen\./g)).toHaveLength(2);
    const multiLine = await send(link, address, 'save', [['/incident_description', 'first\r\nsecond']]);
    expect(multiLine.status).toBe(303);

    for (const [what, fields] of [
      ['an extra field', [['/is_admin', 'true']]],
      [
        'a field twice',
        [
          ['/employees', '1'],
          ['/employees', '2'],
        ],
      ],
      ['an unknown action', [['_action', 'delete:/']]],
    ] as const) {
      const refused = await send(link, address, 'save', [...fields] as [string, string][]);
      expect(refused.status, what).toBe(400);
    }
    const notForm = await fetch(`${scene.gateway.url}${link.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify({ _action: 'save' }),
    });
    expect(notForm.status).toBe(400);
    expect((await fetch(`${scene.gateway.url}${link.path}`, { method: 'DELETE', headers: { 'x-forwarded-for': address } })).status).toBe(
      405,
    );
  });

  it('never writes the token in the request log: <credential> in its place', async () => {
    const { link } = await tenderWithLink();
    const address = newAddress();
    await send(link, address, 'save', [['/type_of_business', 'Logged?']]);
    await get(`${link.path}?lang=en`, address);
    await waitFor('the log lines', async () => logLines.some((line) => line.includes('/questionnaire/<credential>?lang=en')));
    const log = logLines.join('');
    expect(log).toContain('"url":"/questionnaire/<credential>"');
    expect(log).not.toContain(link.token);
  });
});

describe('questionnaire links (GraphQL)', () => {
  it("are made by the tender's broker and internal users, for at most 30 days; others are refused", async () => {
    const tender = await createTender(scene.em(), scene.world);
    const made = await newLink(tender, { email: 'kunde@acme.example', language: 'en' });
    expect(made).toMatchObject({ email: 'kunde@acme.example', language: 'en' });
    expect(Math.round((Date.parse(made.expiresAt) - Date.now()) / 86_400_000)).toBe(14);
    const internal = await newLink(tender, { expiresInDays: 30 }, await scene.token(Role.INTERNAL));
    expect(Math.round((Date.parse(internal.expiresAt) - Date.now()) / 86_400_000)).toBe(30);

    const refused = async (token: string, input: Record<string, unknown>) => {
      const { body } = await graphql(scene.gateway, token, CREATE, { input: { tenderId: tender.id, ...input } });
      return [body.errors?.[0]?.extensions?.code, body.errors?.[0]?.extensions?.errors?.map((e: { parameter: string }) => e.parameter)];
    };
    const broker = await scene.token(Role.BROKER);
    expect(await refused(await scene.token(Role.BROKER, 1), {})).toEqual(['NOT_FOUND', undefined]);
    expect((await refused(await scene.token(Role.INSURER), {}))[0]).toBe('FORBIDDEN');
    expect((await refused(await scene.token(Role.ANALYST), {}))[0]).toBe('FORBIDDEN');
    expect(await refused(broker, { expiresInDays: 31 })).toEqual(['BAD_USER_INPUT', ['input.expiresInDays']]);
    expect(await refused(broker, { expiresInDays: 0 })).toEqual(['BAD_USER_INPUT', ['input.expiresInDays']]);
    expect(await refused(broker, { email: 'not an address' })).toEqual(['BAD_USER_INPUT', ['input.email']]);
    expect(await refused(broker, { language: 'fr' })).toEqual(['BAD_USER_INPUT', ['input.language']]);

    // The list: the tender's broker and internal users; another broker finds no tender, another's link no link.
    const listed = (await gql(broker, 'query($id: ID!) { questionnaireLinks(tenderId: $id) { id url email } }', { id: tender.id }))
      .questionnaireLinks;
    expect(listed.map((link: { id: string }) => link.id)).toEqual([internal.id, made.id]);
    expect(listed[1].url).toBe(made.url);
    const other = await scene.token(Role.BROKER, 1);
    const { body } = await graphql(scene.gateway, other, 'mutation($id: ID!) { revokeQuestionnaireLink(id: $id) { id } }', { id: made.id });
    expect(body.errors[0].extensions.code).toBe('NOT_FOUND');
    const closed = await createTender(scene.em(), scene.world, { status: TenderStatus.CLOSED });
    expect((await graphql(scene.gateway, broker, CREATE, { input: { tenderId: closed.id } })).body.errors[0].extensions.code).toBe(
      'CONFLICT',
    );
  });

  it('mail the customer a link whose token is never stored; a link revoked before sending is not mailed', async () => {
    const tender = await createTender(scene.em(), scene.world);
    const link = await newLink(tender, { email: 'einkauf@acme.example', language: 'de' });
    const mail = await waitFor('the questionnaire mail', async () => smtp.accepted().find((sent) => to(sent) === 'einkauf@acme.example'));
    expect(mail.subject).toBe('Ihr Risikofragebogen: Cyber Protect');
    expect(mail.text).toContain('Guten Tag Acme GmbH,');
    expect(mail.text).toContain('First Brokers bittet Sie');
    expect(mail.text).toContain(link.url);
    expect(mail.html).toContain(`href="${link.url}"`);
    // At rest: the mail names the link, the link keeps a hash; the token is nowhere.
    const rows = JSON.stringify([await scene.em().find(MailMessage, {}), await scene.em().find(AccessLink, {})]);
    expect(rows).toContain(link.id);
    expect(rows).not.toContain(link.token);
    expect((await get(new URL(link.url).pathname, newAddress())).status).toBe(200);

    // A mail whose link was revoked before it went out fails rather than lead to a 410 page.
    const broker = await scene.token(Role.BROKER);
    const revoked = await newLink(tender);
    await gql(broker, 'mutation($id: ID!) { revokeQuestionnaireLink(id: $id) { id } }', { id: revoked.id });
    const em = scene.em();
    em.create(MailMessage, {
      messageId: '<revoked-link@tender-exchange.test>',
      recipientAddress: 'late@acme.example',
      recipientName: 'Acme GmbH',
      language: 'de',
      template: 'questionnaire-link',
      data: { tenderId: tender.id, product: 'Cyber Protect', linkId: revoked.id, origin: scene.gateway.url },
      nextAttemptAt: new Date(),
    });
    await em.flush();
    const failed = await waitFor('the revoked link’s mail', async () => {
      const row = await scene.em().findOne(MailMessage, { recipientAddress: 'late@acme.example' });
      return row && row.status !== MailStatus.PENDING ? row : undefined;
    });
    expect([failed.status, failed.lastError]).toEqual([MailStatus.FAILED, 'the link was revoked before the mail was sent']);
    expect(smtp.accepted().some((sent) => to(sent) === 'late@acme.example')).toBe(false);
  });
});

const to = (mail: ParsedMail) => (Array.isArray(mail.to) ? mail.to[0] : mail.to)!.value[0].address;
