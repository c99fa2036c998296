import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * Bytes owed a removal: written in the transaction that deletes their document, removed from the store after it
 * commits (a store is no part of a database transaction). A crash between the two leaves the row, and the
 * sweeper finishes the removal: no document's bytes outlive their erasure by more than one sweep.
 */
@Entity({ tableName: 'document_removal' })
export class DocumentRemoval {
  /** The deleted document's id (the S3 store's key). */
  @PrimaryKey({ type: 'string', length: 36 })
  id!: string;

  /** The bytes' SHA-256 (the filesystem store's key): removed only while no document has the same bytes. */
  @Property({ type: 'string', length: 64 })
  sha256!: string;

  /** The store the bytes are in (the document's own; null: the configured store). */
  @Property({ type: 'string', length: 255, nullable: true })
  store?: string | null;

  @Property({ type: Date, length: 3 })
  createdAt: Date = new Date();
}
