import type { EntityManager } from '@mikro-orm/core';
import type { Readable } from 'node:stream';
import { notFound } from '../platform/errors/domain-error';
import type { DocumentContext, DocumentServices } from './document-context';
import { Document } from './document.entity';
import { DocumentState } from './document-kind';

/** The path of the filesystem store's signed links (`GET`, no bearer token: the link is the credential). */
export const LINK_PATH = '/integration/v1/document-links';

interface Downloadable {
  id: string;
  sha256: string;
  filename: string;
  contentType: string;
}

/** A link to a document the viewer may see, valid DOCUMENT_LINK_TTL (15 minutes at most): the store's own, or the gateway's. */
export async function downloadUrl(context: Pick<DocumentContext, 'documents' | 'publicOrigin'>, document: Downloadable): Promise<string> {
  const { store, links, linkTtlMs } = context.documents;
  const expiresAt = new Date(Date.now() + linkTtlMs);
  return (await store.presign(document, expiresAt)) ?? `${context.publicOrigin}${LINK_PATH}/${links.sign(document.id, expiresAt)}`;
}

/** The bytes of a document: a stream from the store, or the store's signed link to redirect to. */
export async function contentOf(services: DocumentServices, document: Downloadable): Promise<{ redirect: string } | { stream: Readable }> {
  const redirect = await services.store.presign(document, new Date(Date.now() + services.linkTtlMs));
  return redirect ? { redirect } : { stream: await services.store.read(document) };
}

/** The document a gateway link opens, if the link is genuine, unexpired, and its document still there. */
export async function linkedDocument(em: EntityManager, services: DocumentServices, token: string): Promise<Document> {
  const documentId = services.links.verify(token);
  const document = documentId ? await em.findOne(Document, { id: documentId, state: DocumentState.AVAILABLE }) : null;
  if (!document) throw notFound('No document at this link: unknown, expired or deleted');
  return document;
}
