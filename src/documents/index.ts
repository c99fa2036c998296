/** The face of documents: a tender's documents, their upload, storage, reading and events (docs/documents.md). */
export { Document } from './document.entity';
export { DocumentState } from './document-kind';
export { DocumentRemoval } from './document-removal.entity';
export type { DocumentContext, DocumentEventListener, DocumentServices } from './document-context';
export { createDocumentStore } from './storage/create-document-store';
export { DocumentStores } from './storage/document-stores';
export { moveDocumentsToConfiguredStore, nameDocumentStores } from './store-move';
export { UPLOAD_PATH, deleteTenderDocuments, findUpload, receiveUpload, removeDocumentBytes, sweepDocuments } from './document.service';
export { contentDisposition } from './storage/content-disposition';
export { STORED_CONTENT_TYPES } from './document-rules';
// upload/: what one process admits of uploads, and the check of their bytes
export { UploadAdmission, type UploadStop, type UploadTicket } from './upload/upload-admission';
// download/: a document's bytes and its signed links
export { LINK_PATH, contentOf, linkedDocument, storedDocument } from './download/document-download';
export { LinkSigner } from './download/document-links';
// quote-documents/: the documents an insurer attaches to its quote, fetched into the tender's
export { QuoteDocumentFetch } from './quote-documents/quote-document-fetch';
// personal-data/: the documents' part of a customer's personal data (privacy erases and exports it)
export { documentPersonalData } from './personal-data/document-personal-data';
// module.ts: what the composition (createApp) takes of documents: its resolvers, entities, periodic tasks and listeners
export { documentsModule } from './module';
