import { Entity, Enum, Index, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../platform/db/ids';
import { LIMITS } from '../platform/validation/rules';
import { Tender } from '../tenders/tender.entity';
import { QuoteRequest } from '../quotes/quote-request.entity';
import { DocumentKind, DocumentState } from './document-kind';

/**
 * A document of a tender (docs/documents.md). Created with its upload slot (PENDING, the hash of the upload URL's
 * token, when it expires); AVAILABLE, and visible, only once its bytes arrived and matched size and SHA-256.
 */
@Entity({ tableName: 'document' })
@Index({ name: 'document_tender_created_at_idx', properties: ['tender', 'createdAt'] })
@Index({ name: 'document_state_expires_idx', properties: ['state', 'uploadExpiresAt'] })
@Index({ name: 'document_sha256_idx', properties: ['sha256'] })
export class Document {
  [OptionalProps]?: 'id' | 'state' | 'createdAt';

  @PrimaryKey({ type: 'string', length: 36 })
  id: string = newId();

  @ManyToOne({ entity: () => Tender, index: false, deleteRule: 'cascade' })
  tender!: Tender;

  @Enum({ items: () => DocumentKind, type: 'string', length: 16 })
  kind!: DocumentKind;

  /** Made safe at creation: no path separators or control characters, at most 255 bytes. */
  @Property({ type: 'string', length: 255 })
  filename!: string;

  @Property({ type: 'string', length: 100 })
  contentType!: string;

  @Property({ type: 'integer' })
  size!: number;

  /** Hex, lower case: the bytes must match it; the ETag of the content and the filesystem store's key. */
  @Property({ type: 'string', length: 64 })
  sha256!: string;

  /** Who added it: the API client, and its role. */
  @Property({ type: 'string', length: LIMITS.reference })
  addedBy!: string;

  @Property({ type: 'string', length: 16 })
  addedByRole!: string;

  /** For QUOTE documents: the quote request it belongs to. */
  @ManyToOne({ entity: () => QuoteRequest, nullable: true, index: false, deleteRule: 'cascade' })
  quoteRequest?: QuoteRequest | null;

  @Enum({ items: () => DocumentState, type: 'string', length: 16 })
  state: DocumentState = DocumentState.PENDING;

  /**
   * The store its bytes are in, as DOCUMENT_STORE names it (`filesystem`, `s3://bucket/prefix`): read from there
   * whatever the gateway now writes to (storage/document-stores.ts). Null only on rows from before stores were named,
   * until the start fills in the configured store (`nameDocumentStores`).
   */
  @Property({ type: 'string', length: 255, nullable: true })
  store?: string | null;

  /** SHA-256 of the upload URL's token (the URL is the credential); cleared when the upload starts: single use. */
  @Property({ type: 'string', length: 64, nullable: true, unique: 'document_upload_token_unique' })
  uploadTokenHash?: string | null;

  @Property({ type: Date, length: 3, nullable: true })
  uploadExpiresAt?: Date | null;

  @Property({ type: Date, length: 3 })
  createdAt: Date = new Date();
}
