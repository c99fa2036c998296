import type { Readable, Writable } from 'node:stream';

/** The stored bytes of one document: which document, the bytes' SHA-256, and the store its row names (none: the configured one). */
export interface StoredDocument {
  id: string;
  sha256: string;
  store?: string | null;
}

/** An upload in progress: the bytes go into `sink`; then `commit` makes them the document's, or `abort` drops them. */
export interface PendingBytes {
  sink: Writable;
  /** Called once the sink finished and the bytes matched: afterwards the store has them under the document. */
  commit(): Promise<void>;
  /** Nothing of the upload remains (a mismatch, a client gone, an error). */
  abort(): Promise<void>;
}

/**
 * Where the bytes of documents live (DOCUMENT_STORE): a folder under DATA_DIR (filesystem-store.ts) or an
 * S3-compatible object store (s3-store.ts). Both stream: no document is ever held whole in memory.
 */
export interface DocumentStore {
  /** Receives the bytes of `document`, declared `size` bytes long. */
  begin(document: StoredDocument, size: number): Promise<PendingBytes>;
  /** The bytes, streamed. */
  read(document: StoredDocument): Promise<Readable>;
  /** Whether the store has the document's bytes (an S3 HEAD, a file's stat). */
  has(document: StoredDocument): Promise<boolean>;
  /**
   * A link straight to the bytes, valid until `expiresAt`, where the store can sign one (S3); null where the
   * gateway serves them itself (the filesystem store: its own signed link, document-links.ts).
   */
  presign(document: StoredDocument & { filename: string; contentType: string }, expiresAt: Date): Promise<string | null>;
  /** Removes the bytes of a deleted document (kept while another document has the same bytes, content-addressed). */
  remove(document: StoredDocument, stillUsed: boolean): Promise<void>;
  /**
   * Removes what uploads that never finished left behind, older than `before`: temporary bytes, and stored bytes no
   * document refers to (a crash between storing them and recording the document).
   */
  sweep(before: Date, referenced: References): Promise<number>;
}

/** Which of the given keys some document row (in any state) still refers to: the sweeper's question to the database. */
export interface References {
  bySha256(values: string[]): Promise<Set<string>>;
  byId(values: string[]): Promise<Set<string>>;
}
