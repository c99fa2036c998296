import { beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { AccessLink, LinkKind } from '../src/links';
import { QuoteRequest } from '../src/quotes';
import { TenderStatus, type Tender } from '../src/tenders';
import { addDocument, PDF } from './helpers/documents';
import { createTender } from './helpers/fixtures';
import { createClient, graphql, requestToken, graphqlData } from './helpers/gateway';
import { withGateway } from './helpers/scene';
import { waitFor } from './helpers/simulator';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink';
import { capturedLogger } from './helpers/captured-log';

/** Issue 40 part 4 and 5: the underwriter's quote page, over plain HTTP as a browser without JavaScript sends it. */

/** Every log line the gateway writes. */
const { logger, lines: logLines } = capturedLogger();

const scene = withGateway({ per: 'file', world: true, logger, start: 'manual' });
let smtp: SmtpSink;
let broker: string;
let internal: string;
let manualId: string;
let manualToken: string;

beforeAll(async () => {
  smtp = scene.closes(await startSmtpSink());
  await scene.start({
    SMTP_URL: smtp.url,
    MAIL_POLL_INTERVAL_MS: '20',
    MAIL_RETRY_SCHEDULE: '100ms,100ms,100ms',
    MAIL_TIMEOUT_MS: '1000',
    MAIL_FROM: 'Tender Exchange <gateway@tender-exchange.test>',
    TRUST_PROXY: 'loopback',
    PAGE_RATE_LIMIT_PER_MINUTE: '60',
    PAGE_LINK_RATE_LIMIT_PER_MINUTE: '60',
  });
  broker = await scene.token(Role.BROKER);
  internal = await scene.token(Role.INTERNAL);
  manualId = (await gql(internal, 'mutation { createInsurer(input: { name: "Paper <b>Insurance</b>", integration: MANUAL }) { id } }'))
    .createInsurer.id;
  await gql(internal, 'mutation($id: ID!, $c: [InsurerContactInput!]!) { setInsurerContacts(insurerId: $id, contacts: $c) { id } }', {
    id: manualId,
    c: [{ email: 'underwriter@paper.test', name: 'Ulla Underwriter', language: 'de' }],
  });
  manualToken = await requestToken(scene.gateway, await createClient(scene.gateway, Role.INSURER, { insurerId: manualId }));
});

const gql = (token: string, query: string, variables?: Record<string, unknown>) => graphqlData(scene.gateway, token, query, variables);

let addresses = 0;
/** A client address of the test's own (X-Forwarded-For, trusted from loopback): each test has its own rate budget. */
const newAddress = () => `10.1.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`;

const LIMITS = [
  { insuranceSum: 1_000_000, deductible: 10_000 },
  { insuranceSum: 2_000_000, deductible: 25_000 },
];

/** A tender of broker 0 asked of the MANUAL insurer; its request and the page's link (renewed: its URL is answered). */
async function requested(): Promise<{ tender: Tender; requestId: string; path: string; token: string }> {
  const tender = await createTender(scene.em(), scene.world);
  const [request] = (
    await gql(broker, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id status } }', {
      input: {
        tenderId: tender.id,
        insurerIds: [manualId],
        limits: LIMITS,
        riskInformation: { typeOfBusiness: 'Software <script>alert(1)</script>', turnover: { amount: 5_000_000, currency: 'EUR' } },
      },
    })
  ).requestQuotes;
  const renewed = (
    await gql(internal, 'mutation($id: ID!) { renewUnderwritingLink(quoteRequestId: $id) { url expiresAt } }', { id: request.id })
  ).renewUnderwritingLink;
  const url = new URL(renewed.url);
  return { tender, requestId: request.id, path: url.pathname, token: url.pathname.split('/').pop()! };
}

interface Page {
  status: number;
  html: string;
  location: string | null;
}

async function get(path: string, address: string, headers: Record<string, string> = {}): Promise<Page> {
  const response = await fetch(`${scene.gateway.url}${path}`, { redirect: 'manual', headers: { 'x-forwarded-for': address, ...headers } });
  return { status: response.status, html: await response.text(), location: response.headers.get('location') };
}

async function post(path: string, address: string, fields: [string, string][]): Promise<Page> {
  const response = await fetch(`${scene.gateway.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, html: await response.text(), location: response.headers.get('location') };
}

const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)![1];

/** The quote form as a browser sends it: two rows (one per requested limit), one subjectivity each. */
function quoteFields(
  csrf: string,
  rows: { premium: string; subjectivity?: string; dueAt?: string }[],
  extra: [string, string][] = [],
): [string, string][] {
  return [
    ['_csrf', csrf],
    ['optionCount', String(rows.length)],
    ...rows.flatMap((row, index): [string, string][] => [
      [`options[${index}].subjectivityCount`, '1'],
      [`options[${index}].insuranceSum`, String(LIMITS[index].insuranceSum)],
      [`options[${index}].deductible`, String(LIMITS[index].deductible)],
      [`options[${index}].premium`, row.premium],
      [`options[${index}].subjectivities[0].stage`, 'PRE_BIND'],
      [`options[${index}].subjectivities[0].text`, row.subjectivity ?? ''],
      [`options[${index}].subjectivities[0].dueAt`, row.dueAt ?? ''],
    ]),
    ['currency', 'EUR'],
    ['validUntil', ''],
    ...extra,
    ['_action', 'quote'],
  ];
}

const PROPOSAL = `query($id: ID!) { quoteRequests(tenderId: $id) { id status source answeredBy options { premium insuranceSum subjectivities { text stage } } } }`;

describe("the underwriter's quote page", () => {
  it('is in the invitation mail of a MANUAL insurer, shows what it is asked, and takes a quote the broker sees', async () => {
    const tender = await createTender(scene.em(), scene.world);
    const [request] = (
      await gql(broker, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id status } }', {
        input: { tenderId: tender.id, insurerIds: [manualId], limits: LIMITS, riskInformation: { typeOfBusiness: 'Software' } },
      })
    ).requestQuotes;
    expect(request.status).toBe('AWAITING_MANUAL');
    // The link was made in the request's transaction; the mail's row names it, never its token.
    const [link] = await scene.em().find(AccessLink, { quoteRequestId: request.id });
    expect(link).toMatchObject({ kind: LinkKind.UNDERWRITING, tenderId: tender.id });
    await waitFor('the invitation', async () =>
      smtp.accepted().some((mail) => mail.text?.includes(tender.product) && mail.text.includes('/underwriting/')),
    );
    const mail = smtp.accepted().find((candidate) => candidate.text?.includes('/underwriting/'))!;
    expect(mail.to).toMatchObject({ value: [{ address: 'underwriter@paper.test' }] });
    const url = /https?:\/\/\S+\/underwriting\/[\w-]{43}/.exec(mail.text!)![0];
    expect(mail.html).toContain(url);
    const rows = (await scene.em().getConnection().execute('select data from mail_message')) as { data: unknown }[];
    const token = url.split('/').pop()!;
    expect(JSON.stringify(rows)).not.toContain(token);

    const address = newAddress();
    const page = await get(new URL(url).pathname, address, { 'accept-language': 'de' });
    expect(page.status).toBe(200);
    expect(page.html).toContain('Angebotsanfrage');
    expect(page.html).toContain(tender.product);
    expect(page.html).toContain('1.000.000,00');
    expect(page.html).toContain('Software');
    const sent = await post(
      new URL(url).pathname,
      address,
      quoteFields(csrfOf(page.html), [{ premium: '2.272,50', subjectivity: 'MFA für Fernzugriff' }, { premium: '' }]),
    );
    expect(sent.status, sent.html).toBe(303);
    const proposal = (await gql(broker, PROPOSAL, { id: tender.id })).quoteRequests;
    expect(proposal).toEqual([
      {
        id: request.id,
        status: 'QUOTED',
        source: 'MANUAL',
        answeredBy: `link:${link.id}`,
        options: [{ premium: 2272.5, insuranceSum: 1_000_000, subjectivities: [{ text: 'MFA für Fernzugriff', stage: 'PRE_BIND' }] }],
      },
    ]);
    // After the answer: a read-only summary of what was sent, no quote form.
    const after = await get(sent.location!, address, { 'accept-language': 'de' });
    expect(after.status).toBe(200);
    expect(after.html).toContain('Ihr Angebot ist beim Makler eingegangen.');
    expect(after.html).toContain('2.272,50');
    expect(after.html).not.toContain('name="optionCount"');
    // A second answer is the domain's CONFLICT: a 409 page, nothing stored.
    const again = await post(new URL(url).pathname, address, quoteFields(csrfOf(after.html), [{ premium: '1' }]));
    expect(again.status).toBe(409);
  });

  it("shows the domain's problems next to their fields, with an error summary, and stores nothing", async () => {
    const { tender, path } = await requested();
    const address = newAddress();
    const page = await get(`${path}?lang=en`, address);
    const refused = await post(`${path}?lang=en`, address, quoteFields(csrfOf(page.html), [{ premium: '0' }, { premium: 'abc' }]));
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('id="error-summary"');
    expect(refused.html).toContain('href="#f-options-1-premium"');
    expect(refused.html).toMatch(/id="f-options-1-premium-error">Please enter a number\./);
    // What was typed stays in the form.
    expect(refused.html).toContain('value="abc"');
    const domain = await post(`${path}?lang=en`, address, quoteFields(csrfOf(page.html), [{ premium: '0' }]));
    expect(domain.status).toBe(400);
    expect(domain.html).toContain('href="#f-options-0-premium"');
    expect(domain.html).toContain('At least 0.01, at most');
    expect(domain.html).toMatch(/aria-describedby="f-options-0-premium-hint f-options-0-premium-error" aria-invalid="true"/);
    const proposal = (await gql(broker, PROPOSAL, { id: tender.id })).quoteRequests;
    expect(proposal[0]).toMatchObject({ status: 'AWAITING_MANUAL', options: [] });
  });

  it("takes a subjectivity's due date as a day, the end of it in Berlin; a date it cannot read is shown at its field", async () => {
    const { tender, path } = await requested();
    const address = newAddress();
    const page = await get(path, address);
    expect(page.html).toContain('name="options[0].subjectivities[0].dueAt" type="date"');
    const wrong = await post(
      path,
      address,
      quoteFields(csrfOf(page.html), [{ premium: '100', subjectivity: 'Sprinkler', dueAt: '31.03.2027' }]),
    );
    expect(wrong.status).toBe(400);
    expect(wrong.html).toContain('href="#f-options-0-subjectivities-0-dueAt"');
    expect((await gql(broker, PROPOSAL, { id: tender.id })).quoteRequests[0]).toMatchObject({ status: 'AWAITING_MANUAL' });
    const sent = await post(
      path,
      address,
      quoteFields(csrfOf(page.html), [{ premium: '100', subjectivity: 'Sprinkler', dueAt: '2027-03-31' }]),
    );
    expect(sent.status, sent.html).toBe(303);
    const [subjectivity] = (await gql(broker, 'query($id: ID!) { tenderSubjectivities(tenderId: $id) { text dueAt } }', { id: tender.id }))
      .tenderSubjectivities;
    // 31 March 2027 is summer time in Berlin (UTC+2): its last millisecond is 21:59:59.999 UTC.
    expect(subjectivity).toEqual({ text: 'Sprinkler', dueAt: '2027-03-31T21:59:59.999Z' });
  });

  it('adds an option row without JavaScript, declines with a reason, and asks a question the broker reads', async () => {
    const { tender, path } = await requested();
    const address = newAddress();
    const page = await get(path, address);
    const csrf = csrfOf(page.html);
    const added = await post(path, address, [...quoteFields(csrf, [{ premium: '100' }]).slice(0, -1), ['_action', 'add-option']]);
    expect(added.status).toBe(200);
    expect(added.html).toContain('name="options[1].premium"');
    expect(added.html).toContain('value="100"');
    const asked = await post(path, address, [
      ['_csrf', csrf],
      ['text', 'Gibt es ein Backup-Konzept?'],
      ['_action', 'question'],
    ]);
    expect(asked.status).toBe(303);
    const messages = (
      await gql(broker, 'query($t: ID!, $i: ID!) { tenderMessages(tenderId: $t, insurerId: $i) { text requestsInformation authorRole } }', {
        t: tender.id,
        i: manualId,
      })
    ).tenderMessages;
    expect(messages).toEqual([{ text: 'Gibt es ein Backup-Konzept?', requestsInformation: true, authorRole: 'INSURER' }]);
    expect((await get(path, address)).html).toContain('Gibt es ein Backup-Konzept?');
    const declined = await post(path, address, [
      ['_csrf', csrf],
      ['decision', 'DECLINED'],
      ['reason', 'Außerhalb unserer Zeichnungsrichtlinien'],
      ['_action', 'decline'],
    ]);
    expect(declined.status).toBe(303);
    const proposal = (await gql(broker, 'query($id: ID!) { quoteRequests(tenderId: $id) { status underwriterReason } }', { id: tender.id }))
      .quoteRequests;
    expect(proposal).toEqual([{ status: 'DECLINED', underwriterReason: 'Außerhalb unserer Zeichnungsrichtlinien' }]);
    expect((await get(path, address)).html).toContain('Ihre Absage ist beim Makler eingegangen.');
  });

  it("shows the documents and the thread its insurer may see, never another insurer's", async () => {
    const otherId = (await gql(internal, 'mutation { createInsurer(input: { name: "Other Insurance", integration: MANUAL }) { id } }'))
      .createInsurer.id as string;
    const otherToken = await requestToken(scene.gateway, await createClient(scene.gateway, Role.INSURER, { insurerId: otherId }));
    const tender = await createTender(scene.em(), scene.world);
    const requests = (
      await gql(broker, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id insurer { id } } }', {
        input: { tenderId: tender.id, insurerIds: [manualId, otherId], limits: LIMITS, riskInformation: { typeOfBusiness: 'Software' } },
      })
    ).requestQuotes as { id: string; insurer: { id: string } }[];
    const mine = requests.find((request) => request.insurer.id === manualId)!;
    const theirs = requests.find((request) => request.insurer.id === otherId)!;
    await addDocument(scene.gateway, broker, { tenderId: tender.id, kind: 'RISK', filename: 'risk-survey.pdf' });
    await addDocument(scene.gateway, otherToken, {
      tenderId: tender.id,
      kind: 'QUOTE',
      filename: 'other-quote.pdf',
      quoteRequestId: theirs.id,
    });
    const post = 'mutation($input: PostTenderMessageInput!) { postTenderMessage(input: $input) { id } }';
    await gql(broker, post, { input: { tenderId: tender.id, insurerId: manualId, text: 'Backups are kept offline.' } });
    await gql(otherToken, post, { input: { tenderId: tender.id, insurerId: otherId, text: 'A secret of Other Insurance' } });
    const url = (await gql(internal, 'mutation($id: ID!) { renewUnderwritingLink(quoteRequestId: $id) { url } }', { id: mine.id }))
      .renewUnderwritingLink.url as string;
    const page = await get(new URL(url).pathname, newAddress(), { 'accept-language': 'en' });
    expect(page.status).toBe(200);
    expect(page.html).toContain('risk-survey.pdf');
    expect(page.html).toContain('Backups are kept offline.');
    expect(page.html).not.toContain('other-quote.pdf');
    expect(page.html).not.toContain('A secret of Other Insurance');
    expect(page.html).not.toContain(theirs.id);
    // The document's link opens it: a link of the insurer's own, checked again when it is used.
    const href = /<a href="([^"]+)" download>risk-survey\.pdf<\/a>/.exec(page.html)![1].replace(/&amp;/g, '&');
    const download = await fetch(href);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(PDF);
  });

  it('refers first and quotes after: a referral keeps the form for the final answer', async () => {
    const { tender, path } = await requested();
    const address = newAddress();
    const page = await get(`${path}?lang=en`, address);
    const csrf = csrfOf(page.html);
    const referred = await post(`${path}?lang=en`, address, [
      ['_csrf', csrf],
      ['decision', 'REFERRED'],
      ['reason', 'Needs our cyber team'],
      ['_action', 'decline'],
    ]);
    expect(referred.status).toBe(303);
    const between = await get(referred.location!, address);
    expect(between.html).toContain('The broker has received your referral.');
    expect(between.html).toContain('Needs our cyber team');
    expect(between.html).toContain('name="optionCount"');
    expect((await post(`${path}?lang=en`, address, quoteFields(csrf, [{ premium: '1,800.00' }]))).status).toBe(303);
    const proposal = (await gql(broker, PROPOSAL, { id: tender.id })).quoteRequests;
    expect(proposal[0]).toMatchObject({ status: 'QUOTED', options: [{ premium: 1800, insuranceSum: 1_000_000 }] });
  });

  it('refuses a form without its CSRF token, from another origin, or with fields it never shows (another request id)', async () => {
    const first = await requested();
    const second = await requested();
    const address = newAddress();
    const page = await get(first.path, address);
    const csrf = csrfOf(page.html);
    expect((await post(first.path, address, quoteFields('forged', [{ premium: '100' }]))).status).toBe(403);
    // The first link's form token does not fit the second link's page.
    expect((await post(second.path, address, quoteFields(csrf, [{ premium: '100' }]))).status).toBe(403);
    const other = await fetch(`${scene.gateway.url}${first.path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address, origin: 'https://evil.example' },
      body: new URLSearchParams(quoteFields(csrf, [{ premium: '100' }])).toString(),
    });
    expect(other.status).toBe(403);
    const smuggled = await post(first.path, address, quoteFields(csrf, [{ premium: '100' }], [['quoteRequestId', second.requestId]]));
    expect(smuggled.status).toBe(400);
    const requests = await scene.em().find(QuoteRequest, { id: { $in: [first.requestId, second.requestId] } });
    expect(requests.map((request) => request.status)).toEqual(['AWAITING_MANUAL', 'AWAITING_MANUAL']);
  });

  it('refuses or escapes hostile input: huge fields, control characters, HTML in every field', async () => {
    const { tender, path } = await requested();
    const address = newAddress();
    const page = await get(path, address);
    // The risk information and the insurer's name carry HTML: shown as text.
    expect(page.html).toContain('Software &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.html).toContain('Paper &lt;b&gt;Insurance&lt;/b&gt;');
    expect(page.html).not.toContain('<script>alert(1)');
    const csrf = csrfOf(page.html);
    const script = '"><script>alert(1)</script>';
    const hostile = await post(path, address, [
      ['_csrf', csrf],
      ['optionCount', '1'],
      ['options[0].subjectivityCount', '1'],
      ['options[0].insuranceSum', script],
      ['options[0].deductible', script],
      ['options[0].premium', script],
      ['options[0].subjectivities[0].stage', 'PRE_BIND'],
      ['options[0].subjectivities[0].text', script],
      ['currency', script],
      ['validUntil', script],
      ['_action', 'quote'],
    ]);
    expect(hostile.status).toBe(400);
    expect(hostile.html).not.toContain('<script>alert(1)');
    expect(hostile.html).toContain('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    const controls = await post(path, address, quoteFields(csrf, [{ premium: '100', subjectivity: 'MFA\u0007 required' }]));
    expect(controls.status).toBe(400);
    expect(controls.html).toContain('href="#f-options-0-subjectivities-0-text"');
    const long = await post(path, address, quoteFields(csrf, [{ premium: '100', subjectivity: 'x'.repeat(20_000) }]));
    expect(long.status).toBe(400);
    expect(long.html).toContain('href="#f-options-0-subjectivities-0-text"');
    const huge = await post(path, address, quoteFields(csrf, [{ premium: '100', subjectivity: 'x'.repeat(300_000) }]));
    expect(huge.status).toBe(413);
    const question = await post(path, address, [
      ['_csrf', csrf],
      ['text', `<img src=x onerror=alert(1)>\u0000`],
      ['_action', 'question'],
    ]);
    expect(question.status).toBe(400);
    expect(question.html).not.toContain('<img src=x');
    expect(
      (
        await post(path, address, [
          ['_csrf', csrf],
          ['optionCount', '999'],
          ['_action', 'quote'],
        ])
      ).status,
    ).toBe(400);
    const stage = quoteFields(csrf, [{ premium: '100' }]).map(([name, value]): [string, string] => [
      name,
      name.endsWith('.stage') ? 'NOW' : value,
    ]);
    expect((await post(path, address, stage)).status).toBe(400);
    const proposal = (await gql(broker, PROPOSAL, { id: tender.id })).quoteRequests;
    expect(proposal[0]).toMatchObject({ status: 'AWAITING_MANUAL', options: [] });
  });

  it("is gone (410) once the tender is CLOSED, and once its link is renewed or revoked; another kind's token opens nothing", async () => {
    const closing = await requested();
    const address = newAddress();
    expect((await get(closing.path, address)).status).toBe(200);
    await gql(broker, 'mutation($id: ID!) { closeTender(tenderId: $id, reason: "No longer needed") { status } }', {
      id: closing.tender.id,
    });
    const closed = await get(closing.path, address);
    expect(closed.status).toBe(410);
    expect(closed.html).not.toContain(closing.tender.product);
    expect(closed.html).not.toContain('Software');
    await expect(
      graphql(scene.gateway, internal, 'mutation($id: ID!) { renewUnderwritingLink(quoteRequestId: $id) { url } }', {
        id: closing.requestId,
      }),
    ).resolves.toMatchObject({ body: { errors: [{ extensions: { code: 'CONFLICT' } }] } });

    const renewing = await requested();
    // The insurer's own client renews it: the earlier link ends at once.
    const fresh = (
      await gql(manualToken, 'mutation($id: ID!) { renewUnderwritingLink(quoteRequestId: $id) { url } }', { id: renewing.requestId })
    ).renewUnderwritingLink;
    expect((await get(renewing.path, address)).status).toBe(410);
    expect((await get(new URL(fresh.url).pathname, address)).status).toBe(200);
    const questionnaire = await get(`/questionnaire/${new URL(fresh.url).pathname.split('/').pop()}`, address);
    expect(questionnaire.status).toBe(404);
    // Another insurer's client cannot renew (nor see) this request.
    const stranger = await scene.token(Role.INSURER);
    const refused = await graphql(scene.gateway, stranger, 'mutation($id: ID!) { renewUnderwritingLink(quoteRequestId: $id) { url } }', {
      id: renewing.requestId,
    });
    expect(refused.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    const closedStatus = (await scene.em().findOneOrFail(QuoteRequest, { id: closing.requestId }, { populate: ['tender'] })).tender.status;
    expect(closedStatus).toBe(TenderStatus.CLOSED);
  });

  describe('subjectivities of its quote', () => {
    const SUBMIT = 'mutation($input: SubmitManualQuoteInput!) { submitManualQuote(input: $input) { id status } }';
    const SUBJECTIVITIES = `query($id: ID!) { tenderSubjectivities(tenderId: $id) {
      id status history { kind actor actorRole text } } }`;
    const RESPOND = 'mutation($input: RespondToSubjectivityInput!) { respondToSubjectivity(input: $input) { id status } }';
    /** 17:00 in Berlin (CET). */
    const DUE = '2030-03-15T16:00:00.000Z';

    /** A request quoted by the MANUAL insurer with a pre-bind subjectivity due on DUE and a post-bind one without a date. */
    async function quoted() {
      const asked = await requested();
      await gql(manualToken, SUBMIT, {
        input: {
          quoteRequestId: asked.requestId,
          decision: 'QUOTED',
          options: [
            {
              ...LIMITS[0],
              premium: 2272.5,
              subjectivities: [
                { stage: 'PRE_BIND', text: 'Unterschriebener Antrag', dueAt: DUE },
                { stage: 'POST_BIND', text: 'Sicherheitsfragebogen' },
              ],
            },
          ],
        },
      });
      const ids = (await subjectivitiesOf(asked.tender.id)).map((subjectivity) => subjectivity.id);
      expect(ids).toHaveLength(2);
      return { ...asked, ids };
    }

    /** The tender's subjectivities as its broker reads them through GraphQL. */
    async function subjectivitiesOf(tenderId: string) {
      return (await gql(broker, SUBJECTIVITIES, { id: tenderId })).tenderSubjectivities as {
        id: string;
        status: string;
        history: { kind: string; actor: string | null; actorRole: string; text: string | null }[];
      }[];
    }

    const statusOf = async (tenderId: string, id: string) =>
      (await subjectivitiesOf(tenderId)).find((subjectivity) => subjectivity.id === id)!.status;

    /** The decision form of one subjectivity as a browser sends it. */
    const decision = (csrf: string, subjectivityId: string, fields: [string, string][]): [string, string][] => [
      ['_csrf', csrf],
      ['subjectivityId', subjectivityId],
      ...fields,
      ['_action', 'decide'],
    ];

    it("shows each subjectivity's stage, status, due date in Berlin time and the broker's latest response with its documents", async () => {
      const { tender, path, ids } = await quoted();
      const evidence = await addDocument(scene.gateway, broker, { tenderId: tender.id, kind: 'RISK', filename: 'antrag-signiert.pdf' });
      await gql(broker, RESPOND, {
        input: { subjectivityId: ids[0], text: 'Vom Geschäftsführer <b>unterschrieben</b>', documentIds: [evidence] },
      });
      const address = newAddress();
      const page = await get(path, address, { 'accept-language': 'de' });
      expect(page.status).toBe(200);
      expect(page.html).toContain('Bedingungen Ihres Angebots');
      expect(page.html).toContain('Unterschriebener Antrag');
      expect(page.html).toContain('Vor Deckungsbeginn');
      expect(page.html).toContain('Beantwortet – wartet auf Ihre Entscheidung');
      expect(page.html).toContain('15. März 2030 um 17:00');
      expect(page.html).toContain('Vom Geschäftsführer &lt;b&gt;unterschrieben&lt;/b&gt;');
      expect(page.html).toMatch(/<a href="[^"]+" download>antrag-signiert\.pdf<\/a>/);
      expect(page.html).toMatch(/Makler · [^<]+ · Antwort/);
      // The post-bind one: open, no date, and nothing to reject yet (a rejection answers a response).
      expect(page.html).toContain('Sicherheitsfragebogen');
      expect(page.html).toContain('Offen – wartet auf die Antwort des Maklers');
      expect(page.html).toContain('Ohne Frist');
      const forms = page.html.split('name="subjectivityId"').slice(1);
      expect(forms).toHaveLength(2);
      expect(forms[0]).toContain(`value="${ids[0]}"`);
      expect(forms[0]).toMatch(/value="ACCEPT"[\s\S]*value="REJECT"[\s\S]*value="WAIVE"/);
      expect(forms[1]).not.toContain('value="REJECT"');
      // Labels tied to their inputs: the reason's label names the textarea's id.
      expect(page.html).toContain(`<label for="f-subjectivities-${ids[0]}-reason">Begründung der Entscheidung</label>`);
      const english = await get(`${path}?lang=en`, address);
      expect(english.html).toContain('15 March 2030 at 17:00');
      expect(english.html).toContain('Responded – awaiting your decision');
      expect(english.html).toContain('The broker&#39;s latest response');
    });

    it("takes an ACCEPT the broker then sees over GraphQL and REST, with the decision in the tender's history", async () => {
      const { tender, requestId, path, ids } = await quoted();
      await gql(broker, RESPOND, { input: { subjectivityId: ids[0], text: 'Anbei' } });
      const address = newAddress();
      const page = await get(path, address);
      const sent = await post(
        path,
        address,
        decision(csrfOf(page.html), ids[0], [
          ['decision', 'ACCEPT'],
          ['reason', ''],
        ]),
      );
      expect(sent.status, sent.html).toBe(303);
      expect(sent.location).toBe(`${path}?sent=decision#s-${ids[0]}`);

      const [accepted] = await subjectivitiesOf(tender.id);
      expect(accepted.status).toBe('ACCEPTED');
      const links = (await scene.em().find(AccessLink, { quoteRequestId: requestId })).map((link) => `link:${link.id}`);
      expect(accepted.history.map((step) => step.kind)).toEqual(['RESPONDED', 'ACCEPTED']);
      expect(accepted.history[1]).toMatchObject({ actorRole: 'INSURER', text: null });
      expect(links).toContain(accepted.history[1].actor);
      const rest = await fetch(`${scene.gateway.url}/api/v1/tenders/${tender.id}/subjectivities`, {
        headers: { authorization: `Bearer ${broker}` },
      });
      expect(rest.status).toBe(200);
      const { payload } = (await rest.json()) as { payload: { _id: string; status: string }[] };
      expect(payload.map((subjectivity) => [subjectivity._id, subjectivity.status])).toEqual([
        [ids[0], 'ACCEPTED'],
        [ids[1], 'OPEN'],
      ]);
      const history = (
        await gql(broker, 'query($id: ID!) { tender(id: $id) { history { step actor actorRole subjectivityId } } }', { id: tender.id })
      ).tender.history as { step: string | null; actor: string; actorRole: string; subjectivityId: string | null }[];
      expect(history.filter((entry) => entry.step === 'SUBJECTIVITY_ACCEPTED')).toEqual([
        { step: 'SUBJECTIVITY_ACCEPTED', actor: accepted.history[1].actor, actorRole: 'INSURER', subjectivityId: ids[0] },
      ]);

      // Post/Redirect/Get: the page says so and shows the new status, with no form left for it.
      const after = await get(sent.location!, address);
      expect(after.html).toContain('Ihre Entscheidung ist gesendet.');
      expect(after.html).toMatch(/<strong>Angenommen<\/strong>/);
      expect(after.html).toMatch(/Sie · [^<]+ · Angenommen/);
      expect(after.html).not.toContain(`name="subjectivityId" value="${ids[0]}"`);
      expect(after.html).toContain(`name="subjectivityId" value="${ids[1]}"`);
    });

    it('takes a REJECT with a reason, which asks the broker for another response', async () => {
      const { tender, path, ids } = await quoted();
      await gql(broker, RESPOND, { input: { subjectivityId: ids[0], text: 'Anbei' } });
      const address = newAddress();
      const page = await get(`${path}?lang=en`, address);
      const sent = await post(
        `${path}?lang=en`,
        address,
        decision(csrfOf(page.html), ids[0], [
          ['decision', 'REJECT'],
          ['reason', 'Seite 2 fehlt'],
        ]),
      );
      expect(sent.status, sent.html).toBe(303);
      const [rejected] = await subjectivitiesOf(tender.id);
      expect(rejected.status).toBe('REJECTED');
      expect(rejected.history.at(-1)).toMatchObject({ kind: 'REJECTED', actorRole: 'INSURER', text: 'Seite 2 fehlt' });
      const after = await get(sent.location!, address);
      expect(after.html).toContain('Rejected – awaiting the broker&#39;s new response');
      expect(after.html).toContain('Seite 2 fehlt');
      // Open again: the broker responds once more.
      expect((await gql(broker, RESPOND, { input: { subjectivityId: ids[0], text: 'Beide Seiten' } })).respondToSubjectivity.status).toBe(
        'RESPONDED',
      );
    });

    it('shows a missing reason, a missing choice or a decision the status does not take next to its field, and changes nothing', async () => {
      const { tender, path, ids } = await quoted();
      await gql(broker, RESPOND, { input: { subjectivityId: ids[0], text: 'Anbei' } });
      const address = newAddress();
      const csrf = csrfOf((await get(path, address)).html);

      const noReason = await post(
        path,
        address,
        decision(csrf, ids[0], [
          ['decision', 'REJECT'],
          ['reason', '  '],
        ]),
      );
      expect(noReason.status).toBe(400);
      expect(noReason.html).toContain('id="error-summary"');
      expect(noReason.html).toContain(`href="#f-subjectivities-${ids[0]}-reason"`);
      expect(noReason.html).toContain(`id="f-subjectivities-${ids[0]}-reason-error">Bitte ausfüllen.`);
      expect(noReason.html).toMatch(new RegExp(`id="f-subjectivities-${ids[0]}-reason"[^>]*aria-invalid="true"`));
      // The choice made stays chosen.
      expect(noReason.html).toMatch(/value="REJECT" checked/);
      expect(await statusOf(tender.id, ids[0])).toBe('RESPONDED');

      const noChoice = await post(path, address, decision(csrf, ids[0], [['reason', 'Warum nicht']]));
      expect(noChoice.status).toBe(400);
      expect(noChoice.html).toContain(`href="#f-subjectivities-${ids[0]}-decision"`);
      expect(noChoice.html).toContain('Bitte wählen Sie eine Entscheidung.');
      expect(noChoice.html).toContain('Warum nicht');

      // A rejection answers a response: the open post-bind one takes none (the domain's CONFLICT), said at the choice.
      const notNow = await post(
        path,
        address,
        decision(csrf, ids[1], [
          ['decision', 'REJECT'],
          ['reason', 'Zu spät'],
        ]),
      );
      expect(notNow.status).toBe(409);
      expect(notNow.html).toContain(`href="#f-subjectivities-${ids[1]}-decision"`);
      expect(notNow.html).toContain(`id="f-subjectivities-${ids[1]}-decision-error">Diese Entscheidung ist im jetzigen Stand`);
      expect(await statusOf(tender.id, ids[1])).toBe('OPEN');
      const history = (await gql(broker, 'query($id: ID!) { tender(id: $id) { history { step } } }', { id: tender.id })).tender.history as {
        step: string | null;
      }[];
      expect(history.map((entry) => entry.step).filter(Boolean)).toEqual(['SUBJECTIVITY_RESPONDED']);
    });

    it("refuses a decision without its form token, with a forged one, from another origin, or on another request's subjectivity", async () => {
      const mine = await quoted();
      const theirs = await quoted();
      const address = newAddress();
      const csrf = csrfOf((await get(mine.path, address)).html);
      const accept: [string, string][] = [
        ['decision', 'ACCEPT'],
        ['reason', ''],
      ];
      expect((await post(mine.path, address, decision('forged', mine.ids[0], accept))).status).toBe(403);
      expect((await post(mine.path, address, decision(csrf, mine.ids[0], accept).slice(1))).status).toBe(403);
      const other = await fetch(`${scene.gateway.url}${mine.path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address, origin: 'https://evil.example' },
        body: new URLSearchParams(decision(csrf, mine.ids[0], accept)).toString(),
      });
      expect(other.status).toBe(403);
      expect((await post(mine.path, address, decision(csrf, theirs.ids[0], accept))).status).toBe(400);
      expect((await post(mine.path, address, decision(csrf, mine.ids[0], [['decision', 'APPROVE']]))).status).toBe(400);
      expect(await statusOf(mine.tender.id, mine.ids[0])).toBe('OPEN');
      expect(await statusOf(theirs.tender.id, theirs.ids[0])).toBe('OPEN');
      // The same form with its token is taken (an ACCEPT needs no response first).
      expect((await post(mine.path, address, decision(csrf, mine.ids[0], accept))).status).toBe(303);
      expect(await statusOf(mine.tender.id, mine.ids[0])).toBe('ACCEPTED');
    });
  });

  it('never writes a token in the logs', async () => {
    const { path, token } = await requested();
    const address = newAddress();
    await get(path, address);
    await post(path, address, [
      ['_csrf', 'x'],
      ['_action', 'quote'],
    ]);
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).not.toContain(token);
    expect(logLines.join('\n')).toContain('/underwriting/<credential>');
  });
});
