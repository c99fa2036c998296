import type { ParsedMail } from 'mailparser';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { MailMessage, MailStatus, UnsubscribeTokens, collectDigests, lastDigestTime, mailModule, MailKind } from '../src/mail';
import { Person } from '../src/parties';
import { loggablePath } from '../src/platform/http/loggable-path';
import { PeriodicTasks } from '../src/platform/tasks/periodic-task';
import { TEST_JWT_SECRET, graphql, graphqlData } from './helpers/gateway';
import { ManualClock } from './helpers/manual-clock';
import { withGateway } from './helpers/scene';
import { waitFor } from './helpers/simulator';
import { mailTestEnv, startSmtpSink } from './helpers/smtp-sink';

const MAIL = mailTestEnv(3);

const scene = withGateway({ tender: true, start: 'manual' });

const gql = (token: string, query: string, variables?: Record<string, unknown>) => graphqlData(scene.gateway, token, query, variables);

const errorCode = async (token: string, query: string, variables: Record<string, unknown> = {}) =>
  (await graphql(scene.gateway, token, query, variables)).body.errors?.[0]?.extensions?.code;

/** A MANUAL insurer with one English contact, invited to the scene's tender. */
async function invitedManualInsurer(): Promise<{ id: string; token: string }> {
  const internal = await scene.token(Role.INTERNAL);
  const { id } = (await gql(internal, 'mutation { createInsurer(input: { name: "Paper Insurance", integration: MANUAL }) { id } }'))
    .createInsurer as { id: string };
  const token = await scene.token(Role.INSURER, { insurerId: id });
  await gql(token, 'mutation($id: ID!, $c: [InsurerContactInput!]!) { setInsurerContacts(insurerId: $id, contacts: $c) { id } }', {
    id,
    c: [{ email: 'john@paper.example', name: 'John Smith', language: 'en' }],
  });
  const broker = await scene.token(Role.BROKER);
  await gql(broker, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }', {
    input: { tenderId: scene.tender.id, insurerIds: [id], limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }], riskInformation: {} },
  });
  return { id, token };
}

const POST = 'mutation($input: PostTenderMessageInput!) { postTenderMessage(input: $input) { id } }';
const post = (token: string, insurerId: string, text: string, requestsInformation = false) =>
  gql(token, POST, { input: { tenderId: scene.tender.id, insurerId, text, requestsInformation } });

/** The raw List-Unsubscribe header line's link. */
const unsubscribeLink = (mail: ParsedMail) =>
  /<(https:\/\/[^>]+)>/.exec(mail.headerLines.find((line) => line.key === 'list-unsubscribe')?.line ?? '')?.[1];

const to = (mail: ParsedMail) => (Array.isArray(mail.to) ? mail.to[0] : mail.to)!.value[0].address;
const mails = () => scene.em().find(MailMessage, {}, { orderBy: { createdAt: 'asc', id: 'asc' } });
const SET = 'mutation($input: NotificationPreferencesInput!) { setNotificationPreferences(input: $input) { email events delivery } }';

describe('message posted mails, the person in charge in their language', () => {
  it("an insurer's question reaches the person in charge in English; the broker's answer, the insurer's contact; never the text", async () => {
    const smtp = scene.closes(await startSmtpSink());
    await scene.start({ ...MAIL, SMTP_URL: smtp.url });
    await scene.em().nativeUpdate(Person, { id: scene.world.people[0].id }, { language: 'en' });
    const insurer = await invitedManualInsurer();
    await waitFor('the invitation', async () => smtp.accepted().length === 1);
    await post(insurer.token, insurer.id, 'Is the secret-sprinkler system maintained?', true);
    const question = await waitFor('the question to the person in charge', async () =>
      smtp.accepted().find((mail) => to(mail) === 'person0@broker.example'),
    );
    expect(question.subject).toBe('Question: Cyber Protect');
    expect(question.headers.get('content-language')).toBe('en');
    expect(question.text).toContain('Hello Erika Muster0,');
    expect(question.text).toContain('Paper Insurance wrote a question about the tender.');
    expect(`${question.text}${question.html}`).not.toContain('secret-sprinkler');

    const broker = await scene.token(Role.BROKER);
    await post(broker, insurer.id, 'Yes, the secret-sprinkler system is maintained.');
    const answer = await waitFor('the answer to the contact', async () =>
      smtp.accepted().find((mail) => to(mail) === 'john@paper.example' && mail.subject === 'New message: Cyber Protect'),
    );
    expect(answer.text).toContain('The broker wrote a message about the tender.');
    expect(`${answer.text}${answer.html}`).not.toContain('secret-sprinkler');
    // Every mail can be unsubscribed from with one click (RFC 8058).
    for (const mail of smtp.accepted()) {
      expect(mail.headerLines.find((line) => line.key === 'list-unsubscribe-post')?.line).toBe(
        'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
      );
      expect(unsubscribeLink(mail)).toMatch(/^https:\/\/gateway\.example\/mail\/unsubscribe\/[\w-]+\.[\w-]{43}$/);
    }
    // Invitation, question, answer: each once.
    expect(smtp.accepted()).toHaveLength(3);
  });
});

describe("a person's mail language", () => {
  it('is given with createTender, checked, and kept when a later tender names the person without one', async () => {
    await scene.start({ ...MAIL });
    const internal = await scene.token(Role.INTERNAL);
    const CREATE = 'mutation($input: CreateTenderInput!) { createTender(input: $input) { id } }';
    const input = (language?: string) => ({
      input: {
        product: 'Cyber Protect',
        taxRate: 0.19,
        lineOfBusinessId: scene.world.lines.cyber.id,
        brokerCompanyId: scene.world.brokers[0].id,
        customer: { id: scene.world.customer.id },
        submitter: {
          accountId: 'lang-1',
          email: 'sam@broker.example',
          firstName: 'Sam',
          lastName: 'Shape',
          ...(language ? { language } : {}),
        },
      },
    });
    const languageOf = async () => (await scene.em().findOneOrFail(Person, { accountId: 'lang-1' })).language;
    expect(await errorCode(internal, CREATE, input('fr'))).toBe('BAD_USER_INPUT');
    await gql(internal, CREATE, input('en'));
    expect(await languageOf()).toBe('en');
    await gql(internal, CREATE, input());
    expect(await languageOf()).toBe('en');
  });
});

describe('one-click unsubscribe', () => {
  it('a POST to the link with no login unsubscribes the address from that kind: the next message mails it nothing', async () => {
    const smtp = scene.closes(await startSmtpSink());
    await scene.start({ ...MAIL, SMTP_URL: smtp.url });
    const insurer = await invitedManualInsurer();
    const broker = await scene.token(Role.BROKER);
    await post(broker, insurer.id, 'First');
    const first = await waitFor('the first message mail', async () =>
      smtp.accepted().find((mail) => mail.subject === 'New message: Cyber Protect'),
    );
    const path = unsubscribeLink(first)!.replace('https://gateway.example', '');

    // A browser sees a page with a button (German by default, English when asked), strict CSP, no script.
    const page = await fetch(`${scene.gateway.url}${path}`, { headers: { 'accept-language': 'en' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).toContain('<form method="post"');
    expect(html).toContain('new messages');
    expect(html).not.toContain('<script');
    expect(await (await fetch(`${scene.gateway.url}${path}`)).text()).toContain('Abbestellen');
    // A forged token is not found.
    const forged = `${path.slice(0, -3)}AAA`;
    expect((await fetch(`${scene.gateway.url}${forged}`, { method: 'POST', body: 'List-Unsubscribe=One-Click' })).status).toBe(404);

    const done = await fetch(`${scene.gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(done.status).toBe(200);
    const internal = await scene.token(Role.INTERNAL);
    const chosen = (await gql(internal, '{ notificationPreferences(email: "John@Paper.example") { email events delivery } }'))
      .notificationPreferences;
    expect(chosen.events).not.toContain('MESSAGE_POSTED');
    expect(chosen.events).toContain('INVITATION');

    await post(broker, insurer.id, 'Second');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.accepted().filter((mail) => mail.subject === 'New message: Cyber Protect')).toHaveLength(1);
    // Not recorded at all: an opted-out mail leaves no row.
    expect((await mails()).filter((mail) => mail.template === String(MailKind.MESSAGE_POSTED))).toHaveLength(1);
    // The token is a credential: logs show the path without it.
    expect(loggablePath(path)).toBe('/mail/unsubscribe/<credential>');
  });
});

describe('notification preferences', () => {
  it('a broker sets its own persons, an insurer its own contacts, internal users anyone; others are not found', async () => {
    await scene.start({ ...MAIL });
    const insurer = await invitedManualInsurer();
    const broker = await scene.token(Role.BROKER);
    const input = (email: string) => ({ input: { email, events: ['QUOTE_RECEIVED'], delivery: 'DAILY_DIGEST' } });
    expect((await gql(broker, SET, input('Person0@broker.example'))).setNotificationPreferences).toEqual({
      email: 'person0@broker.example',
      events: ['QUOTE_RECEIVED'],
      delivery: 'DAILY_DIGEST',
    });
    expect(await errorCode(broker, SET, input('person1@broker.example'))).toBe('NOT_FOUND');
    expect(await errorCode(broker, SET, input('john@paper.example'))).toBe('NOT_FOUND');
    expect(await errorCode(insurer.token, SET, input('person0@broker.example'))).toBe('NOT_FOUND');
    expect((await gql(insurer.token, SET, input('john@paper.example'))).setNotificationPreferences.delivery).toBe('DAILY_DIGEST');
    expect(await errorCode(broker, SET, { input: { email: 'x@y.example', events: ['DIGEST'], delivery: 'IMMEDIATE' } })).toBe(
      'BAD_USER_INPUT',
    );
    const internal = await scene.token(Role.INTERNAL);
    expect((await gql(internal, SET, input('anyone@else.example'))).setNotificationPreferences.email).toBe('anyone@else.example');
    const analyst = await scene.token(Role.ANALYST);
    expect(await errorCode(analyst, '{ notificationPreferences(email: "anyone@else.example") { email } }')).toBe('FORBIDDEN');
  });

  it('a daily digest holds the mails and sends one at the hour in Berlin, once across two instances', async () => {
    const smtp = scene.closes(await startSmtpSink());
    await scene.start({ ...MAIL, SMTP_URL: smtp.url });
    const insurer = await invitedManualInsurer();
    await waitFor('the invitation', async () => smtp.accepted().length === 1);
    await gql(insurer.token, SET, { input: { email: 'john@paper.example', events: ['MESSAGE_POSTED'], delivery: 'DAILY_DIGEST' } });
    const broker = await scene.token(Role.BROKER);
    await post(broker, insurer.id, 'One');
    await post(broker, insurer.id, 'Two');
    const held = (await mails()).filter((mail) => mail.status === MailStatus.HELD);
    expect(held).toHaveLength(2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(smtp.accepted()).toHaveLength(1);

    // Two instances' digest tasks on one manual clock, from an hour before the last 07:00 in Berlin (the held mails
    // dated 12 hours before it; the mail worker sends on the real clock, so the digest's time is not in its future).
    const nextSeven = lastDigestTime(new Date(), 7);
    await scene.em().nativeUpdate(MailMessage, { status: MailStatus.HELD }, { createdAt: new Date(nextSeven.getTime() - 12 * 3_600_000) });
    const clock = new ManualClock(nextSeven.getTime() - 60 * 60_000);
    const parts = () =>
      mailModule.parts(scene.gateway.config.mail, scene.gateway.orm, pino({ level: 'silent' }), {
        baseUrl: 'https://gateway.example',
        tokens: new UnsubscribeTokens(TEST_JWT_SECRET),
      }).tasks;
    const instances = [
      new PeriodicTasks(parts(), { logger: pino({ level: 'silent' }), clock }),
      new PeriodicTasks(parts(), { logger: pino({ level: 'silent' }), clock }),
    ];
    instances.forEach((tasks) => tasks.start());
    try {
      const digestsNow = async () => (await mails()).filter((mail) => mail.template === String(MailKind.DIGEST));
      // Half an hour before the hour: nothing to make yet.
      await clock.advance(30 * 60_000);
      expect(await collectDigests(scene.gateway.orm, clock.now(), 7)).toBe(0);
      expect(await digestsNow()).toHaveLength(0);
      // Past the hour, the clock moved on in steps of the task's period while both instances' runs (database work) end.
      await waitFor('the digest recorded', async () => {
        await clock.advance(5 * 60_000);
        return (await digestsNow()).length > 0;
      });
      for (let step = 0; step < 4; step++) await clock.advance(5 * 60_000);
      const digests = await digestsNow();
      expect(digests).toHaveLength(1);
      expect(digests[0].createdAt.toISOString()).toBe(nextSeven.toISOString());
      expect((await mails()).filter((mail) => mail.status === MailStatus.DIGESTED)).toHaveLength(2);
      const digest = await waitFor('the digest', async () => smtp.accepted().find((mail) => mail.subject?.startsWith('Your daily digest')));
      expect(digest.subject).toBe('Your daily digest: 2 notifications');
      expect(digest.text).toContain('- New message: Cyber Protect');
      // At 07:00 on Berlin's clocks.
      expect(new Intl.DateTimeFormat('de-DE', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit' }).format(nextSeven)).toBe(
        '07:00',
      );
      await clock.advance(3 * 60 * 60_000);
      expect(await collectDigests(scene.gateway.orm, clock.now(), 7)).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(smtp.accepted().filter((mail) => mail.subject?.startsWith('Your daily digest'))).toHaveLength(1);
    } finally {
      await Promise.all(instances.map((tasks) => tasks.stop()));
    }
  });
});

describe('erasure and mail', () => {
  it("erasing the customer cancels its tenders' pending mail and blanks the addresses", async () => {
    // A server that is never up: the mails stay pending.
    await scene.start({ ...MAIL, SMTP_URL: 'smtp://127.0.0.1:9', MAIL_RETRY_SCHEDULE: '1h' });
    await invitedManualInsurer();
    const pending = await mails();
    expect(pending.map((mail) => mail.status)).toEqual([MailStatus.PENDING]);
    expect(pending[0].tenderId).toBe(scene.tender.id);
    const internal = await scene.token(Role.INTERNAL);
    const exported = JSON.stringify(
      (await gql(internal, 'query($id: ID!) { customerDataExport(customerId: $id) }', { id: scene.world.customer.id })).customerDataExport,
    );
    expect(exported).toContain('john@paper.example');
    await gql(internal, 'mutation($id: ID!) { eraseCustomer(customerId: $id, reason: "Ticket PD-2") { tenders } }', {
      id: scene.world.customer.id,
    });
    const after = await mails();
    expect(after.map((mail) => [mail.status, mail.recipientAddress, mail.recipientName])).toEqual([[MailStatus.CANCELLED, '', '']]);
  });
});
