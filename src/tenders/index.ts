/** The face of tenders: what other features, the API and the composition use of a tender. */
export { LineOfBusiness } from './line-of-business.entity';
export { TenderHistoryEntry } from './tender-history-entry.entity';
export { TenderInvitation } from './tender-invitation.entity';
export { Tender } from './tender.entity';
export { lockTenderRow } from './tender-lock';
export { ALL_STATUSES, OPEN_STATUSES, TenderStatus, statusChangeKey } from './tender-status';
export { LineOfBusinessId, PolicyDocumentationBody } from './tender-rules';
// who sees a tender, and how much of it: read, feed and webhooks all apply this rule
export { audiencesOfTender, isRedactedFor, visibilityOf, type TenderFacts, type TenderVisibility } from './tender-audience';
// read/: who sees which tender, and how
export { findVisibleTender, presentTenderEntity, visibleTenders } from './read/tender-access';
export { TenderView } from './read/tender.types';
// shape/: the tender's fields, declared once: the REST JSON, the OpenAPI schemas, the creation input, what is
// personal and the exported values are derived from them
export { RenewalType } from './shape/renewal.types';
export { TENDER_FIELD_LIST, type NestedField, type Shape, type TenderField } from './shape/tender-fields';
export { exportedTenderValues, personalTenderFields, representationOf } from './shape/tender-values';
// lifecycle/: the transitions, and the listeners other features attach to them
export type { TenderContext } from './lifecycle/tender-context';
export { TenderLifecycleService, type TenderChangeListener } from './lifecycle/tender-lifecycle.service';
// feed/: the revision of what each audience sees
export { currentRevisionOf, feedRevisionOf, insurersInvited, partiesChanged, tenderChanged } from './feed/tender-feed';
// personal-data/: the tenders' part of a customer's personal data (privacy erases and exports it)
export { tenderPersonalData } from './personal-data/tender-personal-data';
export { tenderPersonsInCharge } from './personal-data/tender-persons-in-charge';
// module.ts: what the composition (the schema, the database) takes of the feature
export { tendersModule } from './module';
