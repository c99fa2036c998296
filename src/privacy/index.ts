/** The face of privacy: who read a customer's data (the access log), the customer data export, and erasure of a
 * customer's personal data on request and by retention (docs/privacy.md). */
export { AccessLogBuffer } from './access-log/access-log-buffer';
export { sweepAccessLog } from './access-log/access-log-retention';
export { customerDataExport } from './export/customer-export';
export { CustomerErasure } from './customer-erasure.entity';
export { ErasureTrigger } from './erasure-trigger';
export type { CustomerErasureListener, ErasureServices, PrivacyContext } from './privacy-context';
export { eraseCustomer } from './erasure/customer-erasure.service';
export { presentErasure } from './erasure/customer-erasure.resolver';
export { PERSONAL_DATA } from './personal-data';
// module.ts: what the composition (createApp) takes of privacy: its resolvers, entities and periodic tasks
export { privacyModule } from './module';
