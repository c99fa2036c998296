import type { EntityManager } from '@mikro-orm/core';
import type { Address, Person } from '../../parties';
import { Customer } from '../../parties';
import { Tender, TenderHistoryEntry } from '../../tenders';
import { QuoteOption, QuoteRequest } from '../../quotes';
import { Document } from '../../documents';
import { notFound } from '../../platform/errors/domain-error';
import { LIMITS } from '../../platform/validation/rules';
import { AccessLogEntry } from '../access-log/access-log-entry.entity';
import { accessLogOfTenders } from '../access-log/access-log.service';

/**
 * One part of everything held about a customer (GDPR art. 15 and 20): the customer, and up to LIMITS.exportTenders
 * of its tenders from `skip` (oldest first) with their history, quote requests (risk information and answers
 * included), documents' metadata and access log. `tenders_total` and `next_skip` tell whether more parts follow:
 * GraphQL pages through them, the CLI streams them all, and no part holds more than its cap in memory.
 */
export async function customerDataExport(em: EntityManager, customerId: string, skip = 0): Promise<Record<string, unknown>> {
  const customer = await em.findOne(Customer, { id: customerId });
  if (!customer) throw notFound(`Customer ${customerId} not found`);
  const [tenders, total] = await em.findAndCount(
    Tender,
    { customer: customerId },
    {
      orderBy: { createdAt: 'asc', id: 'asc' },
      offset: skip,
      limit: LIMITS.exportTenders,
      populate: ['lineOfBusiness', 'brokerCompany', 'personInCharge'],
    },
  );
  const ids = tenders.map((tender) => tender.id);
  const [history, requests, documents, accessLogCount] = await Promise.all([
    em.find(TenderHistoryEntry, { tender: { $in: ids } }, { orderBy: { at: 'asc', id: 'asc' } }),
    em.find(QuoteRequest, { tender: { $in: ids } }, { orderBy: { createdAt: 'asc', id: 'asc' }, populate: ['insurer', 'riskInformation'] }),
    em.find(Document, { tender: { $in: ids } }, { orderBy: { createdAt: 'asc', id: 'asc' } }),
    em.count(AccessLogEntry, { tenderId: { $in: ids } }),
  ]);
  const options = await em.find(
    QuoteOption,
    { quoteRequest: { $in: requests.map((request) => request.id) } },
    { orderBy: { position: 'asc' } },
  );
  const accessLog = await accessLogOfTenders(em, ids, LIMITS.exportAccessLogEntries);
  const byTender = <T>(items: T[], tenderOf: (item: T) => string) => {
    const grouped = new Map<string, T[]>();
    for (const item of items) grouped.set(tenderOf(item), [...(grouped.get(tenderOf(item)) ?? []), item]);
    return (tenderId: string) => grouped.get(tenderId) ?? [];
  };
  const historyOf = byTender(history, (entry) => entry.tender.id);
  const requestsOf = byTender(requests, (request) => request.tender.id);
  const documentsOf = byTender(documents, (document) => document.tender.id);
  const accessOf = byTender(accessLog, (entry) => entry.tenderId);
  const optionsOf = byTender(options, (option) => option.quoteRequest.id);
  const next = skip + tenders.length;
  return {
    exported_at: new Date().toISOString(),
    customer: { _id: customer.id, company_id: customer.companyId, name: customer.name, address: address(customer.address) },
    tenders_total: total,
    skip,
    next_skip: next < total ? next : null,
    access_log_complete: accessLogCount <= LIMITS.exportAccessLogEntries,
    tenders: tenders.map((tender) => ({
      _id: tender.id,
      product: tender.product,
      status: tender.status,
      tax_rate: tender.taxRate,
      line_of_business: { _id: tender.lineOfBusiness.id, name: tender.lineOfBusiness.name },
      broker_company: { _id: tender.brokerCompany.id, name: tender.brokerCompany.name },
      person_in_charge: person(tender.personInCharge),
      created_at: tender.createdAt.toISOString(),
      updated_at: tender.updatedAt.toISOString(),
      changes_metadata: tender.changesMetadata,
      risk_information: tender.riskInformation ?? null,
      awarded_insurer_id: tender.awardedInsurer?.id ?? null,
      policy_number: tender.policyNumber ?? null,
      policy_confirmed_at: tender.policyConfirmedAt?.toISOString() ?? null,
      history: historyOf(tender.id).map((entry) => ({
        at: entry.at.toISOString(),
        actor: entry.actor,
        actor_role: entry.actorRole,
        from_status: entry.fromStatus ?? null,
        to_status: entry.toStatus,
        reason: entry.reason ?? null,
      })),
      quote_requests: requestsOf(tender.id).map((request) => ({
        _id: request.id,
        insurer: { _id: request.insurer.id, name: request.insurer.name },
        status: request.status,
        limits: request.limits,
        risk_information: request.riskInformation,
        requested_by: request.requestedBy,
        created_at: request.createdAt.toISOString(),
        quoted_at: request.quotedAt?.toISOString() ?? null,
        valid_until: request.validUntil?.toISOString() ?? null,
        currency: request.currency ?? null,
        underwriter_reason: request.underwriterReason ?? null,
        quote_options: optionsOf(request.id).map((option) => ({
          insurance_sum: option.insuranceSum,
          deductible: option.deductible,
          premium: option.premium,
          subjectivities: option.subjectivities ?? [],
        })),
      })),
      documents: documentsOf(tender.id).map((document) => ({
        _id: document.id,
        kind: document.kind,
        state: document.state,
        filename: document.filename,
        content_type: document.contentType,
        size: document.size,
        sha256: document.sha256,
        added_by: document.addedBy,
        added_by_role: document.addedByRole,
        quote_request_id: document.quoteRequest?.id ?? null,
        created_at: document.createdAt.toISOString(),
      })),
      access_log: accessOf(tender.id).map((entry) => ({
        at: entry.at.toISOString(),
        app_id: entry.appId,
        role: entry.role,
        party: { _id: entry.party.id, name: entry.party.name },
        surface: entry.surface,
        operation: entry.operation,
        count: entry.count,
      })),
    })),
  };
}

const address = (of: Address) => ({ street: of.street, house_number: of.houseNumber, zip: of.zip, city: of.city, country: of.country });

const person = (of: Person) => ({
  _id: of.id,
  account_id: of.accountId,
  email: of.email,
  first_name: of.firstName,
  last_name: of.lastName,
  salutation: of.salutation,
});
