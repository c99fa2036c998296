/** The face of privacy: who read a customer's data (the access log), the customer data export, and erasure of a
 * customer's personal data on request and by retention (docs/privacy.md). */
export { AccessLogEntry } from './access-log/access-log-entry.entity';
export { AccessLogBuffer } from './access-log/access-log-buffer';
export { sweepAccessLog } from './access-log/access-log-retention';
export { AccessLogResolver } from './access-log/access-log.resolver';
export { customerDataExport } from './export/customer-export';
export { CustomerExportResolver } from './export/customer-export.resolver';
export { CustomerErasure } from './customer-erasure.entity';
export { ErasureTrigger } from './erasure-trigger';
export type { CustomerErasureListener, ErasureServices, PrivacyContext } from './privacy-context';
export { eraseCustomer } from './erasure/customer-erasure.service';
export { CustomerErasureResolver, presentErasure } from './erasure/customer-erasure.resolver';
export { RetentionSweep } from './retention/retention-sweep';
