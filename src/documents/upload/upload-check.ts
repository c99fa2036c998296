import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { fromBuffer } from 'file-type';
import { DomainError, badInput } from '../../platform/errors/domain-error';
import type { DocumentContentType } from '../document-rules';

/** Enough of the head for every signature file-type knows (its own sample size). */
const HEAD_BYTES = 4100;
const TEXT_TYPES: readonly string[] = ['text/plain', 'text/csv'];

/** Whether the head of the bytes is of the declared type: by magic numbers, and plain text (UTF-8, no NUL) for text types. */
async function headMatches(head: Buffer, declared: DocumentContentType, complete: boolean): Promise<boolean> {
  const detected = await fromBuffer(head);
  if (TEXT_TYPES.includes(declared)) {
    if (detected || head.includes(0)) return false;
    try {
      // A multi-byte character cut at the head's end is no error unless the bytes end there too.
      new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: !complete });
      return true;
    } catch {
      return false;
    }
  }
  return detected?.mime === declared;
}

/**
 * The bytes of an upload on their way to the store: counted against the declared size, hashed, and their head
 * checked against the declared content type, holding only the head. A failure stops the bytes reaching the store
 * and is reported once the client finished sending (so it reads the answer rather than a reset connection);
 * a client sending far beyond the declared size is cut off at once.
 */
export class UploadCheck extends Transform {
  private readonly hash = createHash('sha256');
  /**
   * The head, copied into one buffer of its size: holding the chunks themselves would keep one object per chunk, and a
   * client trickling a byte at a time would make thousands of them.
   */
  private head: Buffer | null = null;
  private headLength = 0;
  private received = 0;
  private checked = false;
  private failure: DomainError | null = null;

  constructor(private readonly expected: { size: number; sha256: string; contentType: DocumentContentType }) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.received += chunk.length;
    if (this.received > 2 * this.expected.size + HEAD_BYTES) return callback(this.tooLong());
    if (this.failure) return callback();
    if (this.received > this.expected.size) {
      this.failure = this.tooLong();
      return callback();
    }
    this.hash.update(chunk);
    if (this.checked) return callback(null, chunk);
    this.head ??= Buffer.allocUnsafe(Math.min(HEAD_BYTES, this.expected.size));
    const taken = chunk.copy(this.head, this.headLength);
    this.headLength += taken;
    if (this.headLength < this.head.length) return callback();
    this.checkHead(this.received === this.expected.size, taken < chunk.length ? chunk.subarray(taken) : null, callback);
  }

  override _flush(callback: TransformCallback): void {
    const finish = (error?: Error | null) => {
      if (error) return callback(error);
      if (this.failure) return callback(this.failure);
      if (this.received !== this.expected.size) {
        return callback(badInput(`The upload had ${this.received} bytes; the document declared ${this.expected.size}`));
      }
      if (this.hash.digest('hex') !== this.expected.sha256) return callback(badInput('The bytes do not match the declared SHA-256'));
      callback();
    };
    if (this.checked || this.failure) return finish();
    this.checkHead(true, null, (error, data) => {
      if (data) this.push(data);
      finish(error);
    });
  }

  /** Checks the head; then passes it on, with `rest` (what followed it in the same chunk). */
  private checkHead(complete: boolean, rest: Buffer | null, callback: TransformCallback): void {
    const held = (this.head ?? Buffer.alloc(0)).subarray(0, this.headLength);
    this.head = null;
    this.checked = true;
    headMatches(held, this.expected.contentType, complete).then(
      (matches) => {
        if (!matches) {
          this.failure = new DomainError(
            'UNSUPPORTED_MEDIA_TYPE',
            `The bytes are not of the declared content type ${this.expected.contentType}`,
          );
          return callback();
        }
        if (rest) this.push(held);
        callback(null, rest ?? held);
      },
      (error: unknown) => callback(error as Error),
    );
  }

  private tooLong(): DomainError {
    return badInput(`The upload has more bytes than the ${this.expected.size} the document declared`);
  }
}
