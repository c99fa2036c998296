import type { EntityManager } from '@mikro-orm/core';
import { pipeline } from 'node:stream/promises';
import { Role } from '../../access';
import { Tender } from '../../tenders';
import {
  PartnerError,
  QuoteRequest,
  Reason,
  type FetchedDocuments,
  type ListedDocument,
  type QuoteDocumentFetcher,
  type QuoteOfDocuments,
} from '../../quotes';
import { DomainError } from '../../platform/errors/domain-error';
import { sanitise } from '../../platform/http/partner-client';
import { Document } from '../document.entity';
import { DocumentKind, DocumentState } from '../document-kind';
import { DOCUMENT_CONTENT_TYPES, safeFilename, type DocumentContentType } from '../document-rules';
import type { DocumentServices } from '../document-context';
import { insurersSeeing, tenderOfDocuments } from '../document-facts';
import { removeBytes, reserveDocuments } from '../document.service';
import type { PendingBytes } from '../storage/document-store';
import { UploadCheck } from '../upload/upload-check';

const invalid = (index: number, detail: string) => new PartnerError(Reason.invalidDocument, `document ${index}: ${detail}`, false);

/** What a listed document says, checked before anything is fetched: a type, a safe name, a SHA-256. */
function checkListed(listed: ListedDocument, index: number): void {
  if (!(DOCUMENT_CONTENT_TYPES as readonly string[]).includes(listed.type))
    throw invalid(index, `type ${sanitise(JSON.stringify(listed.type), 120)} is not one of ${DOCUMENT_CONTENT_TYPES.join(', ')}`);
  if (safeFilename(listed.filename) !== listed.filename)
    throw invalid(index, `filename ${sanitise(JSON.stringify(listed.filename), 300)} is not a safe file name`);
  if (!/^[0-9a-f]{64}$/i.test(listed.sha256)) throw invalid(index, 'sha256 must be 64 hex digits');
}

/**
 * The documents a quote lists (docs/documents.md, "Quote documents"), fetched while fetching the quote. Each gets a
 * PENDING row first (as an upload slot: it counts towards the tender's maximum, and keeps content-addressed bytes
 * from being removed under it), then its bytes stream through the insurer client into the store, checked as an
 * upload's are (upload-check.ts). They become AVAILABLE in the quote's own transaction, or go with it: a crash
 * leaves PENDING rows and temporary bytes, which the sweeper removes; a quote fetched again fetches them anew.
 */
export class QuoteDocumentFetch implements QuoteDocumentFetcher {
  constructor(
    private readonly em: () => EntityManager,
    private readonly services: DocumentServices,
  ) {}

  async fetch(quote: QuoteOfDocuments, listed: readonly ListedDocument[]): Promise<FetchedDocuments> {
    listed.forEach(checkListed);
    const em = this.em();
    const request = await em.findOneOrFail(QuoteRequest, { id: quote.quoteRequestId }, { populate: ['tender'] });
    const documents = await this.reserve(em, request, listed);
    // The insurer's own share of the tender is full (its own documents and open slots): the quote is stored all the
    // same, its documents refused and the refusal recorded; no other party's documents count against it.
    if ('refused' in documents) return { record: () => Promise.resolve(), discard: () => Promise.resolve(), refused: documents.refused };
    const discard = async () => {
      await em.nativeDelete(Document, { id: { $in: documents.map((document) => document.id) }, state: DocumentState.PENDING });
      for (const document of documents) await removeBytes(em, this.services.store, document).catch(() => undefined);
    };
    try {
      for (const [index, document] of documents.entries()) await this.fetchOne(quote, listed[index], index, document);
    } catch (error) {
      await discard();
      throw error;
    }
    return {
      record: (tx) => this.record(tx, request.tender, documents),
      discard,
    };
  }

  private async reserve(
    em: EntityManager,
    request: QuoteRequest,
    listed: readonly ListedDocument[],
  ): Promise<Document[] | { refused: string }> {
    const now = new Date();
    try {
      return await reserveDocuments(em, request.tender, (tx) =>
        listed.map((entry, index) =>
          tx.create(Document, {
            tender: request.tender,
            kind: DocumentKind.QUOTE,
            filename: entry.filename,
            contentType: entry.type,
            // Known once the answer's Content-Length arrived.
            size: 0,
            sha256: entry.sha256.toLowerCase(),
            addedBy: request.insurer.id,
            addedByRole: Role.INSURER,
            quoteRequest: request,
            uploadExpiresAt: new Date(now.getTime() + this.services.linkTtlMs),
            store: this.services.store.name,
            // A millisecond apart: the tender's list (oldest first) shows them in the quote's order.
            createdAt: new Date(now.getTime() + index),
          }),
        ),
      );
    } catch (error) {
      if (error instanceof DomainError && error.code === 'CONFLICT') return { refused: `${listed.length} listed: ${error.message}` };
      throw error;
    }
  }

  private async fetchOne(quote: QuoteOfDocuments, listed: ListedDocument, index: number, document: Document): Promise<void> {
    let pending: PendingBytes | undefined;
    try {
      await quote.download(listed.url, this.services.maxBytes, async (body, headers) => {
        const size = Number(headers['content-length']);
        // The store takes a document's size before its bytes (one PUT to S3), and the check counts against it.
        if (!Number.isInteger(size) || size < 1) throw invalid(index, 'served without a Content-Length');
        document.size = size;
        pending = await this.services.store.begin(document, size);
        await pipeline(
          body,
          new UploadCheck({ size, sha256: document.sha256, contentType: listed.type as DocumentContentType }),
          pending.sink,
        );
      });
      await pending!.commit();
    } catch (error) {
      await pending?.abort().catch(() => undefined);
      if (error instanceof DomainError) throw invalid(index, error.message);
      throw error;
    }
  }

  private async record(tx: EntityManager, tender: Tender, documents: Document[]): Promise<void> {
    const facts = tenderOfDocuments(await tx.findOneOrFail(Tender, { id: tender.id }, { populate: ['brokerCompany'] }));
    const at = new Date();
    for (const document of documents) {
      const updated = await tx.nativeUpdate(
        Document,
        { id: document.id, state: DocumentState.PENDING },
        { state: DocumentState.AVAILABLE, size: document.size, uploadExpiresAt: null },
      );
      // Swept meanwhile (the step outlived its slot by far): fetch the quote again.
      if (updated !== 1)
        throw new PartnerError(Reason.internal, `quote document ${document.id} was swept before the quote was stored`, true);
      const insurerIds = await insurersSeeing(tx, facts, document);
      for (const listener of this.services.listeners) {
        await listener(tx, { tender: facts, documentId: document.id, kind: document.kind, insurerIds, at });
      }
    }
  }
}
