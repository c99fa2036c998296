import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { expect } from 'vitest';
import { Role } from '../../src/access';
import { Document } from '../../src/documents';
import { Tender } from '../../src/tenders';
import { graphql, type Gateway } from './gateway';

export const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** A small but real PDF: its magic number is what the gateway checks. */
export const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
/** The PNG signature and an IHDR chunk. */
export const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
  Buffer.from('IHDR'),
  Buffer.alloc(17),
]);

export interface UploadInput {
  tenderId: string;
  kind: 'RISK' | 'QUOTE' | 'POLICY' | 'OTHER';
  filename?: string;
  contentType?: string;
  quoteRequestId?: string;
}

const CREATE_UPLOAD = /* GraphQL */ `
  mutation ($input: CreateDocumentUploadInput!) {
    createDocumentUpload(input: $input) {
      uploadUrl
      expiresAt
      document {
        id
        kind
        filename
        contentType
        size
        sha256
        quoteRequestId
        addedBy
        addedByRole
      }
    }
  }
`;

/** The upload slot (createDocumentUpload) for these bytes; the GraphQL answer whole. */
export async function createUpload(
  gateway: Gateway,
  token: string,
  input: UploadInput,
  bytes: Buffer,
  declared: { size?: number; sha256?: string } = {},
) {
  return graphql(gateway, token, CREATE_UPLOAD, {
    input: {
      filename: 'file.pdf',
      contentType: 'application/pdf',
      ...input,
      size: declared.size ?? bytes.length,
      sha256: declared.sha256 ?? sha256(bytes),
    },
  });
}

export const put = (url: string, bytes: Buffer | string, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'PUT', body: bytes, headers: { 'content-type': 'application/octet-stream', ...headers } });

/** A document added: its slot, then its bytes; answers the document's id. */
export async function addDocument(gateway: Gateway, token: string, input: UploadInput, bytes: Buffer = PDF): Promise<string> {
  const slot = await createUpload(gateway, token, input, bytes);
  expect(slot.body.errors, JSON.stringify(slot.body.errors)).toBeUndefined();
  const response = await put(slot.body.data.createDocumentUpload.uploadUrl, bytes);
  expect(response.status, await response.clone().text()).toBe(200);
  return slot.body.data.createDocumentUpload.document.id;
}

/** `count` AVAILABLE RISK documents of the broker side, written straight to the database: a tender near its share. */
export async function holdDocuments(em: EntityManager, tenderId: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    em.create(Document, {
      tender: em.getReference(Tender, tenderId),
      kind: 'RISK' as Document['kind'],
      filename: `held-${i}.pdf`,
      contentType: 'application/pdf',
      size: PDF.length,
      sha256: sha256(PDF),
      addedBy: 'test',
      addedByRole: Role.BROKER,
      state: 'AVAILABLE' as Document['state'],
    });
  }
  await em.flush();
}
