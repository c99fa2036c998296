import { FlushMode, type EntityManager, type FilterQuery } from '@mikro-orm/core';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Role, assertMay, mayAddDocument, type Viewer } from '../access';
import { Tender, findVisibleTender, lockTenderRow } from '../tenders';
import { QuoteRequest } from '../quotes';
import { DomainError, badInput, forbidden, notFound } from '../platform/errors/domain-error';
import { problemsOf } from '../platform/validation/validate';
import { Document } from './document.entity';
import { DocumentRemoval } from './document-removal.entity';
import { DocumentKind, DocumentState } from './document-kind';
import {
  DOCUMENTS_BROKER_SIDE,
  DOCUMENTS_PER_INSURER,
  documentUploadRules,
  safeFilename,
  type DocumentContentType,
} from './document-rules';
import type { DocumentContext, DocumentServices } from './document-context';
import { hashOfToken, newUploadToken } from './download/document-links';
import { insurersSeeing, tenderOfDocuments, visibilityOfVisible, type TenderOfDocuments } from './document-facts';
import { UploadCheck } from './upload/upload-check';
import type { DocumentStore, StoredDocument } from './storage/document-store';

export interface DocumentUploadInput {
  tenderId: string;
  kind: DocumentKind;
  filename: string;
  contentType: string;
  size: number;
  sha256: string;
  quoteRequestId?: string | null;
}

/** The path of an upload URL; the REST route serves it (PUT, no bearer token: the URL is the credential). */
export const UPLOAD_PATH = '/integration/v1/document-uploads';

/**
 * A new document's upload slot: checks who may add this kind to this tender (the access policy), the input and the
 * per-tender maximum, and answers the document (PENDING, visible to nobody) with its single-use upload URL.
 */
export async function createDocumentUpload(
  context: DocumentContext,
  input: DocumentUploadInput,
): Promise<{ document: Document; uploadUrl: string; expiresAt: Date }> {
  const { em, viewer, documents } = context;
  assertMay(viewer, 'createDocumentUpload');
  const problems = problemsOf(documentUploadRules(documents.maxBytes), input, 'parameter');
  const filename = typeof input.filename === 'string' ? safeFilename(input.filename) : null;
  if (filename === null && !problems.some((problem) => problem.parameter === 'filename')) {
    problems.push({ parameter: 'filename', message: 'must name a file (no path alone, not empty)' });
  }
  if (input.kind === DocumentKind.QUOTE && !input.quoteRequestId)
    problems.push({ parameter: 'quoteRequestId', message: 'a QUOTE document names its quote request' });
  if (input.kind !== DocumentKind.QUOTE && input.quoteRequestId)
    problems.push({ parameter: 'quoteRequestId', message: 'only QUOTE documents name a quote request' });
  if (problems.length > 0) throw badInput('The document is invalid', problems);

  const tender = await findVisibleTender(em, viewer, input.tenderId);
  const facts = tenderOfDocuments(tender);
  const quoteRequest = input.quoteRequestId ? await em.findOne(QuoteRequest, { id: input.quoteRequestId, tender: tender.id }) : null;
  if (input.quoteRequestId && !quoteRequest) throw notFound(`Quote request ${input.quoteRequestId} not found on this tender`);
  // What the viewer may not see of a tender it may add nothing to (an insurer's CLOSED or lost tender).
  if (visibilityOfVisible(viewer, facts) === 'redacted') throw notFound(`Tender ${tender.id} not found`);
  if (!mayAddDocument(viewer, { kind: input.kind, awardedInsurerId: facts.awardedInsurerId, quoteInsurerId: quoteRequest?.insurer.id })) {
    throw forbidden(`A ${viewer.role} may not add a ${input.kind} document to this tender`);
  }
  const now = new Date();
  const { token, hash } = newUploadToken();
  const expiresAt = new Date(now.getTime() + documents.linkTtlMs);
  const [document] = await reserveDocuments(em, tender, (tx) => [
    tx.create(Document, {
      tender,
      kind: input.kind,
      filename: filename!,
      contentType: input.contentType,
      size: input.size,
      sha256: input.sha256.toLowerCase(),
      addedBy: viewer.appId,
      addedByRole: viewer.role,
      quoteRequest,
      uploadTokenHash: hash,
      uploadExpiresAt: expiresAt,
      store: documents.store.name,
      createdAt: now,
    }),
  ]);
  return { document, uploadUrl: `${context.publicOrigin}${UPLOAD_PATH}/${token}`, expiresAt };
}

/** Whose share of a tender's capacity a document takes: the broker side's, or one insurer's. */
type Party = { side: 'broker' } | { side: 'insurer'; insurerId: string };

/**
 * The party a document counts against: a QUOTE document its quote request's insurer; a POLICY document the tender's
 * winner (the broker side while it has none); every other kind the broker side.
 */
function partyOf(document: Document, awardedInsurerId: string | null): Party {
  if (document.kind === DocumentKind.QUOTE && document.quoteRequest)
    return { side: 'insurer', insurerId: document.quoteRequest.insurer.id };
  if (document.kind === DocumentKind.POLICY && awardedInsurerId) return { side: 'insurer', insurerId: awardedInsurerId };
  return { side: 'broker' };
}

/** The filter of a party's documents on a tender, the inverse of `partyOf`. */
function documentsOfParty(party: Party, awardedInsurerId: string | null): FilterQuery<Document> {
  if (party.side === 'broker') {
    const kinds = [DocumentKind.RISK, DocumentKind.OTHER, DocumentKind.ADVICE];
    return { kind: { $in: awardedInsurerId ? kinds : [...kinds, DocumentKind.POLICY] } };
  }
  const own: FilterQuery<Document>[] = [{ kind: DocumentKind.QUOTE, quoteRequest: { insurer: party.insurerId } }];
  if (party.insurerId === awardedInsurerId) own.push({ kind: DocumentKind.POLICY });
  return { $or: own };
}

/**
 * What a tender's documents hold of their party's share: the AVAILABLE ones, the slots not yet expired, and the uploads
 * still running (their slot counts until the upload's own deadline: `receiveUpload`).
 */
async function heldByParty(em: EntityManager, tenderId: string, party: Party, awardedInsurerId: string | null): Promise<number> {
  return em.count(
    Document,
    {
      $and: [
        { tender: tenderId },
        documentsOfParty(party, awardedInsurerId),
        { $or: [{ state: DocumentState.AVAILABLE }, { uploadExpiresAt: { $gt: new Date() } }] },
      ],
    },
    // The documents being added are created, not yet written: they are counted once, by the caller.
    { flushMode: FlushMode.COMMIT },
  );
}

/** The CONFLICT of a full share, saying whose it is. */
function shareFull(party: Party): DomainError {
  return party.side === 'broker'
    ? new DomainError('CONFLICT', `The broker side of a tender holds at most ${DOCUMENTS_BROKER_SIDE} documents, upload slots included`)
    : new DomainError(
        'CONFLICT',
        `An insurer holds at most ${DOCUMENTS_PER_INSURER} documents of its own on a tender, upload slots included`,
      );
}

/**
 * Whether `count` more documents of the party fit in its share of the tender; CONFLICT if not. Run under the tender's
 * row lock (`lockTenderRow`) by whoever then adds them (`reserveDocuments`, the advice export).
 */
export async function assertShareHolds(
  tx: EntityManager,
  tender: { id: string; awardedInsurer?: { id: string } | null },
  documents: readonly Document[],
): Promise<void> {
  const awardedInsurerId = tender.awardedInsurer?.id ?? null;
  const parties = new Map<string, { party: Party; count: number }>();
  for (const document of documents) {
    const party = partyOf(document, awardedInsurerId);
    const key = party.side === 'broker' ? 'broker' : `insurer:${party.insurerId}`;
    parties.set(key, { party, count: (parties.get(key)?.count ?? 0) + 1 });
  }
  for (const { party, count } of parties.values()) {
    const share = party.side === 'broker' ? DOCUMENTS_BROKER_SIDE : DOCUMENTS_PER_INSURER;
    if ((await heldByParty(tx, tender.id, party, awardedInsurerId)) + count > share) throw shareFull(party);
  }
}

/**
 * New documents (PENDING) for a tender, each within its party's share (the broker side's, or its insurer's): counted
 * and inserted under the tender's row lock (`lockTenderRow`), so concurrent additions cannot together pass it, and one
 * party's slots, used or not, never take another's room; none for a tender whose customer was erased (a document may
 * hold anything personal).
 */
export async function reserveDocuments(em: EntityManager, tender: Tender, create: (tx: EntityManager) => Document[]): Promise<Document[]> {
  return em.transactional(async (tx) => {
    await lockTenderRow(tx, tender.id);
    // Read under the lock an erasure takes too (privacy/): no document is added to a tender after its customer's erasure.
    const [{ erased_at: erasedAt }] = (await tx
      .getConnection()
      .execute('select erased_at from tender where id = ?', [tender.id], 'all', tx.getTransactionContext())) as { erased_at: unknown }[];
    if (erasedAt !== null) {
      throw new DomainError('CONFLICT', "The personal data of this tender's customer was erased: the tender takes no new documents");
    }
    const documents = create(tx);
    await assertShareHolds(tx, tender, documents);
    await tx.flush();
    return documents;
  });
}

/**
 * The upload slot an upload URL names, unclaimed and within its expiry (NOT_FOUND otherwise). Nothing changes: an
 * upload refused now (too many in flight) leaves its URL usable.
 */
export async function findUpload(em: EntityManager, token: string): Promise<Document> {
  const document = await em.findOne(Document, {
    uploadTokenHash: hashOfToken(token),
    state: DocumentState.PENDING,
    uploadExpiresAt: { $gt: new Date() },
  });
  if (!document) throw notFound('No upload at this URL: unknown, used or expired');
  return document;
}

/**
 * The bytes of an upload slot (`findUpload`), streamed into the store: single use (the slot's token is cleared as the
 * upload starts), and the slot counts towards its party's share until the upload's `deadline`, however late in the
 * slot's life it started. Once the bytes arrived and matched (size, SHA-256, content type), and the slot's party may
 * still add to the tender (an insurer's tender that closed or was lost meanwhile takes nothing), the document becomes
 * visible and its event goes out, in one transaction; on any failure nothing of it remains, its slot included.
 * Holds no more than the slot's own row while the bytes arrive: the tender is read at the end.
 */
export async function receiveUpload(
  em: EntityManager,
  services: DocumentServices,
  document: Document,
  body: Readable,
  declaredLength: number | undefined,
  deadline: Date,
): Promise<Document> {
  const countedUntil = document.uploadExpiresAt && document.uploadExpiresAt > deadline ? document.uploadExpiresAt : deadline;
  const claimed = await em.nativeUpdate(
    Document,
    { id: document.id, uploadTokenHash: document.uploadTokenHash, state: DocumentState.PENDING },
    { uploadTokenHash: null, uploadExpiresAt: countedUntil },
  );
  if (claimed !== 1) throw notFound('No upload at this URL: unknown, used or expired');
  document.uploadTokenHash = null;
  document.uploadExpiresAt = countedUntil;

  const pending = await services.store.begin(document, document.size);
  try {
    if (declaredLength !== undefined && declaredLength !== document.size) {
      throw badInput(`Content-Length is ${declaredLength}; the document declared ${document.size} bytes`);
    }
    await pipeline(body, new UploadCheck({ ...document, contentType: document.contentType as DocumentContentType }), pending.sink);
    await pending.commit();
  } catch (error) {
    await pending.abort().catch(() => undefined);
    await em.nativeDelete(Document, { id: document.id });
    throw error;
  }
  const at = new Date();
  const made = await em.transactional(async (tx): Promise<'made' | 'gone' | 'refused'> => {
    // Under the tender's row lock: a close (or the award to another insurer) commits either before this, and the
    // upload is refused, or after it, as if the document had come before it.
    await lockTenderRow(tx, document.tender.id);
    const tender = tenderOfDocuments(await tx.findOneOrFail(Tender, { id: document.tender.id }));
    if (!(await partyStillAdds(tx, tender, document))) {
      await tx.nativeDelete(Document, { id: document.id });
      return 'refused';
    }
    const updated = await tx.nativeUpdate(
      Document,
      { id: document.id, state: DocumentState.PENDING },
      // The store the bytes went to now (the configured one may have changed since the slot was made).
      { state: DocumentState.AVAILABLE, uploadExpiresAt: null, store: services.store.name },
    );
    if (updated !== 1) return 'gone';
    const insurerIds = await insurersSeeing(tx, tender, document);
    for (const listener of services.listeners) {
      await listener(tx, { tender, documentId: document.id, kind: document.kind, insurerIds, at });
    }
    return 'made';
  });
  if (made !== 'made') {
    // Nothing was acknowledged; the committed bytes go by the one rule for shared bytes.
    await removeBytes(em, services.store, document);
    // The slot went meanwhile (the sweeper, the tender's erasure), or the insurer may add nothing to the tender any more.
    throw notFound(
      made === 'gone'
        ? 'The upload expired while its bytes arrived'
        : `Tender ${document.tender.id} takes no documents from this insurer any more (closed, or another insurer's)`,
    );
  }
  document.state = DocumentState.AVAILABLE;
  document.uploadExpiresAt = null;
  document.store = services.store.name;
  return document;
}

/**
 * The creation's rule again when the bytes arrived: an insurer's slot adds nothing to a tender that is redacted for it
 * now (CLOSED, or SUCCESSFUL with another insurer's offer), as `createDocumentUpload` refuses one then.
 */
async function partyStillAdds(tx: EntityManager, tender: TenderOfDocuments, document: Document): Promise<boolean> {
  if (document.addedByRole !== (Role.INSURER as string)) return true;
  const insurerId = document.quoteRequest
    ? (await tx.findOneOrFail(QuoteRequest, { id: document.quoteRequest.id }, { fields: ['insurer'] })).insurer.id
    : tender.awardedInsurerId;
  return visibilityOfVisible({ role: Role.INSURER, insurerId } as Viewer, tender) === 'full';
}

/**
 * Deletes a tender's documents in the caller's transaction, and records their bytes as owed a removal
 * (`DocumentRemoval`): a document's links open nothing from the commit on. The bytes go after the commit
 * (`removeDocumentBytes`), or with the next sweep if the process stops first.
 */
export async function deleteTenderDocuments(em: EntityManager, tenderIds: readonly string[]): Promise<number> {
  if (tenderIds.length === 0) return 0;
  const documents = await em.find(Document, { tender: { $in: [...tenderIds] } }, { fields: ['id', 'sha256', 'store'] });
  if (documents.length === 0) return 0;
  await em.nativeDelete(Document, { tender: { $in: [...tenderIds] } });
  await em.insertMany(
    DocumentRemoval,
    documents.map((document) => ({ id: document.id, sha256: document.sha256, store: document.store ?? null, createdAt: new Date() })),
  );
  return documents.length;
}

/**
 * Removes the bytes owed a removal from the store, then their records. Content-addressed bytes another document
 * still has stay (the filesystem store keeps them; the S3 store's objects are per document). Run after a deletion
 * commits, and by every sweep; on several instances at once, a removal twice is harmless.
 */
export async function removeDocumentBytes(em: EntityManager, services: { store: DocumentStore }): Promise<number> {
  const owed = await em.find(DocumentRemoval, {}, { orderBy: { createdAt: 'asc' }, limit: 1000 });
  for (const removal of owed) {
    await removeBytes(em, services.store, removal);
    await em.nativeDelete(DocumentRemoval, { id: removal.id });
  }
  return owed.length;
}

/**
 * Removes what unfinished uploads left: slots expired (and, past a grace, slots whose upload started but never
 * finished: a crash), with whatever bytes they had in the store, and the store's stale temporary files.
 */
export async function sweepDocuments(
  em: EntityManager,
  services: { store: DocumentStore; linkTtlMs: number },
  now = new Date(),
): Promise<number> {
  const stale = await em.find(Document, {
    state: DocumentState.PENDING,
    uploadExpiresAt: { $lt: new Date(now.getTime() - services.linkTtlMs) },
  });
  for (const document of stale) {
    await em.nativeDelete(Document, { id: document.id, state: DocumentState.PENDING });
    await removeBytes(em, services.store, document).catch(() => undefined);
  }
  const owed = await removeDocumentBytes(em, services);
  return stale.length + owed + (await services.store.sweep(new Date(now.getTime() - 2 * services.linkTtlMs), referencesIn(em)));
}

/**
 * The one rule for the bytes of a document whose row is gone: the store keeps them while any other document row has
 * the same SHA-256, whatever its state. A PENDING row counts too: its bytes may be on their way into the same
 * content-addressed file (an upload, a quote document being fetched), and its row exists before they are.
 */
export async function removeBytes(em: EntityManager, store: DocumentStore, document: StoredDocument): Promise<void> {
  const stillUsed = (await em.count(Document, { sha256: document.sha256 })) > 0;
  await store.remove(document, stillUsed);
}

/** The sweeper's question, which stored keys rows still name, in batches (SQLite binds at most 32 766 values). */
function referencesIn(em: EntityManager) {
  const named = async (field: 'id' | 'sha256', values: string[]) => {
    const found = new Set<string>();
    for (let start = 0; start < values.length; start += 500) {
      const rows = await em.find(Document, { [field]: { $in: values.slice(start, start + 500) } }, { fields: [field] });
      for (const row of rows) found.add(row[field]);
    }
    return found;
  };
  return { bySha256: (values: string[]) => named('sha256', values), byId: (values: string[]) => named('id', values) };
}
