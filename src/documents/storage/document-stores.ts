import type { Readable } from 'node:stream';
import type { DocumentsConfig } from '../../platform/config';
import { DomainError } from '../../platform/errors/domain-error';
import type { DocumentStore, PendingBytes, References, StoredDocument } from './document-store';
import { FilesystemStore } from './filesystem-store';
import { lazyS3Store } from './lazy-s3-store';

/** The filesystem store's name: DATA_DIR/documents of the gateway that reads it. */
const FILESYSTEM = 'filesystem';

/** A store's name as DOCUMENT_STORE spells it, and as each document's row names its store: `filesystem`, `s3://bucket/prefix`. */
const storeNameOf = (store: DocumentsConfig['store']): string =>
  store.kind === 'filesystem' ? FILESYSTEM : `s3://${store.bucket}${store.prefix ? `/${store.prefix}` : ''}`;

const S3_NAME = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/([\w\-./]*))?$/;

const unavailable = (document: StoredDocument, name: string, why: string) =>
  new DomainError(
    'SERVICE_UNAVAILABLE',
    `The content of document ${document.id} is in the store ${name}, which this gateway cannot read (${why}): ` +
      'configure that store (DOCUMENT_S3_* for an S3 store), or move the documents with documents:migrate-store',
  );

/**
 * The document stores (DOCUMENT_STORE, issue 37): new bytes go to the configured store, and each document's bytes are
 * read from and removed in the store its row names (`Document.store`; a row that names none is in the configured
 * one). Switching DOCUMENT_STORE therefore leaves earlier documents where they are, still readable: the filesystem
 * store from DATA_DIR/documents, an S3 store with the DOCUMENT_S3_* settings. A store that cannot be read is a
 * SERVICE_UNAVAILABLE problem naming it, never a redirect to bytes that are not there.
 */
export class DocumentStores implements DocumentStore {
  /** The configured store's name: what new documents' rows say. */
  readonly name: string;
  private readonly current: DocumentStore;
  private readonly others = new Map<string, DocumentStore>();

  constructor(private readonly config: Pick<DocumentsConfig, 'store' | 'filesystemDir' | 's3'>) {
    this.name = storeNameOf(config.store);
    this.current = config.store.kind === 's3' ? lazyS3Store(config.store) : new FilesystemStore(config.store.dir);
  }

  /** The store a document's bytes are in, and whether it is the configured one. */
  private storeOf(document: StoredDocument): { store: DocumentStore; name: string; current: boolean } {
    const name = document.store ?? this.name;
    if (name === this.name) return { store: this.current, name, current: true };
    let store = this.others.get(name);
    if (!store) {
      const s3 = S3_NAME.exec(name);
      if (name === FILESYSTEM) store = new FilesystemStore(this.config.filesystemDir);
      else if (s3) store = lazyS3Store({ kind: 's3', bucket: s3[1], prefix: (s3[2] ?? '').replace(/^\/+|\/+$/g, ''), s3: this.config.s3 });
      else throw unavailable(document, name, 'an unknown store');
      this.others.set(name, store);
    }
    return { store, name, current: false };
  }

  /** A store by its name, for documents:migrate-store (the source of a move). */
  named(name: string): DocumentStore {
    return this.storeOf({ id: '', sha256: '', store: name }).store;
  }

  begin(document: StoredDocument, size: number): Promise<PendingBytes> {
    return this.current.begin(document, size);
  }

  async read(document: StoredDocument): Promise<Readable> {
    const { store, name, current } = this.storeOf(document);
    if (current) return store.read(document);
    try {
      return await store.read(document);
    } catch (error) {
      throw unavailable(document, name, error instanceof Error ? error.message : String(error));
    }
  }

  /**
   * A signed link straight to the bytes (S3). In the configured store as before; in another store only once the
   * object is found there, so a client is never sent to a store that cannot answer.
   */
  async presign(document: StoredDocument & { filename: string; contentType: string }, expiresAt: Date): Promise<string | null> {
    const { store, name, current } = this.storeOf(document);
    if (current) return store.presign(document, expiresAt);
    let found: boolean;
    try {
      found = await store.has(document);
    } catch (error) {
      throw unavailable(document, name, error instanceof Error ? error.message : String(error));
    }
    if (!found) throw unavailable(document, name, 'its bytes are not there');
    return store.presign(document, expiresAt);
  }

  has(document: StoredDocument): Promise<boolean> {
    return this.storeOf(document).store.has(document);
  }

  remove(document: StoredDocument, stillUsed: boolean): Promise<void> {
    return this.storeOf(document).store.remove(document, stillUsed);
  }

  /** Sweeps the configured store; a store the gateway no longer writes to gets no new leftovers. */
  sweep(before: Date, referenced: References): Promise<number> {
    return this.current.sweep(before, referenced);
  }
}
