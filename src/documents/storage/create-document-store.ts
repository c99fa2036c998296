import type { DocumentsConfig } from '../../platform/config';
import type { DocumentStore } from './document-store';
import { FilesystemStore } from './filesystem-store';
import { lazyS3Store } from './lazy-s3-store';

/** The store DOCUMENT_STORE names. */
export const createDocumentStore = (config: DocumentsConfig['store']): DocumentStore =>
  config.kind === 's3' ? lazyS3Store(config) : new FilesystemStore(config.dir);
