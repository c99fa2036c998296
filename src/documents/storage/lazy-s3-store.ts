import type { DocumentsConfig } from '../../platform/config';
import type { DocumentStore } from './document-store';

type S3Location = Extract<DocumentsConfig['store'], { kind: 's3' }>;

/**
 * An S3 store whose SDK is loaded with its first use: the AWS SDK's modules take about 10 MB of a process's memory
 * (docs/benchmark.md, "Memory"), which a gateway on the filesystem store, or one that never reads an old S3
 * document, does not need. Every method of a store is asynchronous, so nothing else changes.
 */
export function lazyS3Store(location: S3Location): DocumentStore {
  let made: Promise<DocumentStore> | undefined;
  const store = () => (made ??= import('./s3-store').then(({ S3Store }) => new S3Store(location)));
  return {
    begin: async (document, size) => (await store()).begin(document, size),
    read: async (document) => (await store()).read(document),
    has: async (document) => (await store()).has(document),
    presign: async (document, expiresAt) => (await store()).presign(document, expiresAt),
    remove: async (document, stillUsed) => (await store()).remove(document, stillUsed),
    sweep: async (before, referenced) => (await store()).sweep(before, referenced),
  };
}
