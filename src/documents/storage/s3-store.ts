import { PassThrough, Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NotFound,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { DocumentsConfig } from '../../platform/config';
import { notFound } from '../../platform/errors/domain-error';
import { contentDisposition } from './content-disposition';
import type { DocumentStore, PendingBytes, References, StoredDocument } from './document-store';

type S3Location = Extract<DocumentsConfig['store'], { kind: 's3' }>;

/**
 * Documents in an S3-compatible object store (`DOCUMENT_STORE=s3://bucket/prefix`), for several instances: one
 * object per document (`prefix/<document id>`), so a deleted document's presigned link finds nothing. An upload
 * streams into a temporary object (`prefix/tmp/<document id>`), copied to the document's key (within the store, no
 * bytes through the gateway) only once the bytes matched: the document's key never holds unchecked bytes, and the
 * temporary objects of failed or interrupted uploads are deleted here or by the sweeper.
 */
export class S3Store implements DocumentStore {
  private readonly client: S3Client;

  constructor(private readonly location: S3Location) {
    const { s3 } = location;
    this.client = new S3Client({
      region: s3.region,
      ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
      forcePathStyle: s3.forcePathStyle,
      // Plain bodies: the SDK's default streams with trailing checksums (aws-chunked), which S3-compatible servers
      // do not all understand. The bytes are checked against their SHA-256 on the way in (upload-check.ts).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(s3.accessKeyId && s3.secretAccessKey
        ? { credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } }
        : {}),
    });
  }

  private keyOf(document: StoredDocument): string {
    return this.location.prefix ? `${this.location.prefix}/${document.id}` : document.id;
  }

  private get tmpPrefix(): string {
    return this.location.prefix ? `${this.location.prefix}/tmp/` : 'tmp/';
  }

  begin(document: StoredDocument, size: number): Promise<PendingBytes> {
    const sink = new PassThrough();
    // A failed upload stops the object's PUT, which would otherwise wait for the bytes its length promised.
    const stop = new AbortController();
    sink.on('error', () => stop.abort());
    const { bucket } = this.location;
    const temporary = `${this.tmpPrefix}${document.id}`;
    const upload = this.client.send(new PutObjectCommand({ Bucket: bucket, Key: temporary, Body: sink, ContentLength: size }), {
      abortSignal: stop.signal,
    });
    upload.catch(() => undefined); // commit or abort reads the outcome
    const dropTemporary = () => this.client.send(new DeleteObjectCommand({ Bucket: bucket, Key: temporary }));
    return Promise.resolve({
      sink,
      commit: async () => {
        await upload;
        await this.client.send(new CopyObjectCommand({ Bucket: bucket, Key: this.keyOf(document), CopySource: `${bucket}/${temporary}` }));
        await dropTemporary();
      },
      abort: async () => {
        stop.abort();
        sink.destroy();
        await upload.catch(() => undefined);
        await dropTemporary().catch(() => undefined);
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

  async has(document: StoredDocument): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: this.keyOf(document) }));
      return true;
    } catch (error) {
      if (error instanceof NotFound || error instanceof NoSuchKey) return false;
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

  /**
   * The temporary objects of uploads that failed or were interrupted (a crash, a delete that lost a race), and documents'
   * objects no row names any more (a crash between the copy and the database's commit); up to 1000 of each per sweep.
   */
  async sweep(before: Date, referenced: References): Promise<number> {
    const stale = async (prefix: string) => {
      const listed = await this.client.send(new ListObjectsV2Command({ Bucket: this.location.bucket, Prefix: prefix, MaxKeys: 1000 }));
      return (listed.Contents ?? [])
        .filter((object) => object.Key && object.LastModified && object.LastModified < before)
        .map((object) => object.Key!);
    };
    const temporary = await stale(this.tmpPrefix);
    const own = this.location.prefix ? `${this.location.prefix}/` : '';
    const documents = (await stale(own)).filter((key) => !key.startsWith(this.tmpPrefix) && !key.slice(own.length).includes('/'));
    const used = await referenced.byId(documents.map((key) => key.slice(own.length)));
    const unreferenced = documents.filter((key) => !used.has(key.slice(own.length)));
    for (const key of [...temporary, ...unreferenced])
      await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: key }));
    return temporary.length + unreferenced.length;
  }
}
