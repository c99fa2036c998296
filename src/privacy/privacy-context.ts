import type { EntityManager } from '@mikro-orm/core';
import type { DocumentContext, DocumentServices } from '../documents';

/** A customer was erased: its broker companies hear of it by ids only (webhooks: CUSTOMER_ERASED). */
interface CustomerErased {
  customerId: string;
  /** The customer's tenders, by broker company. */
  tendersByBrokerCompany: ReadonlyMap<string, readonly string[]>;
  at: Date;
}

/** Runs in the erasure's transaction. */
export type CustomerErasureListener = (em: EntityManager, event: CustomerErased) => Promise<void>;

/** What an erasure needs beside the database: built once by the composition. */
export interface ErasureServices {
  documents: Pick<DocumentServices, 'store'>;
  listeners: readonly CustomerErasureListener[];
}

export interface PrivacyContext extends DocumentContext {
  erasure: ErasureServices;
}
