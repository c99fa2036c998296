import { groupedBy, type PersonalData, type PersonalField } from '../../parties';
import type { DocumentServices } from '../document-context';
import { Document } from '../document.entity';
import { deleteTenderDocuments, removeDocumentBytes } from '../document.service';

/** A document is the customer's data as a whole: the erasure deletes it, row and bytes; its name stands for it here. */
const FIELDS: readonly PersonalField[] = [{ entity: 'Document', property: 'filename' }];

/**
 * The documents' part: the tenders' documents are deleted in the erasure's transaction, their bytes after its commit
 * (or by the next sweep if the process stops first). The export shows each document's metadata, not its bytes.
 */
export const documentPersonalData: PersonalData<{ documents: Pick<DocumentServices, 'store'> }> = {
  fields: FIELDS,
  async erase(tx, scope) {
    const documents = await deleteTenderDocuments(
      tx,
      scope.tenders.map((tender) => tender.id),
    );
    if (documents === 0) return { documents };
    return { documents, afterCommit: (em, services) => removeDocumentBytes(em, services.documents) };
  },
  async export(em, scope) {
    const documents = await em.find(Document, { tender: { $in: [...scope.tenderIds] } }, { orderBy: { createdAt: 'asc', id: 'asc' } });
    const documentsOf = groupedBy(documents, (document) => document.tender.id);
    return {
      tenders: new Map(scope.tenderIds.map((tenderId) => [tenderId, { documents: documentsOf(tenderId).map(exported) }])),
    };
  },
};

const exported = (document: Document) => ({
  _id: document.id,
  kind: document.kind,
  state: document.state,
  filename: document.filename,
  content_type: document.contentType,
  size: document.size,
  sha256: document.sha256,
  added_by: document.addedBy,
  added_by_role: document.addedByRole,
  quote_request_id: document.quoteRequest?.id ?? null,
  created_at: document.createdAt.toISOString(),
});
