import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { EntityManager } from '@mikro-orm/core';
import { Document } from './document.entity';
import { DocumentRemoval } from './document-removal.entity';
import { DocumentState } from './document-kind';
import type { DocumentStores } from './storage/document-stores';

/**
 * Rows from before each document named its store get the configured one: the store they were written to, as long as
 * DOCUMENT_STORE was not changed in the same upgrade (docs/operations.md). Run at every start (and by the store move);
 * a row already named is never touched, so running it again, or on several instances, changes nothing.
 */
export async function nameDocumentStores(em: EntityManager, storeName: string): Promise<number> {
  const named = await em.nativeUpdate(Document, { store: null }, { store: storeName });
  await em.nativeUpdate(DocumentRemoval, { store: null }, { store: storeName });
  return named;
}

/** The bytes on their way from one store to another: counted and hashed; a difference fails the copy before it commits. */
class SameBytes extends Transform {
  private readonly hash = createHash('sha256');
  private received = 0;

  constructor(private readonly expected: { id: string; size: number; sha256: string }) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.received += chunk.length;
    if (this.received > this.expected.size) return callback(this.differs(`more than its ${this.expected.size} bytes`));
    this.hash.update(chunk);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    if (this.received !== this.expected.size) return callback(this.differs(`${this.received} bytes, not ${this.expected.size}`));
    const sha256 = this.hash.digest('hex');
    callback(sha256 === this.expected.sha256 ? null : this.differs(`SHA-256 ${sha256}, not ${this.expected.sha256}`));
  }

  private differs(what: string): Error {
    return new Error(`document ${this.expected.id}: the source store has ${what}`);
  }
}

export interface StoreMoveReport {
  /** The store the documents were moved into: the configured one. */
  to: string;
  moved: number;
  /** Documents that were in it already. */
  alreadyThere: number;
  failed: { documentId: string; store: string; reason: string }[];
}

/**
 * `documents:migrate-store`: copies every document whose row names another store into the configured one, checking
 * size and SHA-256 on the way, and only then points its row at the new store (a conditional update: a row moved or
 * deleted meanwhile is left as it is). One document at a time, so a crash or a failure leaves every document readable
 * in the store its row names, and running the command again continues where it stopped: rows already moved are not
 * read again. The source's bytes stay (other rows may share a content-addressed file); retire the old store once
 * nothing names it. `from` limits the move to one source store.
 */
export async function moveDocumentsToConfiguredStore(
  em: EntityManager,
  stores: DocumentStores,
  options: { from?: string; batch?: number; onProgress?: (done: number, total: number) => void } = {},
): Promise<StoreMoveReport> {
  await nameDocumentStores(em, stores.name);
  const report: StoreMoveReport = { to: stores.name, moved: 0, alreadyThere: 0, failed: [] };
  const where = { state: DocumentState.AVAILABLE, store: options.from ? options.from : { $ne: stores.name } };
  const total = options.from === stores.name ? 0 : await em.count(Document, where);
  report.alreadyThere = await em.count(Document, { state: DocumentState.AVAILABLE, store: stores.name });
  if (total === 0) return report;
  const failed = new Set<string>();
  let done = 0;
  for (;;) {
    const skip = failed.size > 0 ? { id: { $nin: [...failed] } } : {};
    const batch = await em.find(Document, { ...where, ...skip }, { orderBy: { id: 'asc' }, limit: options.batch ?? 100 });
    if (batch.length === 0) break;
    for (const document of batch) {
      try {
        await copyInto(stores, document);
        await em.nativeUpdate(Document, { id: document.id, store: document.store }, { store: stores.name });
        report.moved += 1;
      } catch (error) {
        failed.add(document.id);
        report.failed.push({
          documentId: document.id,
          store: document.store!,
          reason: error instanceof Error ? error.message : String(error),
        });
      }
      options.onProgress?.(++done, total);
    }
    em.clear();
  }
  return report;
}

/** One document's bytes, from the store its row names into the configured store, committed there only if they match. */
async function copyInto(stores: DocumentStores, document: Document): Promise<void> {
  const source = await stores.read(document);
  const pending = await stores.begin(document, document.size);
  try {
    await pipeline(source, new SameBytes(document), pending.sink);
    await pending.commit();
  } catch (error) {
    source.destroy();
    await pending.abort().catch(() => undefined);
    throw error;
  }
}
