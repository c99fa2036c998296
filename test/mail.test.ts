import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import type { ParsedMail } from 'mailparser';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { openDatabase } from '../src/database';
import { Insurer, InsurerIntegration } from '../src/insurers';
import { MailMessage, MailStatus, UnsubscribeTokens, mailModule } from '../src/mail';
import { loadConfig } from '../src/platform/config';
import { TenderStatus } from '../src/tenders';
import { databaseUrlFor, removeDataDir } from './helpers/database';
import { createTender, createWorld } from './helpers/fixtures';
import { TEST_JWT_SECRET, createClient, graphql, requestToken, type Gateway, graphqlData } from './helpers/gateway';
import { freePort, spawnGateway, type GatewayProcess } from './helpers/gateway-process';
import { withGateway } from './helpers/scene';
import { waitFor } from './helpers/simulator';
import { mailTestEnv, startSmtpSink, type SmtpSink } from './helpers/smtp-sink';

/** Quick polls and retries: a test watches mail wait for a server and go out once it is up. */
const MAIL = mailTestEnv(20);

const scene = withGateway({ tender: true, start: 'manual' });

const gql = (token: string, query: string, variables?: Record<string, unknown>) => graphqlData(scene.gateway, token, query, variables);

/** A MANUAL insurer (nothing is sent to a system of its own) with two contacts, one German, one English. */
async function manualInsurerWithContacts(): Promise<{ id: string; token: string }> {
  const internal = await scene.token(Role.INTERNAL);
  const { id } = (await gql(internal, 'mutation { createInsurer(input: { name: "Paper <Insurance>", integration: MANUAL }) { id } }'))
    .createInsurer as { id: string };
  const token = await scene.token(Role.INSURER, { insurerId: id });
  const set = await gql(
    token,
    'mutation($id: ID!, $c: [InsurerContactInput!]!) { setInsurerContacts(insurerId: $id, contacts: $c) { contacts { email name language } } }',
    {
      id,
      c: [
        { email: 'anna@paper.example', name: 'Anna Schmidt', language: 'de' },
        { email: 'john@paper.example', name: 'John Smith', language: 'en' },
      ],
    },
  );
  expect(set.setInsurerContacts.contacts).toHaveLength(2);
  return { id, token };
}

async function requestQuotes(insurerIds: string[]): Promise<{ id: string }[]> {
  const broker = await scene.token(Role.BROKER);
  return (
    await gql(broker, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }', {
      input: { tenderId: scene.tender.id, insurerIds, limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }], riskInformation: {} },
    })
  ).requestQuotes as { id: string }[];
}

/** Mail's listeners, called directly: an event as a feature reports it. */
const mailParts = () =>
  mailModule.parts(scene.gateway.config.mail, scene.gateway.orm, pino({ level: 'silent' }), {
    baseUrl: 'https://gateway.example',
    tokens: new UnsubscribeTokens(TEST_JWT_SECRET),
  });

const to = (mail: ParsedMail) => (Array.isArray(mail.to) ? mail.to[0] : mail.to)!.value[0].address;
const mails = () => scene.em().find(MailMessage, {}, { orderBy: { recipientAddress: 'asc' } });

describe('e-mail to people without an integration', () => {
  it("an invitation reaches the insurer's contacts, each in their language, in HTML and plain text, with stable headers", async () => {
    const smtp = scene.closes(await startSmtpSink());
    await scene.start({ ...MAIL, SMTP_URL: smtp.url });
    const insurer = await manualInsurerWithContacts();
    await requestQuotes([insurer.id]);
    await waitFor('both invitations', async () => smtp.accepted().length === 2);

    const byAddress = new Map(smtp.accepted().map((mail) => [to(mail), mail]));
    const german = byAddress.get('anna@paper.example')!;
    const english = byAddress.get('john@paper.example')!;
    expect(german.subject).toBe('Einladung zur Angebotsabgabe: Cyber Protect');
    expect(english.subject).toBe('Invitation to quote: Cyber Protect');
    expect(german.headers.get('content-language')).toBe('de');
    expect(english.headers.get('content-language')).toBe('en');
    expect(german.from?.value[0]).toEqual({ address: 'gateway@tender-exchange.test', name: 'Tender Exchange' });
    expect(german.messageId).toMatch(/^<[0-9a-f]{32}\.[0-9a-f]{16}@tender-exchange>$/);
    expect(german.messageId).not.toBe(english.messageId);
    expect(german.date).toBeInstanceOf(Date);
    // Both parts: the greeting by name, what happened, the tender, that a MANUAL insurer answers through the gateway, the link.
    expect(german.text).toContain('Guten Tag Anna Schmidt,');
    expect(german.text).toContain('über das Tender Exchange Gateway');
    expect(german.text).toContain(`Ausschreibung: ${scene.tender.id}`);
    expect(german.text).toContain('https://gateway.example/');
    expect(english.text).toContain('Hello John Smith,');
    expect(english.text).toContain('You answer through the Tender Exchange gateway');
    // The insurer's name is escaped in HTML, plain in text.
    expect(english.html).toContain('Paper &lt;Insurance&gt; is invited to quote on a tender.');
    expect(english.html).not.toContain('<Insurance>');
    expect(english.text).toContain('Paper <Insurance> is invited to quote on a tender.');
    // A MANUAL insurer's invitation leads to its quote page (the link's token, derived when the mail was sent).
    expect(english.html).toMatch(/<a href="https:\/\/gateway\.example\/underwriting\/[\w-]{43}">/);
    expect(english.text).toContain('Open the quote page');
    // Recorded SENT a moment after the server accepted them.
    await expect.poll(async () => (await mails()).map((mail) => mail.status)).toEqual([MailStatus.SENT, MailStatus.SENT]);
  });

  it("a received quote, the order's acceptance and decline reach the person in charge in German; each order, the insurer's contacts", async () => {
    const smtp = scene.closes(await startSmtpSink());
    await scene.start({ ...MAIL, SMTP_URL: smtp.url });
    const insurer = await manualInsurerWithContacts();
    const [request] = await requestQuotes([insurer.id]);
    const quoted = await gql(
      insurer.token,
      'mutation($input: SubmitManualQuoteInput!) { submitManualQuote(input: $input) { options { id } } }',
      {
        input: {
          quoteRequestId: request.id,
          decision: 'QUOTED',
          validUntil: new Date(Date.now() + 7 * 86_400_000).toISOString(),
          options: [{ insuranceSum: 1_000_000, deductible: 10_000, premium: 2000 }],
        },
      },
    );
    const received = await waitFor('the mail to the person in charge', async () =>
      smtp.accepted().find((mail) => to(mail) === 'person0@broker.example' && mail.subject?.startsWith('Antwort')),
    );
    expect(received.subject).toBe('Antwort von Paper <Insurance>: Cyber Protect');
    expect(received.headers.get('content-language')).toBe('de');
    expect(received.text).toContain('Guten Tag Erika Muster0,');
    expect(received.text).toContain('hat auf die Anfrage geantwortet (QUOTED)');
    // No price in a mail: the link leads to it.
    expect(received.text).not.toContain('2000');
    expect(received.html).toContain('Paper &lt;Insurance&gt; hat auf die Anfrage geantwortet');

    const broker = await scene.token(Role.BROKER);
    await gql(broker, 'mutation($id: ID!, $o: ID!) { orderCover(tenderId: $id, quoteOptionId: $o) { status } }', {
      id: scene.tender.id,
      o: quoted.submitManualQuote.options[0].id,
    });
    const orders = await waitFor('the order to both contacts', async () => {
      const found = smtp.accepted().filter((mail) => /Cover ordered|Deckung beauftragt/.test(mail.subject ?? ''));
      return found.length === 2 && found;
    });
    expect(orders.map((mail) => `${to(mail)} ${mail.subject}`).sort()).toEqual([
      'anna@paper.example Deckung beauftragt: Cyber Protect',
      'john@paper.example Cover ordered: Cyber Protect',
    ]);
    // The only invited insurer answered: the round is complete.
    const everyone = smtp.accepted().find((mail) => mail.subject === 'Alle Versicherer haben geantwortet: Cyber Protect')!;
    expect(to(everyone)).toBe('person0@broker.example');
    expect(everyone.text).toContain('1 von 1 mit einem Angebot');
    // Invitations (2), the answer (1), every insurer answered (1), the order (2): each once.
    expect(smtp.accepted()).toHaveLength(6);
    expect(new Set(smtp.accepted().map((mail) => mail.messageId)).size).toBe(6);

    // The insurer declines the order: the person in charge hears of it (the reason stays in the history).
    await gql(insurer.token, 'mutation($id: ID!) { declineCoverOrder(tenderId: $id, reason: "Sprinkler <missing>") { status } }', {
      id: scene.tender.id,
    });
    const declined = await waitFor('the decline to the person in charge', async () =>
      smtp.accepted().find((mail) => mail.subject === 'Deckung abgelehnt: Cyber Protect'),
    );
    expect(to(declined)).toBe('person0@broker.example');
    expect(declined.text).toContain('Paper <Insurance> hat die beauftragte Deckung abgelehnt.');
    expect(declined.text).not.toContain('Sprinkler');
    // Ordered again and accepted: a new order to the contacts, the acceptance with its inception date.
    await gql(broker, 'mutation($id: ID!, $o: ID!) { orderCover(tenderId: $id, quoteOptionId: $o) { status } }', {
      id: scene.tender.id,
      o: quoted.submitManualQuote.options[0].id,
    });
    await gql(insurer.token, 'mutation($id: ID!) { acceptCoverOrder(tenderId: $id, inceptionDate: "2027-01-01") { status } }', {
      id: scene.tender.id,
    });
    const accepted = await waitFor('the acceptance to the person in charge', async () =>
      smtp.accepted().find((mail) => mail.subject === 'Deckung angenommen: Cyber Protect'),
    );
    expect(accepted.text).toContain('Paper <Insurance> hat die beauftragte Deckung angenommen, Beginn am 2027-01-01.');
    await waitFor('the second order to both contacts', async () =>
      smtp.accepted().filter((mail) => /Cover ordered|Deckung beauftragt/.test(mail.subject ?? '')).length === 4 ? true : undefined,
    );
    expect(smtp.accepted()).toHaveLength(10);
    expect(new Set(smtp.accepted().map((mail) => mail.messageId)).size).toBe(10);
  });

  it('the same event reported twice records one mail per recipient', async () => {
    await scene.start({ ...MAIL, SMTP_URL: 'smtp://127.0.0.1:9' });
    const insurer = await manualInsurerWithContacts();
    const parts = mailParts();
    const event = {
      kind: 'invited' as const,
      tender: { id: scene.tender.id, status: TenderStatus.QUOTES_AVAILABLE, brokerCompanyId: scene.world.brokers[0].id },
      insurerId: insurer.id,
      at: new Date(),
    };
    for (let i = 0; i < 2; i++) await scene.em().transactional((tx) => parts.quoteEvents[0](tx, event));
    const recorded = await mails();
    expect(recorded.map((mail) => mail.recipientAddress)).toEqual(['anna@paper.example', 'john@paper.example']);
    expect(new Set(recorded.map((mail) => mail.messageId)).size).toBe(2);
  });

  it('a coming expiry and a submitted risk assessment reach the person in charge, without the answers', async () => {
    const smtp = scene.closes(await startSmtpSink());
    await scene.start({ ...MAIL, SMTP_URL: smtp.url });
    const parts = mailParts();
    const tender = { id: scene.tender.id, status: TenderStatus.QUOTES_AVAILABLE, brokerCompanyId: scene.world.brokers[0].id };
    await scene.em().transactional(async (tx) => {
      await parts.quoteEvents[0](tx, {
        kind: 'quoteExpiring',
        tender,
        quoteRequestId: 'qr-1',
        insurerId: scene.world.insurers[0].id,
        validUntil: new Date('2026-12-24T22:59:59.999Z'),
        at: new Date(),
      });
      await parts.riskEvents[0](tx, {
        kind: 'assessmentSubmitted',
        tenderId: scene.tender.id,
        tenderStatus: TenderStatus.QUOTES_AVAILABLE,
        brokerCompanyId: tender.brokerCompanyId,
        product: 'Cyber Protect',
        questionSetVersion: 1,
        answers: { secretAnswer: 'only-for-the-api' },
        at: new Date(),
      });
    });
    await waitFor('both mails', async () => smtp.accepted().length === 2);
    const bySubject = new Map(smtp.accepted().map((mail) => [mail.subject, mail]));
    const expiring = bySubject.get('Angebot läuft bald ab: Cyber Protect')!;
    expect(to(expiring)).toBe('person0@broker.example');
    expect(expiring.text).toContain(`Das Angebot von ${scene.world.insurers[0].name} ist gültig bis 24. Dezember 2026 um 23:59.`);
    const submitted = bySubject.get('Risikoerfassung abgeschlossen: Cyber Protect')!;
    expect(submitted.text).toContain('vollständig beantwortet und eingereicht');
    expect(`${submitted.text}${submitted.html}`).not.toContain('only-for-the-api');
    expect(JSON.stringify((await mails()).map((mail) => mail.data))).not.toContain('only-for-the-api');
  });

  it('with the SMTP server down mail waits, requests go on, and it is sent once the server is up', async () => {
    const port = await freePort();
    await scene.start({ ...MAIL, SMTP_URL: `smtp://127.0.0.1:${port}` });
    const insurer = await manualInsurerWithContacts();
    await requestQuotes([insurer.id]);
    const failing = await waitFor('attempts against the missing server', async () => {
      const recorded = await mails();
      return recorded.length === 2 && recorded.every((mail) => mail.attempts >= 1) && recorded;
    });
    expect(failing.map((mail) => mail.status)).toEqual([MailStatus.PENDING, MailStatus.PENDING]);
    expect(failing[0].lastError).toMatch(/^the SMTP server could not be reached/);
    // Nothing else waits for the mail: the broker goes on working.
    const started = Date.now();
    const broker = await scene.token(Role.BROKER);
    expect((await gql(broker, 'query($id: ID!) { tender(id: $id) { id } }', { id: scene.tender.id })).tender.id).toBe(scene.tender.id);
    expect(Date.now() - started).toBeLessThan(2000);

    const smtp = scene.closes(await startSmtpSink(port));
    // The server accepts a mail a moment before the gateway records it SENT: wait for the records.
    const sent = await waitFor('both invitations sent once the server is up', async () => {
      const recorded = await mails();
      return recorded.every((mail) => mail.status !== MailStatus.PENDING) && recorded;
    });
    expect(sent.map((mail) => mail.status)).toEqual([MailStatus.SENT, MailStatus.SENT]);
    expect(smtp.accepted()).toHaveLength(2);
  });

  it("an insurer's contacts are checked, set by that insurer alone, and shown to no broker", async () => {
    await scene.start({ ...MAIL });
    const insurer = await manualInsurerWithContacts();
    const SET = 'mutation($id: ID!, $c: [InsurerContactInput!]!) { setInsurerContacts(insurerId: $id, contacts: $c) { id } }';
    const refused = async (token: string, id: string, contacts: unknown[]) =>
      (await graphql(scene.gateway, token, SET, { id, c: contacts })).body.errors?.[0]?.extensions?.code;
    const contact = { email: 'a@b.example', name: 'A', language: 'de' };
    expect(await refused(insurer.token, insurer.id, [{ ...contact, email: 'not an address' }])).toBe('BAD_USER_INPUT');
    expect(await refused(insurer.token, insurer.id, [{ ...contact, language: 'fr' }])).toBe('BAD_USER_INPUT');
    expect(await refused(insurer.token, insurer.id, [{ ...contact, name: '<script>\u0007' }])).toBe('BAD_USER_INPUT');
    expect(
      await refused(
        insurer.token,
        insurer.id,
        Array.from({ length: 11 }, () => contact),
      ),
    ).toBe('BAD_USER_INPUT');
    expect(await refused(insurer.token, scene.world.insurers[0].id, [contact])).toBe('NOT_FOUND');
    const broker = await scene.token(Role.BROKER);
    const seen = (await gql(broker, '{ insurers { id contacts { email } } }')).insurers as { id: string; contacts: unknown[] }[];
    expect(seen.find((one) => one.id === insurer.id)!.contacts).toEqual([]);
    const own = (await gql(insurer.token, '{ insurers { contacts { email language } } }')).insurers as { contacts: unknown[] }[];
    expect(own[0].contacts).toEqual([
      { email: 'anna@paper.example', language: 'de' },
      { email: 'john@paper.example', language: 'en' },
    ]);
  });

  it('sent mails are removed with their addresses after MAIL_RETENTION, newer ones kept', async () => {
    const smtp = scene.closes(await startSmtpSink());
    await scene.start({ ...MAIL, SMTP_URL: smtp.url });
    const sent = (messageId: string, daysAgo: number) => ({
      messageId,
      recipientAddress: 'someone@broker.example',
      recipientName: 'Someone',
      language: 'de' as const,
      template: 'quote-received',
      data: { tenderId: scene.tender.id, product: 'Cyber Protect' },
      status: MailStatus.SENT,
      createdAt: new Date(Date.now() - daysAgo * 86_400_000),
      sentAt: new Date(Date.now() - daysAgo * 86_400_000),
    });
    const em = scene.em();
    em.create(MailMessage, sent('<old@tender-exchange>', 31));
    em.create(MailMessage, sent('<new@tender-exchange>', 29));
    await em.flush();
    // A new start sweeps at its first look for due mail.
    await scene.reopen({ env: { ...MAIL, SMTP_URL: smtp.url } });
    await waitFor('the old mail removed', async () => (await mails()).length === 1);
    expect((await mails()).map((mail) => mail.messageId)).toEqual(['<new@tender-exchange>']);
    expect(smtp.accepted()).toHaveLength(0);
  });

  it('with SMTP_URL unset no mail is recorded', async () => {
    await scene.start({ ...MAIL });
    const insurer = await manualInsurerWithContacts();
    await requestQuotes([insurer.id]);
    expect(scene.gateway.app.mail).toBeUndefined();
    expect(await mails()).toEqual([]);
  });
});

describe('e-mail across a restart', () => {
  let dataDir: string | undefined;
  let orm: MikroORM | undefined;
  let smtp: SmtpSink | undefined;
  const running: GatewayProcess[] = [];

  afterEach(async () => {
    for (const gateway of running.splice(0)) await gateway.kill();
    await smtp?.close();
    await orm?.close();
    if (dataDir) await removeDataDir(dataDir);
  });

  it('a mail cut off by kill -9 mid-send is sent once after the restart, with the same Message-ID', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tender-exchange-mail-'));
    orm = await openDatabase(loadConfig({ DATA_DIR: dataDir, DATABASE_URL: await databaseUrlFor(dataDir), JWT_SECRET: TEST_JWT_SECRET }));
    const world = await createWorld(orm.em.fork());
    const tender = await createTender(orm.em.fork(), world);
    const insurerId = world.insurers[0].id;
    await orm.em
      .fork()
      .nativeUpdate(
        Insurer,
        { id: insurerId },
        { integration: InsurerIntegration.MANUAL, contacts: [{ email: 'anna@insurer.example', name: 'Anna', language: 'de' }] },
      );
    smtp = await startSmtpSink();
    // Long enough a timeout that the first process is still waiting for the answer when it is killed.
    const env = { ...MAIL, SMTP_URL: smtp.url, MAIL_TIMEOUT_MS: '3000', MAIL_LEASE_MS: '9100' };
    const port = await freePort();
    const first = await spawnGateway(dataDir, port, env);
    running.push(first);
    const target = { url: first.url, em: () => orm!.em.fork() } as unknown as Gateway;
    const broker = await requestToken(target, await createClient(target, Role.BROKER, { brokerCompanyId: world.brokers[0].id }));
    smtp.holdNext();
    const { body } = await graphql(target, broker, 'mutation($input: RequestQuotesInput!) { requestQuotes(input: $input) { id } }', {
      input: {
        tenderId: tender.id,
        insurerIds: [insurerId],
        limits: [{ insuranceSum: 1_000_000, deductible: 10_000 }],
        riskInformation: {},
      },
    });
    expect(body.errors).toBeUndefined();
    await waitFor('the first attempt to arrive', async () => smtp!.arrived().length === 1, 30_000);
    await first.kill();
    const rows = () => orm!.em.fork().find(MailMessage, {});
    expect((await rows())[0]).toMatchObject({ status: MailStatus.PENDING, attempts: 0 });
    expect(smtp.accepted()).toHaveLength(0);

    running.push(await spawnGateway(dataDir, port, env));
    await waitFor('the mail after the restart', async () => (await rows())[0].status === MailStatus.SENT, 60_000);
    const [cut, again] = smtp.arrived();
    expect(again.messageId).toBe(cut.messageId);
    expect(smtp.accepted().map((mail) => mail.messageId)).toEqual([cut.messageId]);
    expect(await rows()).toHaveLength(1);
    // Two gateway starts and the lease's 9 s: under CI's three legs side by side the default 30 s is too short.
  }, 120_000);
});
