import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertMay } from '../../access';
import { ProposalService } from '../../quotes';
import { TenderHistoryEntry, findVisibleTender, type Tender } from '../../tenders';
import type { DocumentContext, DocumentServices } from '../document-context';
import { Document } from '../document.entity';
import { DocumentKind, DocumentState } from '../document-kind';
import { assertShareHolds } from '../document.service';
import { insurersSeeing, tenderOfDocuments } from '../document-facts';
import { badInput } from '../../platform/errors/domain-error';
import { problemsOf } from '../../platform/validation/validate';
import { AdviceFormat, AdviceLanguage, adviceOf, type Advice, type AdviceText } from './advice';
import { AdviceRules } from './advice-rules';
import { adviceCsv } from './advice-csv';
import { advicePdf } from './advice-pdf';

/**
 * Each format's content type and file extension. JSON is no upload's content type (DOCUMENT_CONTENT_TYPES): nobody
 * uploads ADVICE documents, the gateway writes these bytes itself, so no upload check needs to know it.
 */
const FORMATS: Record<AdviceFormat, { contentType: string; extension: string; render: (advice: Advice) => Promise<Buffer> | Buffer }> = {
  [AdviceFormat.PDF]: { contentType: 'application/pdf', extension: 'pdf', render: advicePdf },
  [AdviceFormat.CSV]: { contentType: 'text/csv', extension: 'csv', render: adviceCsv },
  [AdviceFormat.JSON]: {
    contentType: 'application/json',
    extension: 'json',
    render: (advice) => Buffer.from(`${JSON.stringify(advice, null, 2)}\n`),
  },
};

/** The advice's bytes into the document store, under the document, as an upload's would be. */
async function store(services: DocumentServices, document: Document, bytes: Buffer): Promise<void> {
  const pending = await services.store.begin(document, bytes.length);
  try {
    await pipeline(Readable.from([bytes]), pending.sink);
    await pending.commit();
  } catch (error) {
    await pending.abort().catch(() => undefined);
    throw error;
  }
}

/**
 * The proposal overview as the broker shows it to its client (§61 VVG), stored as an ADVICE document: the same proposal
 * state gives the same bytes, whenever it is exported. The document, its history entry (format, document, SHA-256, who) and its event
 * commit in one transaction; the bytes are stored first, and removed again if that fails.
 */
export async function exportProposal(
  context: DocumentContext,
  tenderId: string,
  format: AdviceFormat,
  given: { language?: AdviceLanguage | null; advice?: AdviceText | null } = {},
): Promise<{ document: Document; sha256: string }> {
  const { em, viewer, documents } = context;
  assertMay(viewer, 'exportProposal');
  const advice = given.advice ?? null;
  if (advice) {
    const problems = problemsOf(AdviceRules, { ...advice }, 'parameter', 'advice');
    if (problems.length > 0) throw badInput('The advice is invalid', problems);
  }
  // Another broker's tender (or none) is NOT_FOUND, as every read of it.
  const tender: Tender = await findVisibleTender(em, viewer, tenderId);
  // The advice may name the customer: an erased customer's tender keeps no free text (as a status change's reason).
  if (advice && tender.erasedAt) {
    throw badInput('The advice is invalid', [
      {
        parameter: 'advice',
        message: "must be absent: the personal data of this tender's customer was erased, and its tenders keep no free text",
      },
    ]);
  }
  // The parties the document names (its title block).
  await em.populate(tender, ['lineOfBusiness', 'brokerCompany', 'personInCharge']);
  // The export's time: what has expired is judged at it, and the history entry and the document's creation say it. The
  // content states the proposal's state instead (`asOf`), so the same proposal gives the same bytes at any time.
  const exportedAt = documents.clock();
  const content = adviceOf(tender, await new ProposalService(em, viewer).load(tender.id, exportedAt), exportedAt, {
    language: given.language ?? AdviceLanguage.DE,
    advice,
  });
  const { contentType, extension, render } = FORMATS[format];
  const bytes = await render(content);
  const sha256 = createHash('sha256').update(bytes).digest('hex');

  const document = em.create(Document, {
    tender,
    kind: DocumentKind.ADVICE,
    filename: `advice-${tender.id}-${content.asOf.replace(/[:.]/g, '-')}.${extension}`,
    contentType,
    size: bytes.length,
    sha256,
    addedBy: viewer.appId,
    addedByRole: viewer.role,
    state: DocumentState.AVAILABLE,
    store: documents.store.name,
    createdAt: exportedAt,
  });
  // An ADVICE document takes the broker side's share of the tender's capacity.
  await assertShareHolds(em, tender, [document]);
  await store(documents, document, bytes);
  try {
    await em.transactional(async (tx) => {
      tx.persist(document);
      tx.create(TenderHistoryEntry, {
        tender,
        at: exportedAt,
        actor: viewer.appId,
        actorRole: viewer.role,
        fromStatus: tender.status,
        toStatus: tender.status,
        reason: `advice exported (${format})`,
        adviceFormat: format,
        adviceDocumentId: document.id,
        adviceSha256: sha256,
      });
      await tx.flush();
      const facts = tenderOfDocuments(tender);
      const insurerIds = await insurersSeeing(tx, facts, document);
      for (const listener of documents.listeners) {
        await listener(tx, { tender: facts, documentId: document.id, kind: document.kind, insurerIds, at: exportedAt });
      }
    });
  } catch (error) {
    const stillUsed = (await em.count(Document, { sha256 })) > 0;
    await documents.store.remove(document, stillUsed).catch(() => undefined);
    throw error;
  }
  return { document, sha256 };
}
