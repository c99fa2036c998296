import type { MikroORM } from '@mikro-orm/core';
import type { QuoteDispatchConfig } from '../platform/config';
import type { PeriodicTask } from '../platform/tasks/periodic-task';
import type { TenderChangeListener } from '../tenders';
import type { RiskEventListener } from '../risk';
import { sendRequestsAwaitingAnswers } from './request/quotes-from-assessment';
import { QuoteExpiry, quoteExpiryTask } from './expiry/quote-expiry';
import type { QuoteEventListener } from './quote-events';
import { cancelQuoteRequestsOfClosedTender, cancelQuoteRequestsOnOrder } from './dispatch/tender-closing';
import { QuoteResolver } from './request/quote.resolver';
import { ProposalFieldsResolver, ProposalResolver, QuoteRequestFieldsResolver } from './proposal/proposal.resolver';
import { InsurerCheckResolver } from './onboarding/insurer-check.resolver';
import { ManualQuoteResolver } from './manual/manual-quote.resolver';
import { UnderwritingLinkResolver } from './manual/underwriting-link.resolver';
import { EarlyCallback } from './callback/early-callback.entity';
import { InsurerCheck } from './onboarding/insurer-check.entity';
import { QuoteOption } from './quote-option.entity';
import { QuoteRequest } from './quote-request.entity';
import { SubjectivityStep, TrackedSubjectivity } from './subjectivities/subjectivity.entity';
import { SubjectivityResolver } from './subjectivities/subjectivity.resolver';
import { refuseFinaliseWithOpenSubjectivities } from './subjectivities/subjectivity.service';
import { BindReminders, bindRemindersTask } from './subjectivities/bind-reminders';
import { RenewalComparisonResolver, RenewalResolver } from './renewals/renewal.resolver';
import { RenewalSweep, renewalSweepTask } from './renewals/renewal-sweep';

/** What quoting adds to the composition (createApp) beside its outbox worker, the QuoteDispatcher. */
export const quotesModule = {
  /** Its GraphQL resolvers (the schema, api/graphql/schema.ts). */
  resolvers: [
    QuoteResolver,
    ProposalResolver,
    ProposalFieldsResolver,
    QuoteRequestFieldsResolver,
    InsurerCheckResolver,
    ManualQuoteResolver,
    UnderwritingLinkResolver,
    SubjectivityResolver,
    RenewalResolver,
    RenewalComparisonResolver,
  ],
  /** Its entities (the database, src/database.ts). */
  entities: [EarlyCallback, InsurerCheck, QuoteOption, QuoteRequest, TrackedSubjectivity, SubjectivityStep],
  /**
   * A closed tender, or one whose cover is ordered, cancels its open quote requests in the same transaction; the
   * contract is not finalised while a pre-bind subjectivity of the ordered option is open (the bind gate).
   */
  tenderChanges: [
    cancelQuoteRequestsOfClosedTender,
    cancelQuoteRequestsOnOrder,
    refuseFinaliseWithOpenSubjectivities,
  ] as readonly TenderChangeListener[],
  /** A submitted risk assessment sends the quote requests that waited for its answers (FLEXIBLE). */
  riskEvents: [sendRequestsAwaitingAnswers] as readonly RiskEventListener[],

  /**
   * The quote expiry sweep (QUOTE_EXPIRY_INTERVAL_MS), the bind reminders (SUBJECTIVITY_SWEEP_MS) and the renewal
   * reminders (RENEWAL_SWEEP_MS), on the background pool.
   */
  tasks(workerOrm: MikroORM, config: QuoteDispatchConfig, listeners: readonly QuoteEventListener[]): PeriodicTask[] {
    const expiry = new QuoteExpiry(workerOrm, { warningMs: config.expiryWarningMs, listeners });
    const reminders = new BindReminders(workerOrm, { reminderDays: config.coverOrderReminderDays, listeners });
    const renewals = new RenewalSweep(workerOrm, { leadDays: config.renewalLeadDays, listeners });
    return [
      quoteExpiryTask(expiry, config.expiryIntervalMs),
      bindRemindersTask(reminders, config.subjectivitySweepMs),
      renewalSweepTask(renewals, config.renewalSweepMs),
    ];
  },
};
