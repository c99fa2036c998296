/** The face of privacy: erasure of a customer's personal data, on request and by retention (docs/privacy.md). */
export { CustomerErasure } from './customer-erasure.entity';
export { ErasureTrigger } from './erasure-trigger';
export type { CustomerErasureListener, ErasureServices, PrivacyContext } from './privacy-context';
export { eraseCustomer } from './erasure/customer-erasure.service';
export { CustomerErasureResolver, presentErasure } from './erasure/customer-erasure.resolver';
export { RetentionSweep } from './retention/retention-sweep';
