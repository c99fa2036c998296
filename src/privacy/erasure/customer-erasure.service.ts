import type { EntityManager } from '@mikro-orm/core';
import { Customer, type ErasedPart } from '../../parties';
import { Tender, TenderInvitation, insurersInvited, partiesChanged, tenderChanged } from '../../tenders';
import { badInput, notFound } from '../../platform/errors/domain-error';
import { problemsOf } from '../../platform/validation/validate';
import { comparableText } from '../../platform/validation/rules';
import { CustomerErasure } from '../customer-erasure.entity';
import { ErasureTrigger } from '../erasure-trigger';
import type { ErasureServices } from '../privacy-context';
import { PERSONAL_DATA } from '../personal-data';
import { EraseCustomerRules } from '../privacy-rules';

export interface ErasureRequest {
  customerId: string;
  reason: string;
  /** The app_id that asked (`cli`, `retention` for the schedule's own). */
  by: string;
  trigger: ErasureTrigger;
  /** Retention only: erase only if every tender of the customer still ended before this instant. */
  endedBefore?: Date;
}

export interface ErasureOutcome {
  erasure: CustomerErasure;
  /**
   * The customer had been erased before: this erasure removed again what its tenders held since (a request), or
   * nothing (the retention sweep, which erases only customers not erased yet).
   */
  alreadyErased: boolean;
}

/** A tender of the customer that has not ended, or ended at or after `before`: the customer is not due yet. */
const NOT_DUE = `select 1 from tender t where t.customer_id = ? and (t.status not in ('CLOSED', 'SUCCESSFUL')
  or coalesce((select max(h.at) from tender_history_entry h where h.tender_id = t.id and h.to_status = t.status), t.updated_at) >= ?)`;

/**
 * Erases what identifies a customer and the natural persons of its tenders (docs/privacy.md), in one transaction:
 * each feature erases its own part (`PERSONAL_DATA`: the customer and persons in charge, the tenders' risk
 * information and history reasons, the quote requests' copies and insurers' free text, the documents, their bytes
 * after the commit). What the market needs stays: tenders, statuses, dates, products, lines of business, limits,
 * premiums; the open quote requests are cancelled (no answer is stored for them afterwards). This keeps the lock,
 * the due check, the record, the audiences' revisions and the listeners. Claiming the
 * customer row first makes it safe on several instances: a second erasure waits for the first. Erasing again is
 * idempotent in effect: a request erases whatever personal data the tenders hold by then the same way, and is
 * recorded as an erasure of its own; the retention sweep leaves an erased customer alone.
 */
export async function eraseCustomer(em: EntityManager, services: ErasureServices, request: ErasureRequest): Promise<ErasureOutcome | null> {
  const problems = problemsOf(EraseCustomerRules, { customerId: request.customerId, reason: request.reason });
  if (problems.length > 0) throw badInput('The erasure is invalid', problems);
  const reason = request.reason.trim();
  const afterCommit: NonNullable<ErasedPart<ErasureServices>['afterCommit']>[] = [];
  const outcome = await em.fork().transactional(async (tx) => {
    // The customer's row first, written before anything is read: of two erasures at once (two instances, a request
    // and the retention sweep) the second waits here for the first to commit (PostgreSQL's row lock, SQLite's one
    // writer), then reads the customer erased and changes nothing.
    const locked = await tx.nativeUpdate(Customer, { id: request.customerId }, { id: request.customerId });
    if (locked === 0) throw notFound(`Customer ${request.customerId} not found`);
    const customer = await tx.findOneOrFail(Customer, { id: request.customerId }, { refresh: true });
    const alreadyErased = Boolean(customer.erasedAt);
    if (alreadyErased && request.trigger === ErasureTrigger.RETENTION) {
      return {
        erasure: await tx.findOneOrFail(CustomerErasure, { customerId: customer.id }, { orderBy: { erasedAt: 'desc' } }),
        alreadyErased,
      };
    }
    if (namesTheCustomer(reason, customer)) {
      throw badInput('The erasure is invalid', [
        { parameter: 'reason', message: 'must not name the customer: it is kept after the erasure' },
      ]);
    }
    if (request.endedBefore && (await notDue(tx, customer.id, request.endedBefore))) return null;
    const at = new Date();
    const tenders = (
      await tx.find(Tender, { customer: customer.id }, { fields: ['id', 'brokerCompany', 'personInCharge'], orderBy: { id: 'asc' } })
    ).map((tender) => ({ id: tender.id, brokerCompanyId: tender.brokerCompany.id, personInChargeId: tender.personInCharge.id }));
    // Erased again: the customer and its tenders keep the time of their first erasure.
    const scope = { customerId: customer.id, tenders, at, erasedAt: customer.erasedAt ?? at };
    const counts = { persons: 0, documents: 0 };
    for (const part of PERSONAL_DATA) {
      const erased = await part.erase(tx, scope);
      counts.persons += erased.persons ?? 0;
      counts.documents += erased.documents ?? 0;
      if (erased.afterCommit) afterCommit.push(erased.afterCommit);
    }

    const tendersByBrokerCompany = new Map<string, string[]>();
    for (const tender of tenders) {
      const ids = tendersByBrokerCompany.get(tender.brokerCompanyId) ?? [];
      ids.push(tender.id);
      tendersByBrokerCompany.set(tender.brokerCompanyId, ids);
    }
    // What every audience of these tenders sees changed: each broker company's (with everyone's) once, and every
    // invited insurer's, rather than one raise per tender.
    for (const [brokerCompanyId, ids] of tendersByBrokerCompany) await tenderChanged(tx, { id: ids[0], brokerCompanyId });
    const invitations = await tx.find(TenderInvitation, { tender: { customer: customer.id } }, { fields: ['insurer'] });
    await insurersInvited(
      tx,
      invitations.map((invitation) => invitation.insurer.id),
    );
    // Persons in charge show in tenders of other customers' lists too (a stand-in replaced them here, or they were emptied).
    if (counts.persons > 0) await partiesChanged(tx);
    const erasure = tx.create(CustomerErasure, {
      customerId: customer.id,
      erasedAt: at,
      erasedBy: request.by,
      trigger: request.trigger,
      reason,
      tenders: tenders.length,
      documents: counts.documents,
      persons: counts.persons,
    });
    for (const listener of services.listeners) await listener(tx, { customerId: customer.id, tendersByBrokerCompany, at });
    await tx.flush();
    return { erasure, alreadyErased };
  });
  // What lives outside the database (the documents' bytes) goes once the erasure is committed for good; if this fails
  // or the process stops first, the sweeper finishes it (documents/document-removal.entity.ts): not the erasure's error.
  for (const work of afterCommit) await work(em.fork(), services).catch(() => undefined);
  return outcome;
}

/**
 * A reason that would keep what the erasure removes: the customer's name or company id, compared as a reader sees
 * them (rules.ts `comparableText`: NFKC, case folded, without default-ignorable code points), so neither case,
 * full-width letters nor an invisible character hides the name.
 */
function namesTheCustomer(reason: string, customer: Customer): boolean {
  const text = comparableText(reason);
  return [customer.name, customer.companyId].some((value) => {
    const name = comparableText(value);
    return name.length >= 3 && text.includes(name);
  });
}

async function notDue(tx: EntityManager, customerId: string, before: Date): Promise<boolean> {
  const rows = (await execute(tx, `${NOT_DUE} limit 1`, [customerId, tx.getPlatform().processDateProperty(before)], 'all')) as unknown[];
  return rows.length > 0;
}

function execute(tx: EntityManager, sql: string, params: unknown[], method: 'run' | 'all' = 'run') {
  return tx.getConnection().execute(sql, params, method, tx.getTransactionContext());
}
