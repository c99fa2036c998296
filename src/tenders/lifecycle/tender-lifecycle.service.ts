import type { EntityManager } from '@mikro-orm/core';
import { actsAsWinner, assertMay, type Viewer } from '../../access';
import { DateTime } from 'luxon';
import { DomainError, badInput, forbidden, type FieldProblem } from '../../platform/errors/domain-error';
import { OptionalReason, PolicyNumber, RequiredReason } from '../tender-rules';
import { problemsOf } from '../../platform/validation/validate';
import { flushInTransaction } from '../../platform/db/flush-in-transaction';
import { TenderHistoryEntry } from '../tender-history-entry.entity';
import { findVisibleTender } from '../read/tender-access';
import { tenderChanged } from '../feed/tender-feed';
import { Tender } from '../tender.entity';
import { OPEN_STATUSES, TenderStatus, statusChangeKey } from '../tender-status';

export type TenderOperation = 'startNegotiation' | 'orderCover' | 'declineCoverOrder' | 'finaliseContract' | 'closeTender' | 'reopenTender';

interface Transition {
  from: readonly TenderStatus[];
  to: TenderStatus;
}

/** DESIGN 3 "Tender lifecycle", the whole table: anything else is INVALID_TRANSITION. Who may: the access policy. */
export const TRANSITIONS: Record<TenderOperation, Transition> = {
  startNegotiation: { from: [TenderStatus.QUOTES_AVAILABLE, TenderStatus.REOPENED], to: TenderStatus.IN_NEGOTIATION },
  orderCover: {
    from: [TenderStatus.QUOTES_AVAILABLE, TenderStatus.IN_NEGOTIATION, TenderStatus.REOPENED],
    to: TenderStatus.IN_COVERNOTE,
  },
  /** The insurer of the ordered option says no: the broker negotiates on and may order another option. */
  declineCoverOrder: { from: [TenderStatus.IN_COVERNOTE], to: TenderStatus.IN_NEGOTIATION },
  finaliseContract: { from: [TenderStatus.IN_COVERNOTE], to: TenderStatus.SUCCESSFUL },
  closeTender: { from: OPEN_STATUSES, to: TenderStatus.CLOSED },
  reopenTender: { from: [TenderStatus.CLOSED], to: TenderStatus.REOPENED },
};

/** The zone whose calendar a policy period's days are (the default start: today there). */
const POLICY_ZONE = 'Europe/Berlin';
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const isDay = (value: string): boolean => DAY.test(value) && DateTime.fromISO(value, { zone: 'UTC' }).isValid;

/** One year less a day from `start`: a period from 2026-03-01 ends 2027-02-28 (and from 2028-02-29, 2029-02-27). */
const defaultPeriodEnd = (start: string): string =>
  DateTime.fromISO(start, { zone: 'UTC' }).plus({ years: 1 }).minus({ days: 1 }).toISODate()!;

function periodProblems(period: { start?: string | null; end?: string | null }): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const key of ['start', 'end'] as const) {
    const value = period[key];
    if (value != null && !isDay(value)) problems.push({ parameter: `policyPeriod.${key}`, message: 'must be a date YYYY-MM-DD' });
  }
  return problems;
}

/** An order that no longer stands: the option, its insurer and the answer to it. */
function dropOrder(tender: Tender): void {
  tender.orderedOption = null;
  tender.awardedInsurer = null;
  tender.coverOrderedAt = null;
  tender.coverAcceptedAt = null;
  tender.inceptionDate = null;
  tender.coverOrderOverdueAt = null;
}

/** How far a partner's clock may run ahead of ours when it states when something happened. */
const CLOCK_SKEW_MS = 60_000;

/** A change of a tender, as the features that react to it see it inside its transaction. */
type TenderChange =
  | {
      kind: 'statusChanged';
      tender: Tender;
      from: TenderStatus;
      to: TenderStatus;
      by: Viewer;
      reason: string | null;
      at: Date;
      operation: TenderOperation;
    }
  /** The insurer of the ordered option accepted the order (the status stays IN_COVERNOTE). */
  | { kind: 'coverOrderAccepted'; tender: Tender; by: Viewer; at: Date; inceptionDate: string }
  | { kind: 'policyDocumentationConfirmed'; tender: Tender; by: Viewer; at: Date; documentId: string | null };

/**
 * Runs inside the transaction of a tender's change (a status change, the policy documentation's confirmation): its
 * writes commit with the change or not at all.
 * Features above tenders (quotes) react to changes through these, so tenders never import them.
 */
export type TenderChangeListener = (em: EntityManager, change: TenderChange) => Promise<void>;

/** How a transition is carried out beyond the table: checks and preparations of the operation. */
interface TransitionSteps {
  /** The reason as given, checked by `validReason` once the tender is loaded. */
  reason?: { given: string | null | undefined; required: boolean };
  /** Runs before the status check. */
  guard?: (tender: Tender) => void;
  prepare?: (tender: Tender) => Promise<void> | void;
  /** The history entry's step (docs/lifecycle.md, "Binding"), when the transition is one. */
  step?: string;
}

/**
 * The reason as stored: trimmed, null when empty; its rules (required or not, length, the text rule) first. A tender
 * whose customer was erased takes no free text, which could name a person (docs/privacy.md "After the erasure"): its
 * reason must be empty, and is not required.
 */
function validReason(reason: string | null | undefined, required: boolean, tender: Tender): string | null {
  const trimmed = reason?.trim() ?? '';
  if (tender.erasedAt && trimmed !== '') {
    throw badInput('The reason is invalid', [
      {
        parameter: 'reason',
        message: "must be empty: the personal data of this tender's customer was erased, and its tenders keep no free text",
      },
    ]);
  }
  const problems = problemsOf(required && !tender.erasedAt ? RequiredReason : OptionalReason, trimmed, 'parameter', 'reason');
  if (problems.length > 0) throw badInput('The reason is invalid', problems);
  return trimmed === '' ? null : trimmed;
}

/** Moves tenders through their lifecycle; every change stamps metadata and history, under optimistic locking. */
export class TenderLifecycleService {
  constructor(
    private readonly em: EntityManager,
    private readonly viewer: Viewer,
    /** Who reacts inside the change's transaction; the composition passes every feature's (quotes, webhooks). */
    private readonly listeners: readonly TenderChangeListener[],
    /** The gateway's clock (the request context's): when a change happens. */
    private readonly now: () => Date = () => new Date(),
  ) {}

  startNegotiation(tenderId: string): Promise<Tender> {
    return this.change(tenderId, 'startNegotiation');
  }

  /** Closing ends the tender; the listeners (quotes) cancel what hangs on it in the same transaction. */
  closeTender(tenderId: string, reason: string): Promise<Tender> {
    return this.change(tenderId, 'closeTender', { reason: { given: reason, required: true } });
  }

  /** A reopened tender starts over: an earlier order to cover no longer stands. */
  reopenTender(tenderId: string, reason?: string | null): Promise<Tender> {
    return this.change(tenderId, 'reopenTender', {
      reason: { given: reason, required: false },
      prepare: dropOrder,
    });
  }

  /**
   * Only the insurer of the ordered option (or an internal user) finalises the contract. A pending order counts as
   * accepted; the policy period is recorded (default: from the inception date, or today in Europe/Berlin, one year
   * less a day). The quotes' listener refuses it while a pre-bind subjectivity of the ordered option is open.
   */
  finaliseContract(tenderId: string, period: { start?: string | null; end?: string | null } = {}): Promise<Tender> {
    const problems = periodProblems(period);
    if (problems.length > 0) throw badInput('The policy period is invalid', problems);
    return this.change(tenderId, 'finaliseContract', {
      guard: (tender) => this.assertAwardedInsurer(tender, 'finalise the contract'),
      prepare: (tender) => {
        const now = this.now();
        tender.coverAcceptedAt ??= now;
        const start = period.start ?? tender.inceptionDate ?? DateTime.fromJSDate(now, { zone: POLICY_ZONE }).toISODate()!;
        const end = period.end ?? defaultPeriodEnd(start);
        if (end < start)
          throw badInput('The policy period is invalid', [
            { parameter: 'policyPeriod.end', message: `must not lie before its start (${start})` },
          ]);
        tender.policyPeriodStart = start;
        tender.policyPeriodEnd = end;
      },
    });
  }

  /**
   * The insurer of the ordered option accepts the order for an inception date; the status stays IN_COVERNOTE (the
   * contract is finalised once the pre-bind subjectivities are cleared). Accepting again for the same date is harmless.
   */
  async acceptCoverOrder(tenderId: string, inceptionDate: string): Promise<Tender> {
    assertMay(this.viewer, 'acceptCoverOrder');
    if (!isDay(inceptionDate))
      throw badInput('The inception date is invalid', [{ parameter: 'inceptionDate', message: 'must be a date YYYY-MM-DD' }]);
    const tender = await this.load(tenderId);
    this.assertAwardedInsurer(tender, 'accept the order');
    if (tender.status !== TenderStatus.IN_COVERNOTE)
      throw new DomainError('INVALID_TRANSITION', `An order is answered while the tender is IN_COVERNOTE; this one is ${tender.status}`);
    if (tender.coverAcceptedAt) {
      if (tender.inceptionDate === inceptionDate) return tender;
      throw new DomainError('CONFLICT', `The order was accepted already, for ${tender.inceptionDate ?? 'no inception date'}`);
    }
    const now = this.now();
    tender.coverAcceptedAt = now;
    tender.inceptionDate = inceptionDate;
    tender.updatedAt = now;
    this.em.create(TenderHistoryEntry, {
      tender,
      at: now,
      actor: this.viewer.appId,
      actorRole: this.viewer.role,
      fromStatus: tender.status,
      toStatus: tender.status,
      reason: null,
      step: 'COVER_ACCEPTED',
      insurerId: tender.awardedInsurer?.id ?? null,
    });
    await this.flushWith({ kind: 'coverOrderAccepted', tender, by: this.viewer, at: now, inceptionDate });
    return tender;
  }

  /** The insurer of the ordered option declines the order: back to IN_NEGOTIATION, the order dropped, the reason kept. */
  declineCoverOrder(tenderId: string, reason: string): Promise<Tender> {
    return this.change(tenderId, 'declineCoverOrder', {
      reason: { given: reason, required: true },
      guard: (tender) => this.assertAwardedInsurer(tender, 'decline the order'),
      prepare: (tender) => {
        if (tender.coverAcceptedAt)
          throw new DomainError(
            'CONFLICT',
            'The order was accepted already; it is no longer declined, the contract is finalised or the tender closed',
          );
        dropOrder(tender);
      },
      step: 'COVER_DECLINED',
    });
  }

  /**
   * The winning insurer confirms the policy documentation of a SUCCESSFUL tender, optionally naming its POLICY
   * document (checked by the documents feature's listener); repeating it is harmless.
   */
  async confirmPolicyDocumentation(
    tenderId: string,
    policyNumber: string,
    confirmedAt?: Date | null,
    documentId: string | null = null,
  ): Promise<Tender> {
    assertMay(this.viewer, 'confirmPolicyDocumentation');
    const problems = problemsOf(PolicyNumber, policyNumber, 'parameter', 'policyNumber');
    if (confirmedAt && (Number.isNaN(confirmedAt.getTime()) || confirmedAt.getTime() > Date.now() + CLOCK_SKEW_MS)) {
      problems.push({ parameter: 'confirmedAt', message: 'must not lie in the future' });
    }
    if (problems.length > 0) throw badInput('The policy documentation is invalid', problems);
    const tender = await this.load(tenderId);
    this.assertAwardedInsurer(tender, 'confirm the policy documentation');
    if (tender.status !== TenderStatus.SUCCESSFUL) {
      throw new DomainError('INVALID_TRANSITION', `Policy documentation is confirmed for SUCCESSFUL tenders; this one is ${tender.status}`);
    }
    const succeededAt = tender.changesMetadata[statusChangeKey(TenderStatus.SUCCESSFUL)];
    if (confirmedAt && typeof succeededAt === 'string' && confirmedAt.getTime() < Date.parse(succeededAt)) {
      throw badInput('The policy documentation is invalid', [
        { parameter: 'confirmedAt', message: `must not lie before the contract was finalised (${succeededAt})` },
      ]);
    }
    if (tender.policyNumber) {
      if (tender.policyNumber === policyNumber && (!documentId || documentId === tender.policyDocumentId)) return tender;
      throw new DomainError('CONFLICT', `The policy documentation is confirmed already, with policy number ${tender.policyNumber}`);
    }
    const now = new Date();
    tender.policyNumber = policyNumber;
    tender.policyConfirmedAt = confirmedAt ?? now;
    tender.policyDocumentId = documentId;
    tender.updatedAt = now;
    try {
      await this.flushWith({ kind: 'policyDocumentationConfirmed', tender, by: this.viewer, at: now, documentId });
    } catch (error) {
      // A concurrent confirmation won; if it confirmed the same number, this retry is harmless too.
      const current = await this.em.fork().findOne(Tender, { id: tenderId });
      if (current?.policyNumber !== policyNumber || (documentId && current.policyDocumentId !== documentId)) throw error;
      return new TenderLifecycleService(this.em.fork(), this.viewer, this.listeners).load(tenderId);
    }
    return tender;
  }

  /**
   * Checked before any status check, with one message whatever the award state: an insurer that did not win
   * cannot tell a tender awarded to a competitor from one with no order at all.
   */
  private assertAwardedInsurer(tender: Tender, what: string): void {
    if (!actsAsWinner(this.viewer, tender.awardedInsurer?.id)) throw forbidden(`Only the insurer of the ordered option may ${what}`);
  }

  private async load(tenderId: string): Promise<Tender> {
    const tender = await findVisibleTender(this.em, this.viewer, tenderId);
    await this.em.populate(tender, ['lineOfBusiness', 'brokerCompany', 'personInCharge', 'awardedInsurer']);
    return tender;
  }

  /**
   * Cover is ordered on one option of a quote the tender received: `award` (quotes, which knows the options)
   * checks the option and sets the ordered option and the awarded insurer, after the status check.
   */
  orderCover(tenderId: string, award: (tender: Tender) => Promise<void>): Promise<Tender> {
    return this.change(tenderId, 'orderCover', { prepare: award });
  }

  /** One row of TRANSITIONS, with its history entry and the listeners, under optimistic locking in one transaction. */
  private async change(tenderId: string, operation: TenderOperation, steps: TransitionSteps = {}): Promise<Tender> {
    const rule = TRANSITIONS[operation];
    assertMay(this.viewer, operation);
    const tender = await this.load(tenderId);
    const reason = steps.reason ? validReason(steps.reason.given, steps.reason.required, tender) : null;
    steps.guard?.(tender);
    if (!rule.from.includes(tender.status)) {
      throw new DomainError(
        'INVALID_TRANSITION',
        `${operation} is not possible for a tender in status ${tender.status}; it needs ${rule.from.join(' or ')}`,
      );
    }
    const insurerId = tender.awardedInsurer?.id ?? null;
    await steps.prepare?.(tender);
    const now = this.now();
    const from = tender.status;
    tender.status = rule.to;
    tender.changesMetadata = { ...tender.changesMetadata, [statusChangeKey(rule.to)]: now.toISOString() };
    tender.updatedAt = now;
    this.em.create(TenderHistoryEntry, {
      tender,
      at: now,
      actor: this.viewer.appId,
      actorRole: this.viewer.role,
      fromStatus: from,
      toStatus: rule.to,
      reason,
      step: steps.step ?? null,
      insurerId: steps.step ? insurerId : null,
    });
    // Optimistic locking: the version check fails the later of two concurrent changes (CONFLICT, platform/errors/normalize.ts).
    await this.flushWith({ kind: 'statusChanged', tender, from, to: rule.to, by: this.viewer, reason, at: now, operation });
    return tender;
  }

  /** The changes flushed and the listeners run in one transaction: their writes commit with the change or not at all. */
  private flushWith(change: TenderChange): Promise<void> {
    return flushInTransaction(this.em, async () => {
      await tenderChanged(this.em, { id: change.tender.id, brokerCompanyId: change.tender.brokerCompany.id });
      for (const listener of this.listeners) await listener(this.em, change);
    });
  }
}
