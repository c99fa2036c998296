import type { EntityManager } from '@mikro-orm/core';
import type { TenderContext } from '../tenders';
import type { DocumentStores } from './storage/document-stores';
import type { LinkSigner } from './download/document-links';
import type { DocumentKind } from './document-kind';

/** A document became visible: who may see it, by the access policy's rule, is said in the event. */
interface DocumentAdded {
  tender: { id: string; status: string; brokerCompanyId: string };
  documentId: string;
  kind: DocumentKind;
  /** The invited insurers that see the document (the tender's broker company always does). */
  insurerIds: string[];
  at: Date;
}

/** Runs in the transaction that makes a document visible (webhooks: DOCUMENT_ADDED). */
export type DocumentEventListener = (em: EntityManager, event: DocumentAdded) => Promise<void>;

/** What the document operations need beside a request's context: built once by the composition. */
export interface DocumentServices {
  /** The configured store for new bytes; each document's own store for reading and removing its bytes. */
  store: DocumentStores;
  links: LinkSigner;
  maxBytes: number;
  linkTtlMs: number;
  listeners: readonly DocumentEventListener[];
  /** The time an advice export states (and is deterministic for): the system clock, a fixed one in tests. */
  clock: () => Date;
}

export interface DocumentContext extends TenderContext {
  documents: DocumentServices;
  /** The gateway's address as the client reaches it (PUBLIC_URL, or the request's origin): upload URLs and links start with it. */
  publicOrigin: string;
}
