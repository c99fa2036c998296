import { type EntityManager, type FilterQuery } from '@mikro-orm/core';
import { Role, recordRead, scopeOf, sees, type AccessChannel, type AccessRecorder, type Viewer } from '../../access';
import { isRedactedFor, tendersCountedFor, tendersVisibleTo } from '../tender-audience';
import { notFound } from '../../platform/errors/domain-error';
import { Tender } from '../tender.entity';
import type { TenderHistoryEntry } from '../tender-history-entry.entity';
import { countInvitations, countTenders, recordOfEntity } from './tender-record';
import { countAtRevision } from '../feed/tender-feed';
import { TENDER_FIELD_LIST, type TenderRecord } from '../shape/tender-fields';
import type { TenderHistoryEntryView, TenderView } from './tender.types';

/**
 * Which tenders a viewer may see and which of their fields: the tender's audience rule (../tender-audience.ts).
 * Insurers see the tenders they were invited to; brokers their company's; internal users and analysts all.
 */
export const visibleTenders = tendersVisibleTo;

/**
 * How many tenders the viewer may see among those the filters admit. An insurer's are counted from its
 * invitations, so the count costs what its invitations are, not what every tender is: without filters in the
 * invitation index alone, with filters by looking up each invited tender.
 */
export function countVisibleTenders(em: EntityManager, viewer: Viewer, filters: FilterQuery<Tender>[]): Promise<number> {
  const scope = scopeOf(viewer);
  if (scope.kind === 'insurer' && filters.length === 0) return countInvitations(em, scope.insurerId);
  return countTenders(em, { $and: [tendersCountedFor(viewer), ...filters] });
}

/** Up to this many invitations, an insurer's lists read its invitations rather than walk every tender (below). */
const FEW_INVITATIONS = 1_000;

/**
 * The filter (a new one per statement: its raw fragment is consumed) that lists the tenders the viewer may see
 * fastest. Both forms of an insurer's rule select the same tenders. EXISTS walks the sort key's index and probes
 * each tender's invitations, so a page costs the tenders it passes: for an insurer invited to a handful, every
 * tender (21 ms on 100 000). The counted form reads the insurer's invitations and sorts them, which costs what they
 * are (74 ms for 31 000). Which one wins turns at about a thousand invitations on 100 000 tenders
 * (docs/benchmark.md#a-day-in-the-market-issue-31); the insurer's invitations are counted once per revision of its feed.
 */
export async function listedTenders(em: EntityManager, viewer: Viewer): Promise<() => FilterQuery<Tender>> {
  const scope = scopeOf(viewer);
  if (scope.kind !== 'insurer') return () => tendersVisibleTo(viewer);
  const invitations = await countAtRevision(em, viewer, 'invitations', () => countInvitations(em, scope.insurerId));
  return invitations <= FEW_INVITATIONS ? () => tendersCountedFor(viewer) : () => tendersVisibleTo(viewer);
}

/** A tender the viewer may see, or NOT_FOUND. */
export async function findVisibleTender(em: EntityManager, viewer: Viewer, tenderId: string): Promise<Tender> {
  const tender = await em.findOne(Tender, { $and: [{ id: tenderId }, visibleTenders(viewer)] }, { populate: ['customer'] });
  if (!tender) throw notFound(`Tender ${tenderId} not found`);
  return tender;
}

const DERIVED = TENDER_FIELD_LIST.filter((field) => field.source === 'derived');
const WITHHELD = TENDER_FIELD_LIST.filter((field) => field.withheld).map((field) => field.name);

/**
 * A tender as the viewer may see it: every declared field (tender-fields.ts), the withheld ones null when redacted.
 * The record is copied whole (its facts too, which no GraphQL field shows): a copy keeps the record's fast object
 * shape, where building the view field by field cost twice as much.
 */
export function presentTender(tender: TenderRecord, viewer: Viewer): TenderView {
  const redacted = isRedactedFor(viewer, tender.status, tender.awardedInsurerId);
  const view: Record<string, unknown> = Object.assign<{ redacted: boolean }, object>({ redacted }, tender);
  for (const field of DERIVED) view[field.name] = field.value(tender);
  if (redacted) for (const name of WITHHELD) view[name] = null;
  return view as unknown as TenderView;
}

/**
 * A tender a mutation has just changed, as the viewer may now see it: the answer carries its personal data unless
 * redacted, so it is recorded like a read (`field`, the mutation).
 */
export function presentTenderEntity(
  tender: Tender,
  context: { viewer: Viewer; accessLog: AccessRecorder; channel?: AccessChannel },
  field: string,
): TenderView {
  const view = presentTender(recordOfEntity(tender), context.viewer);
  if (!view.redacted) recordRead(context, view.id, field);
  return view;
}

/** The renewal decision and the renewal tender are the broker's and its client's business (docs/renewals.md). */
const BROKERS_RENEWAL_STEPS = new Set(['RENEWAL_DECIDED', 'RENEWED']);
/** The incumbent learns that notice was given, not the client's reason for it. */
const REASON_NOT_FOR_INSURERS = new Set(['NON_RENEWAL_NOTIFIED']);

/**
 * History: in full for brokers, internal users and analysts; insurers see no actors, and none of a withheld tender.
 * Advice exports only whoever sees the advice (the tender's broker, internal users).
 */
export function presentHistory(entries: TenderHistoryEntry[], redacted: boolean, viewer: Viewer): TenderHistoryEntryView[] {
  if (redacted) return [];
  const insurer = viewer.role === Role.INSURER;
  // An insurer sees the binding steps that concern it only (a declined order's, its own subjectivities'), and none
  // of the broker's own renewal steps.
  const shown = entries.filter(
    (entry) =>
      (sees.advice(viewer) || !entry.adviceDocumentId) &&
      (!insurer || !entry.insurerId || entry.insurerId === viewer.insurerId) &&
      (!insurer || !BROKERS_RENEWAL_STEPS.has(entry.step ?? '')),
  );
  return shown.map((entry) => ({
    at: entry.at,
    actor: sees.actors(viewer) ? entry.actor : null,
    actorRole: entry.actorRole,
    fromStatus: entry.fromStatus ?? null,
    toStatus: entry.toStatus,
    reason: insurer && REASON_NOT_FOR_INSURERS.has(entry.step ?? '') ? null : (entry.reason ?? null),
    step: entry.step ?? null,
    subjectivityId: entry.subjectivityId ?? null,
    adviceExport: entry.adviceDocumentId
      ? { format: entry.adviceFormat!, documentId: entry.adviceDocumentId, sha256: entry.adviceSha256! }
      : null,
  }));
}
