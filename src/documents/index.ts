/** The face of documents: a tender's documents, their upload, storage, reading and events (docs/documents.md). */
export { Document } from './document.entity';
export { DocumentRemoval } from './document-removal.entity';
export type { DocumentContext, DocumentEventListener, DocumentServices } from './document-context';
export { createDocumentStore } from './storage/create-document-store';
export { DocumentStores } from './storage/document-stores';
export { moveDocumentsToConfiguredStore, nameDocumentStores } from './store-move';
export { LinkSigner } from './document-links';
export { DocumentResolver, TenderDocumentsResolver } from './document.resolver';
// advice/: the comparison a broker showed its client (§61 VVG), as an ADVICE document
export { AdviceResolver } from './advice/advice.resolver';
export { UPLOAD_PATH, deleteTenderDocuments, findUpload, receiveUpload, removeDocumentBytes, sweepDocuments } from './document.service';
export { UploadAdmission, type UploadStop, type UploadTicket } from './upload-admission';
export { LINK_PATH, contentOf, linkedDocument, storedDocument } from './document-download';
export { contentDisposition } from './storage/content-disposition';
export { policyDocumentCheck } from './policy-document-check';
export { STORED_CONTENT_TYPES } from './document-rules';
export { QuoteDocumentFetch } from './quote-document-fetch';
