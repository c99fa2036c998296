import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/core';
import type { Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { MailConfig } from '../platform/config';
import { dateOfColumn } from '../platform/db/column-values';
import { leaseIsFree, leaseIsFreeFilter, OutboxWorker, type Claimed, type Outbox } from '../platform/db/outbox-worker';
import { sanitise } from '../platform/http/partner-client';
import { AccessLink, type AccessLinks } from '../links';
import { MailMessage, MailStatus } from './mail-message.entity';
import { renderMail } from './mail-templates';
import type { MailKind } from './mail-kind';
import { UNSUBSCRIBE_PATH, type UnsubscribeTokens } from './unsubscribe/unsubscribe-token';

/** Where a mail's unsubscribe link points: the gateway's address (PUBLIC_URL, else the local one) and the token's key. */
export interface UnsubscribeLinks {
  baseUrl: string;
  tokens: UnsubscribeTokens;
}

const MAX_ERROR = 1000;
/** Mails sent at once: one SMTP server is the one partner. */
const CONCURRENCY = 4;
const SMTP = 'smtp';
/** How often finished mails older than MAIL_RETENTION are removed. */
const SWEEP_EVERY_MS = 10 * 60_000;

const waiting = `from mail_message where status = '${MailStatus.PENDING}' and ${leaseIsFree()}`;

/** The transport's settings from SMTP_URL: smtps:// is TLS from the start; user and password, if given, authenticate. */
async function transportOf(config: MailConfig & { smtpUrl: string }): Promise<Transporter> {
  // Loaded with the first mail: a gateway without SMTP_URL never holds nodemailer's 40 modules (docs/benchmark.md).
  const { createTransport } = await import('nodemailer');
  const url = new URL(config.smtpUrl);
  const secure = url.protocol === 'smtps:';
  return createTransport({
    host: url.hostname,
    port: url.port ? Number(url.port) : secure ? 465 : 25,
    secure,
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    connectionTimeout: config.timeoutMs,
    greetingTimeout: config.timeoutMs,
    socketTimeout: config.timeoutMs,
  });
}

/** A reply the server will give again: the address or the message is refused for good (RFC 5321 5yz, not 421/45x). */
const refusedForGood = (error: { responseCode?: number }) => (error.responseCode ?? 0) >= 500 && (error.responseCode ?? 0) < 600;

/**
 * Sends the mail outbox through SMTP after the events' transactions committed: each mail with its stable
 * `Message-ID`, retried on MAIL_RETRY_SCHEDULE while the server is unreachable or answers 4yz, FAILED when it refuses
 * for good (5yz) or the schedule ends. Mails are leased like webhook deliveries, so several instances and a restarted
 * one send each; a server that is down only delays mail.
 */
export class MailSender implements Outbox<string> {
  readonly owner = randomUUID();
  private readonly worker: OutboxWorker<string>;
  private transport?: Promise<Transporter>;
  private sweptAt = 0;

  constructor(
    private readonly orm: MikroORM,
    private readonly config: MailConfig & { smtpUrl: string },
    private readonly logger: Logger,
    private readonly unsubscribe: UnsubscribeLinks,
    /** Derives the URL of a page's link a mail carries (a questionnaire's, an underwriter's) when it is sent. */
    private readonly links?: AccessLinks,
  ) {
    this.worker = new OutboxWorker(
      'mail sender',
      this,
      { concurrency: CONCURRENCY, perPartner: CONCURRENCY, pollIntervalMs: config.pollIntervalMs },
      logger,
    );
  }

  start(): void {
    this.worker.start();
  }

  async stop(): Promise<void> {
    await this.worker.stop();
    (await this.transport?.catch(() => undefined))?.close();
  }

  private execute<T>(sql: string, params: unknown[]): Promise<T> {
    return this.orm.em.getConnection().execute(sql, params, 'all') as Promise<T>;
  }

  async nextDue(): Promise<Date | undefined> {
    const now = this.orm.em.getPlatform().processDateProperty(new Date());
    const [next] = await this.execute<{ next_attempt_at: unknown }[]>(
      `select next_attempt_at ${waiting} and next_attempt_at is not null order by next_attempt_at asc limit 1`,
      [now],
    );
    return next ? dateOfColumn(next.next_attempt_at) : undefined;
  }

  async due(limit: number, busy: readonly string[]): Promise<Claimed[]> {
    if (busy.includes(SMTP)) return [];
    await this.sweep(new Date());
    const now = this.orm.em.getPlatform().processDateProperty(new Date());
    const due = await this.execute<{ id: string }[]>(`select id ${waiting} and next_attempt_at <= ? order by next_attempt_at, id limit ?`, [
      now,
      now,
      limit,
    ]);
    return due.map(({ id }) => ({ id, partner: SMTP }));
  }

  /** Finished mails (sent, failed, digested, cancelled) are kept MAIL_RETENTION (what went out to whom), then removed with their addresses. */
  private async sweep(now: Date): Promise<void> {
    if (now.getTime() - this.sweptAt < SWEEP_EVERY_MS) return;
    this.sweptAt = now.getTime();
    await this.orm.em.fork().nativeDelete(MailMessage, {
      status: { $in: [MailStatus.SENT, MailStatus.FAILED, MailStatus.DIGESTED, MailStatus.CANCELLED] },
      createdAt: { $lt: new Date(now.getTime() - this.config.retentionMs) },
    });
  }

  async lease(id: string): Promise<string | undefined> {
    const now = new Date();
    const em = this.orm.em.fork();
    const taken = await em.nativeUpdate(
      MailMessage,
      { id, status: MailStatus.PENDING, ...leaseIsFreeFilter(em.getPlatform(), now) },
      { leaseOwner: this.owner, leaseUntil: new Date(now.getTime() + this.config.leaseMs) },
    );
    return taken === 1 ? id : undefined;
  }

  async process(id: string): Promise<void> {
    const em = this.orm.em.fork();
    const mail = await em.findOne(MailMessage, { id, leaseOwner: this.owner });
    if (!mail) return;
    const attempts = mail.attempts + 1;
    try {
      const pageLink = await this.pageLinkOf(em, mail);
      if (pageLink === null) {
        // A link revoked (or erased) before its mail went out: sent now, it would lead to a 410 page.
        await this.record(mail, {
          status: MailStatus.FAILED,
          attempts,
          nextAttemptAt: null,
          lastError: 'the link was revoked before the mail was sent',
        });
        return;
      }
      await this.send(mail, pageLink);
      await this.record(mail, { status: MailStatus.SENT, attempts, sentAt: new Date(), nextAttemptAt: null, lastError: null });
    } catch (error) {
      const failure = error as Error & { responseCode?: number; code?: string };
      const step = refusedForGood(failure) ? undefined : this.config.retrySchedule[attempts - 1];
      const next = step === undefined ? null : new Date(Date.now() + Math.round(step * (0.9 + Math.random() * 0.2)));
      // The server's reply (code and text) or the network's error code; no addresses of our network.
      const reason = failure.responseCode
        ? `the server answered ${failure.responseCode}: ${failure.message}`
        : `the SMTP server could not be reached (${failure.code ?? 'error'})`;
      const lastError = sanitise(next ? reason : `${reason} (gave up after ${attempts} attempts)`, MAX_ERROR);
      this.logger.warn({ mail: mail.id, attempts, error: lastError, next }, 'mail attempt failed');
      await this.record(mail, { status: next ? MailStatus.PENDING : MailStatus.FAILED, attempts, nextAttemptAt: next, lastError });
    }
  }

  /**
   * The URL of the page link a mail names (`linkId`), derived now from the link's row: the outbox never holds a token.
   * Undefined for a mail without one; null for a link gone or revoked.
   */
  private async pageLinkOf(em: EntityManager, mail: MailMessage): Promise<string | null | undefined> {
    const { linkId, origin } = mail.data;
    if (!linkId) return undefined;
    const link = await em.findOne(AccessLink, { id: linkId });
    const base = this.config.publicUrl ?? origin;
    if (!link || link.revokedAt || !this.links || !base) return null;
    return this.links.urlOf(link, base);
  }

  private async send(mail: MailMessage, pageLink?: string): Promise<void> {
    const token = this.unsubscribe.tokens.sign(mail.recipientAddress, mail.template as MailKind);
    const unsubscribe = `${this.unsubscribe.baseUrl}${UNSUBSCRIBE_PATH}/${token}`;
    const rendered = renderMail(mail.template, { name: mail.recipientName, language: mail.language }, mail.data, {
      publicUrl: this.config.publicUrl,
      unsubscribe,
      pageLink,
    });
    this.transport ??= transportOf(this.config);
    await (
      await this.transport
    ).sendMail({
      from: this.config.from,
      to: { name: mail.recipientName, address: mail.recipientAddress },
      subject: rendered.subject,
      text: rendered.text,
      html: rendered.html,
      messageId: mail.messageId,
      // When the event happened: every attempt of the mail is the same message.
      date: mail.createdAt,
      // RFC 8058: a one-click unsubscribe, a POST to the link with no login (docs/people.md, "Unsubscribe").
      headers: {
        'Content-Language': mail.language,
        'List-Unsubscribe': `<${unsubscribe}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
    });
  }

  /** A conditional update only the lease holder can make, of a mail still PENDING (not cancelled meanwhile); releases the lease. */
  private record(mail: MailMessage, changes: Partial<MailMessage>): Promise<number> {
    return this.orm.em
      .fork()
      .nativeUpdate(
        MailMessage,
        { id: mail.id, leaseOwner: this.owner, status: MailStatus.PENDING },
        { ...changes, leaseOwner: null, leaseUntil: null },
      );
  }
}
