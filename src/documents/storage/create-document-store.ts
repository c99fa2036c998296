import type { DocumentsConfig } from '../../platform/config';
import type { DocumentStore } from './document-store';
import { FilesystemStore } from './filesystem-store';
import { S3Store } from './s3-store';

/** The store DOCUMENT_STORE names. */
export const createDocumentStore = (config: DocumentsConfig['store']): DocumentStore =>
  config.kind === 's3' ? new S3Store(config) : new FilesystemStore(config.dir);
