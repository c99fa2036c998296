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
export { TenderResolver } from './read/tender.resolver';
export { TenderView } from './read/tender.types';
// the tender's representation, declared once: the REST JSON and the OpenAPI schemas are derived from it
export { TENDER_FIELD_LIST, type NestedField, type Shape, type TenderField } from './read/tender-fields';
// creation/: creating a tender
export { TenderCreationResolver } from './creation/tender-creation.resolver';
// lifecycle/: the transitions, and the listeners other features attach to them
export type { TenderContext } from './lifecycle/tender-context';
export { TenderLifecycleResolver } from './lifecycle/tender-lifecycle.resolver';
export { TenderLifecycleService, type TenderChangeListener } from './lifecycle/tender-lifecycle.service';
// feed/: the revision of what each audience sees
export { TenderFeed } from './feed/tender-feed.entity';
export { currentRevisionOf, feedRevisionOf, insurersInvited, partiesChanged, tenderChanged } from './feed/tender-feed';
