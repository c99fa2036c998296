import type { EntityManager } from '@mikro-orm/core';
import { Address, Customer, Person } from '../../parties';
import { QuoteOption, QuoteRequest, cancelQuoteRequestsOfErasedCustomer } from '../../quotes';
import { Tender, insurersInvited, partiesChanged, tenderChanged } from '../../tenders';
import { deleteTenderDocuments, removeDocumentBytes } from '../../documents';
import { badInput, notFound } from '../../platform/errors/domain-error';
import { problemsOf } from '../../platform/validation/validate';
import { comparableText } from '../../platform/validation/rules';
import { CustomerErasure } from '../customer-erasure.entity';
import { ErasureTrigger } from '../erasure-trigger';
import type { ErasureServices } from '../privacy-context';
import { EraseCustomerRules } from '../privacy-rules';
import { ERASED, erasedJson } from './erased-values';

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

const ERASED_PERSON = { accountId: ERASED, email: ERASED, firstName: ERASED, lastName: ERASED, salutation: ERASED };

/** A tender of the customer that has not ended, or ended at or after `before`: the customer is not due yet. */
const NOT_DUE = `select 1 from tender t where t.customer_id = ? and (t.status not in ('CLOSED', 'SUCCESSFUL')
  or coalesce((select max(h.at) from tender_history_entry h where h.tender_id = t.id and h.to_status = t.status), t.updated_at) >= ?)`;

/**
 * Erases what identifies a customer and the natural persons of its tenders (docs/privacy.md), in one transaction:
 * the customer's name, company id and address; its tenders' risk information strings, history reasons and
 * persons in charge; its quote requests' stored risk information and insurers' free text; its documents (their
 * bytes after the commit). What the market needs stays: tenders, statuses, dates, products, lines of business,
 * limits, premiums; the open quote requests are cancelled (no answer is stored for them afterwards). Claiming the
 * customer row first makes it safe on several instances: a second erasure waits for the first. Erasing again is
 * idempotent in effect: a request erases whatever personal data the tenders hold by then the same way, and is
 * recorded as an erasure of its own; the retention sweep leaves an erased customer alone.
 */
export async function eraseCustomer(em: EntityManager, services: ErasureServices, request: ErasureRequest): Promise<ErasureOutcome | null> {
  const problems = problemsOf(EraseCustomerRules, { customerId: request.customerId, reason: request.reason });
  if (problems.length > 0) throw badInput('The erasure is invalid', problems);
  const reason = request.reason.trim();
  let documentsDeleted = 0;
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
    // Erased again: the customer and its tenders keep the time of their first erasure.
    const erasedAt = customer.erasedAt ?? at;
    await tx.nativeUpdate(Customer, { id: customer.id }, { erasedAt, name: ERASED, companyId: ERASED, address: new Address() });

    const tenders = await tx.find(
      Tender,
      { customer: customer.id },
      { fields: ['id', 'brokerCompany', 'personInCharge', 'riskInformation'], orderBy: { id: 'asc' } },
    );
    const tenderIds = tenders.map((tender) => tender.id);
    for (const tender of tenders) {
      if (tender.riskInformation) tender.riskInformation = erasedJson(tender.riskInformation) as Record<string, unknown>;
    }
    await tx.flush();
    // The version too: a status change that read a tender before this commit fails its optimistic lock (CONFLICT)
    // rather than storing a reason on an erased tender (docs/privacy.md "After the erasure").
    const platform = tx.getPlatform();
    await execute(tx, 'update tender set erased_at = coalesce(erased_at, ?), updated_at = ?, version = version + 1 where customer_id = ?', [
      platform.processDateProperty(at),
      platform.processDateProperty(at),
      customer.id,
    ]);
    await execute(
      tx,
      `update tender_history_entry set reason = ? where reason is not null and tender_id in (select id from tender where customer_id = ?)`,
      [ERASED, customer.id],
    );
    await cancelQuoteRequestsOfErasedCustomer(tx, customer.id);
    await eraseQuoteRequests(tx, customer.id);
    const documents = await deleteTenderDocuments(tx, tenderIds);
    documentsDeleted = documents;
    const persons = await erasePersons(tx, customer.id, tenders);

    const tendersByBrokerCompany = new Map<string, string[]>();
    for (const tender of tenders) {
      const ids = tendersByBrokerCompany.get(tender.brokerCompany.id) ?? [];
      ids.push(tender.id);
      tendersByBrokerCompany.set(tender.brokerCompany.id, ids);
    }
    // What every audience of these tenders sees changed: each broker company's (with everyone's) once, and every
    // invited insurer's, rather than one raise per tender.
    for (const [brokerCompanyId, ids] of tendersByBrokerCompany) await tenderChanged(tx, { id: ids[0], brokerCompanyId });
    const invited = (await execute(
      tx,
      'select distinct insurer_id from tender_invitation where tender_id in (select id from tender where customer_id = ?)',
      [customer.id],
      'all',
    )) as { insurer_id: string }[];
    await insurersInvited(
      tx,
      invited.map((row) => row.insurer_id),
    );
    // Persons in charge show in tenders of other customers' lists too (a stand-in replaced them here, or they were emptied).
    if (persons > 0) await partiesChanged(tx);
    const erasure = tx.create(CustomerErasure, {
      customerId: customer.id,
      erasedAt: at,
      erasedBy: request.by,
      trigger: request.trigger,
      reason,
      tenders: tenders.length,
      documents,
      persons,
    });
    for (const listener of services.listeners) await listener(tx, { customerId: customer.id, tendersByBrokerCompany, at });
    await tx.flush();
    return { erasure, alreadyErased };
  });
  // The bytes go once the documents are gone for good; if this fails or the process stops first, the sweeper
  // finishes it (documents/document-removal.entity.ts), so an error here is not the erasure's.
  if (documentsDeleted > 0) {
    await removeDocumentBytes(em.fork(), services.documents).catch(() => undefined);
  }
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

/** The stored copies of risk information, and what insurers wrote in their own words (it may name the customer). */
async function eraseQuoteRequests(tx: EntityManager, customerId: string): Promise<void> {
  const requests = await tx.find(QuoteRequest, { tender: { customer: customerId } }, { populate: ['riskInformation'] });
  for (const request of requests) {
    request.riskInformation = erasedJson(request.riskInformation) as Record<string, unknown>;
    request.riskInformationBytes = Buffer.byteLength(JSON.stringify(request.riskInformation));
    for (const field of ['underwriterReason', 'quoteNote', 'lastErrorDetail', 'failureDetail'] as const) {
      if (request[field]) request[field] = ERASED;
    }
  }
  const options = await tx.find(QuoteOption, { quoteRequest: { tender: { customer: customerId } }, subjectivities: { $ne: null } });
  for (const option of options) {
    option.subjectivities = option.subjectivities!.map((subjectivity) => ({ ...subjectivity, text: ERASED }));
  }
  await tx.flush();
}

/**
 * The persons in charge of the customer's tenders. They are the broker's employees, and may be in charge of
 * other customers' tenders too: a person in charge of this customer's tenders alone is emptied in place; one
 * also in charge of others' is replaced on this customer's tenders by an empty stand-in of the same broker
 * company, and stays as it is on the others'. Answers how many were emptied or replaced.
 */
async function erasePersons(tx: EntityManager, customerId: string, tenders: readonly Pick<Tender, 'personInCharge'>[]): Promise<number> {
  const personIds = [...new Set(tenders.map((tender) => tender.personInCharge.id))];
  for (const personId of personIds) {
    const elsewhere = await tx.count(Tender, { personInCharge: personId, customer: { $ne: customerId } });
    if (elsewhere === 0) {
      await tx.nativeUpdate(Person, { id: personId }, ERASED_PERSON);
      continue;
    }
    const person = await tx.findOneOrFail(Person, { id: personId });
    const standIn = tx.create(Person, { ...ERASED_PERSON, brokerCompany: person.brokerCompany });
    await tx.flush();
    await tx.nativeUpdate(Tender, { customer: customerId, personInCharge: personId }, { personInCharge: standIn.id });
  }
  return personIds.length;
}

function execute(tx: EntityManager, sql: string, params: unknown[], method: 'run' | 'all' = 'run') {
  return tx.getConnection().execute(sql, params, method, tx.getTransactionContext());
}
