import { ERASED, erasedJson, groupedBy, type PersonalData, type PersonalField } from '../../parties';
import { QuoteOption } from '../quote-option.entity';
import { QuoteRequest } from '../quote-request.entity';
import { SubjectivityStep, TrackedSubjectivity } from '../subjectivities/subjectivity.entity';
import { cancelQuoteRequestsOfErasedCustomer } from '../dispatch/tender-closing';

/** What insurers wrote in their own words (it may name the customer). */
const INSURER_TEXTS = ['underwriterReason', 'quoteNote', 'lastErrorDetail', 'failureDetail'] as const;

const FIELDS: readonly PersonalField[] = [
  { entity: 'QuoteRequest', property: 'riskInformation' },
  { entity: 'QuoteRequest', property: 'underwriterReason' },
  { entity: 'QuoteRequest', property: 'quoteNote', exported: false },
  { entity: 'QuoteRequest', property: 'lastErrorDetail', exported: false },
  { entity: 'QuoteRequest', property: 'failureDetail', exported: false },
  { entity: 'QuoteOption', property: 'subjectivities[].text' },
  { entity: 'TrackedSubjectivity', property: 'text' },
  { entity: 'SubjectivityStep', property: 'text' },
];

/**
 * The quote requests' part: the stored copies of risk information, the insurers' free text and the options'
 * subjectivity texts; insurer, status, limits, premiums and dates stay. The open requests are cancelled first, as a
 * close does (`cancelQuoteRequestsOfErasedCustomer`), so no answer is stored for them afterwards.
 */
export const quotePersonalData: PersonalData = {
  fields: FIELDS,
  async erase(tx, scope) {
    await cancelQuoteRequestsOfErasedCustomer(tx, scope.customerId);
    const requests = await tx.find(QuoteRequest, { tender: { customer: scope.customerId } }, { populate: ['riskInformation'] });
    for (const request of requests) {
      request.riskInformation = erasedJson(request.riskInformation) as Record<string, unknown>;
      request.riskInformationBytes = Buffer.byteLength(JSON.stringify(request.riskInformation));
      for (const field of INSURER_TEXTS) if (request[field]) request[field] = ERASED;
    }
    const options = await tx.find(QuoteOption, { quoteRequest: { tender: { customer: scope.customerId } }, subjectivities: { $ne: null } });
    for (const option of options) {
      option.subjectivities = option.subjectivities!.map((subjectivity) => ({ ...subjectivity, text: ERASED }));
    }
    // The tracked subjectivities' texts, and the broker's responses and insurers' reasons on them.
    for (const subjectivity of await tx.find(TrackedSubjectivity, { tender: { customer: scope.customerId } })) subjectivity.text = ERASED;
    const steps = await tx.find(SubjectivityStep, { subjectivity: { tender: { customer: scope.customerId } }, text: { $ne: null } });
    for (const step of steps) step.text = ERASED;
    await tx.flush();
    return {};
  },
  async export(em, scope) {
    const requests = await em.find(
      QuoteRequest,
      { tender: { $in: [...scope.tenderIds] } },
      { orderBy: { createdAt: 'asc', id: 'asc' }, populate: ['insurer', 'riskInformation'] },
    );
    const options = await em.find(
      QuoteOption,
      { quoteRequest: { $in: requests.map((request) => request.id) } },
      { orderBy: { position: 'asc' } },
    );
    const tracked = await em.find(
      TrackedSubjectivity,
      { quoteOption: { $in: options.map((option) => option.id) } },
      { orderBy: { position: 'asc' }, populate: ['steps'] },
    );
    const requestsOf = groupedBy(requests, (request) => request.tender.id);
    const optionsOf = groupedBy(options, (option) => option.quoteRequest.id);
    const trackedOf = groupedBy(tracked, (subjectivity) => subjectivity.quoteOption.id);
    return {
      tenders: new Map(
        scope.tenderIds.map((tenderId) => [
          tenderId,
          { quote_requests: requestsOf(tenderId).map((request) => exported(request, optionsOf(request.id), trackedOf)) },
        ]),
      ),
    };
  },
};

const exported = (
  request: QuoteRequest,
  options: readonly QuoteOption[],
  trackedOf: (optionId: string) => readonly TrackedSubjectivity[],
) => ({
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
  quote_options: options.map((option) => ({
    insurance_sum: option.insuranceSum,
    deductible: option.deductible,
    premium: option.premium,
    subjectivities: option.subjectivities ?? [],
    // Each as the binding tracks it (docs/lifecycle.md, "Binding"): its status and the responses and decisions on it.
    tracked_subjectivities: trackedOf(option.id).map((subjectivity) => ({
      _id: subjectivity.id,
      stage: subjectivity.stage,
      text: subjectivity.text,
      status: subjectivity.status,
      due_at: subjectivity.dueAt?.toISOString() ?? null,
      history: subjectivity.steps.getItems().map((step) => ({
        at: step.at.toISOString(),
        actor: step.actor,
        actor_role: step.actorRole,
        kind: step.kind,
        text: step.text ?? null,
        document_ids: step.documentIds ?? [],
      })),
    })),
  })),
});
