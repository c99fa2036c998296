import type { EntityManager } from '@mikro-orm/core';
import { actsAsWinner, assertMay, type Viewer } from '../../access';
import { DomainError, badInput, forbidden } from '../../platform/errors/domain-error';
import { OptionalReason, PolicyNumber, RequiredReason } from '../tender-rules';
import { problemsOf } from '../../platform/validation/validate';
import { flushInTransaction } from '../../platform/db/flush-in-transaction';
import { TenderHistoryEntry } from '../tender-history-entry.entity';
import { findVisibleTender } from '../read/tender-access';
import { tenderChanged } from '../feed/tender-feed';
import { Tender } from '../tender.entity';
import { OPEN_STATUSES, TenderStatus, statusChangeKey } from '../tender-status';

export type TenderOperation = 'startNegotiation' | 'orderCover' | 'finaliseContract' | 'closeTender' | 'reopenTender';

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
  finaliseContract: { from: [TenderStatus.IN_COVERNOTE], to: TenderStatus.SUCCESSFUL },
  closeTender: { from: OPEN_STATUSES, to: TenderStatus.CLOSED },
  reopenTender: { from: [TenderStatus.CLOSED], to: TenderStatus.REOPENED },
};

/** How far a partner's clock may run ahead of ours when it states when something happened. */
const CLOCK_SKEW_MS = 60_000;

/** A change of a tender, as the features that react to it see it inside its transaction. */
type TenderChange =
  | { kind: 'statusChanged'; tender: Tender; from: TenderStatus; to: TenderStatus; by: Viewer; reason: string | null; at: Date }
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
      prepare: (tender) => {
        tender.orderedOption = null;
        tender.awardedInsurer = null;
      },
    });
  }

  /** Only the insurer of the ordered option (or an internal user) finalises the contract. */
  finaliseContract(tenderId: string): Promise<Tender> {
    return this.change(tenderId, 'finaliseContract', {
      guard: (tender) => this.assertAwardedInsurer(tender, 'finalise the contract'),
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
    await steps.prepare?.(tender);
    const now = new Date();
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
    });
    // Optimistic locking: the version check fails the later of two concurrent changes (CONFLICT, platform/errors/normalize.ts).
    await this.flushWith({ kind: 'statusChanged', tender, from, to: rule.to, by: this.viewer, reason, at: now });
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
