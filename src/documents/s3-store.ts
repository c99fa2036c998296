import { PassThrough, Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { DocumentsConfig } from '../platform/config';
import { notFound } from '../platform/errors/domain-error';
import { contentDisposition } from './content-disposition';
import type { DocumentStore, PendingBytes, StoredDocument } from './document-store';

type S3Location = Extract<DocumentsConfig['store'], { kind: 's3' }>;

/**
 * Documents in an S3-compatible object store (`DOCUMENT_STORE=s3://bucket/prefix`), for several instances: one
 * object per document (`prefix/<document id>`), so a deleted document's presigned link finds nothing. An upload
 * streams straight into its object; the document is visible only once its row says AVAILABLE, and a mismatch or an
 * upload that never finished has its object deleted (here, or by the sweeper with the expired slot).
 */
export class S3Store implements DocumentStore {
  private readonly client: S3Client;

  constructor(private readonly location: S3Location) {
    const { s3 } = location;
    this.client = new S3Client({
      region: s3.region,
      ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
      forcePathStyle: s3.forcePathStyle,
      ...(s3.accessKeyId && s3.secretAccessKey
        ? { credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } }
        : {}),
    });
  }

  private keyOf(document: StoredDocument): string {
    return this.location.prefix ? `${this.location.prefix}/${document.id}` : document.id;
  }

  begin(document: StoredDocument, size: number): Promise<PendingBytes> {
    const sink = new PassThrough();
    const upload = this.client.send(
      new PutObjectCommand({ Bucket: this.location.bucket, Key: this.keyOf(document), Body: sink, ContentLength: size }),
    );
    upload.catch(() => undefined); // commit or abort reads the outcome
    return Promise.resolve({
      sink,
      commit: async () => {
        await upload;
      },
      abort: async () => {
        sink.destroy();
        await upload.catch(() => undefined);
        await this.remove(document);
      },
    });
  }

  async read(document: StoredDocument): Promise<Readable> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.location.bucket, Key: this.keyOf(document) }));
      return object.Body as Readable;
    } catch (error) {
      if (error instanceof NoSuchKey) throw notFound(`The content of document ${document.id} is not in the store`);
      throw error;
    }
  }

  presign(document: StoredDocument & { filename: string; contentType: string }, expiresAt: Date): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.location.bucket,
      Key: this.keyOf(document),
      ResponseContentType: document.contentType,
      ResponseContentDisposition: contentDisposition(document.filename),
    });
    return getSignedUrl(this.client, command, { expiresIn: Math.max(1, Math.floor((expiresAt.getTime() - Date.now()) / 1000)) });
  }

  async remove(document: StoredDocument): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.keyOf(document) }));
  }

  /** Nothing temporary lives outside a document's own object: the expired slots' objects go with their rows. */
  sweep(): Promise<number> {
    return Promise.resolve(0);
  }
}
