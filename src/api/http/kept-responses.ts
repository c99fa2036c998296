import { LRUCache } from 'lru-cache';
import type { AccessChannel, AccessRecorder, Viewer } from '../../access';

/** A read of a tender's personal data that making an answer recorded (the access log, docs/privacy.md). */
interface KeptRead {
  tenderId: string;
  channel: AccessChannel;
}

/** An answer as it went out: its bytes, its headers (the ETag among them), and the reads its making recorded. */
export interface KeptResponse {
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string>>;
  readonly reads: readonly KeptRead[];
}

/** Who counts hits and misses (the metrics). */
export interface KeptResponsesObserver {
  looked(outcome: 'hit' | 'miss'): void;
}

/** What an entry costs beyond its bytes and its key: the entry, its headers, the cache's bookkeeping (an estimate). */
const ENTRY_OVERHEAD = 512;
const READ_OVERHEAD = 128;

/**
 * Who an answer is for, as far as anything in it can depend on it: the role (the field rules and the redaction are
 * by role), the insurer (its invitations, what is redacted for it) and the broker company (its tenders). Two tokens
 * with the same audience are answered the same bytes; the API client, the token and its expiry change nothing in them.
 */
const audienceOf = (viewer: Viewer): string => `${viewer.role}|${viewer.insurerId ?? ''}|${viewer.brokerCompanyId ?? ''}`;

/**
 * The serialised answers of the REST tender reads, kept per audience, request (path and query, as sent) and feed
 * revision (KEPT_RESPONSES_BYTES, least recently used out first), so that the same read at the same revision is
 * answered with the bytes made for the first one: no query, no GraphQL execution, no serialisation.
 *
 * The revision is read from the database on every request (tenders/feed: raised in the transaction of every change
 * an audience could see), so a change made on any instance is a new key on every instance: an entry is never found
 * once a change it does not show has committed. An entry is made from rows read after its revision was, so it may
 * show a change newer than its key (committed in between), never an older state.
 */
export class KeptResponses {
  private readonly kept: LRUCache<string, KeptResponse> | undefined;
  /**
   * Per audience, the revision its answers are kept at and their keys. Once an answer of another revision is kept,
   * the audience's answers of the one before can never be found again (a revision only moves on): they are dropped
   * then, not when the bound pushes them out, so what an audience no longer sees (an erased customer's data among
   * it) leaves the process with the audience's next kept answer.
   */
  private readonly held = new Map<string, { revision: string; keys: Set<string> }>();

  constructor(
    maxBytes: number,
    private readonly observer: KeptResponsesObserver = { looked: () => undefined },
  ) {
    this.kept =
      maxBytes > 0
        ? new LRUCache<string, KeptResponse>({
            maxSize: maxBytes,
            sizeCalculation: (response, key) =>
              response.body.length + 2 * key.length + ENTRY_OVERHEAD + READ_OVERHEAD * response.reads.length,
            dispose: (_response, key) => this.forget(key),
          })
        : undefined;
  }

  /** The key of an answer: everything its bytes depend on besides the representation this process makes. */
  keyOf(viewer: Viewer, revision: string, url: string): string | undefined {
    return this.kept && `${audienceOf(viewer)}\n${revision}\n${url}`;
  }

  /** The answer kept under `key`, counted as a hit or a miss. */
  find(key: string | undefined): KeptResponse | undefined {
    if (!this.kept || key === undefined) return undefined;
    const found = this.kept.get(key);
    this.observer.looked(found ? 'hit' : 'miss');
    return found;
  }

  keep(key: string | undefined, response: KeptResponse): void {
    if (!this.kept || key === undefined) return;
    const [audience, revision] = key.split('\n', 2);
    const before = this.held.get(audience);
    // Each dropped answer leaves the audience's keys through `dispose`.
    if (before && before.revision !== revision) for (const old of [...before.keys]) this.kept.delete(old);
    // One that replaces an answer under the same key disposes of the one before; one too large for the bound is not kept.
    this.kept.set(key, response);
    if (!this.kept.has(key)) return;
    let held = this.held.get(audience);
    if (held?.revision !== revision) this.held.set(audience, (held = { revision, keys: new Set() }));
    held.keys.add(key);
  }

  /** The bytes kept now, as the bound counts them. */
  get size(): number {
    return this.kept?.calculatedSize ?? 0;
  }

  /** An answer left the bound (pushed out, dropped, or replaced): its audience no longer holds its key. */
  private forget(key: string): void {
    const [audience, revision] = key.split('\n', 2);
    const held = this.held.get(audience);
    if (held?.revision !== revision) return;
    held.keys.delete(key);
    if (held.keys.size === 0) this.held.delete(audience);
  }
}

/**
 * Runs `make` with the context's access log watched, and answers what it recorded with its result: a later hit of
 * the answer records the same reads again, for its own viewer.
 */
export async function recordingReads<T>(
  context: { accessLog: AccessRecorder },
  make: () => Promise<T>,
): Promise<{ value: T; reads: KeptRead[] }> {
  const reads: KeptRead[] = [];
  const log = context.accessLog;
  context.accessLog = {
    record(tenderId, viewer, channel) {
      reads.push({ tenderId, channel });
      log.record(tenderId, viewer, channel);
    },
  };
  try {
    return { value: await make(), reads };
  } finally {
    context.accessLog = log;
  }
}

/** The reads a kept answer carries, recorded for this request's viewer as its making recorded them for its own. */
export function recordKeptReads(context: { viewer: Viewer; accessLog: AccessRecorder }, response: KeptResponse): void {
  for (const read of response.reads) context.accessLog.record(read.tenderId, context.viewer, read.channel);
}
