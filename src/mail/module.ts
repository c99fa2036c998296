import type { MikroORM } from '@mikro-orm/core';
import type { Logger } from 'pino';
import type { MessageEventListener } from '../messages';
import type { MailConfig } from '../platform/config';
import type { PeriodicTask } from '../platform/tasks/periodic-task';
import type { QuoteEventListener } from '../quotes';
import type { RiskEventListener } from '../risk';
import type { TenderChangeListener } from '../tenders';
import type { AccessLinks } from '../links';
import { mailDigestTask } from './mail-digest';
import { messageEventsToMail, quoteEventsToMail, riskEventsToMail, tenderChangesToMail } from './mail-listeners';
import { MailMessage } from './mail-message.entity';
import { MailSender, type UnsubscribeLinks } from './mail-sender';
import { MailPreference } from './preferences/mail-preference.entity';
import { MailPreferencesResolver } from './preferences/mail-preferences.resolver';

/** What the composition takes of mail when SMTP_URL is set (or the development sink is on); when not, nothing is recorded or sent. */
interface MailParts {
  sender: MailSender;
  tenderChanges: readonly TenderChangeListener[];
  quoteEvents: readonly QuoteEventListener[];
  riskEvents: readonly RiskEventListener[];
  messageEvents: readonly MessageEventListener[];
  tasks: readonly PeriodicTask[];
}

const OFF: Omit<MailParts, 'sender'> & { sender?: undefined } = {
  tenderChanges: [],
  quoteEvents: [],
  riskEvents: [],
  messageEvents: [],
  tasks: [],
};

/**
 * What mail adds to the composition (createApp): its entities and preferences' resolver, and, when on, a listener to
 * each kind of event people are mailed about (recording the mails in the event's own transaction), its outbox worker,
 * the MailSender, and the daily digest task.
 */
export const mailModule = {
  /** Its entities (the database, src/database.ts). */
  entities: [MailMessage, MailPreference],
  /** Its GraphQL resolvers (the schema, api/graphql/schema.ts): preferences can be set while mail is off. */
  resolvers: [MailPreferencesResolver],
  parts(
    config: MailConfig,
    workerOrm: MikroORM,
    logger: Logger,
    unsubscribe: UnsubscribeLinks,
    links?: AccessLinks,
  ): MailParts | typeof OFF {
    const { smtpUrl } = config;
    if (!smtpUrl) return OFF;
    return {
      sender: new MailSender(workerOrm, { ...config, smtpUrl }, logger, unsubscribe, links),
      tenderChanges: [tenderChangesToMail],
      quoteEvents: [quoteEventsToMail],
      riskEvents: [riskEventsToMail],
      messageEvents: [messageEventsToMail],
      tasks: [mailDigestTask(workerOrm, config.digestHour)],
    };
  },
};
