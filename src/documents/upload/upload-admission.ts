import type { Socket } from 'node:net';
import type { UploadLimits } from '../../platform/config';

/** Why an upload in flight was stopped. */
export type UploadStop = { reason: 'deadline' } | { reason: 'too-slow'; bytesPerSecond: number };

/** An upload's watch: the bytes its connection received, its deadline, and the window its rate is measured over. */
interface Watched {
  socket: Socket;
  /** The body's bytes still expected when the watch began (its declared size). */
  size: number;
  /** `socket.bytesRead` when the watch began (the headers already read) and when the current window began. */
  startBytes: number;
  windowBytes: number;
  windowStart: number;
  deadlineAt: number;
  stop: (why: UploadStop) => void;
}

/** How often the uploads in flight are looked at: their deadlines and rates are checked at most this late. */
const TICK_MS = 1000;

/**
 * One upload taken in by the admission, until its request ends (`release`, on the response's 'close').
 */
export interface UploadTicket {
  /** Counts the upload against its slot's owner (the API client that created it); false, changing nothing, when that owner has its most in flight. */
  claimFor(owner: string): boolean;
  /**
   * From now on, the upload must arrive at the minimum rate over each window and end by `deadlineAt`; otherwise `stop`
   * is called once (and the watch ends).
   */
  watch(socket: Socket, size: number, deadlineAt: number, stop: (why: UploadStop) => void): void;
  release(): void;
}

/**
 * What uploads may hold of one process (issue 37): at most `concurrency` receive bytes at once, `concurrencyPerClient`
 * of them of one API client's slots; each must arrive at `minBytesPerSecond` over every `rateWindowMs` and end by its
 * deadline. One timer looks at every upload in flight once a second (no timer per upload), reading how many bytes its
 * connection received: nothing is added to the body's stream. The caller answers the excess 503 with `Retry-After`
 * before reading any of its body.
 */
export class UploadAdmission {
  private inFlight = 0;
  private readonly perOwner = new Map<string, number>();
  private readonly watched = new Set<Watched>();
  private ticker: NodeJS.Timeout | undefined;

  constructor(readonly limits: UploadLimits) {}

  /** Seconds a refused upload should wait: by then the window has passed, and uploads too slow for it are gone. */
  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.limits.rateWindowMs / 1000));
  }

  /** Uploads receiving bytes now (for the metrics and tests). */
  get uploadsInFlight(): number {
    return this.inFlight;
  }

  /** A place for one more upload in this process, or null when all are taken. */
  enter(): UploadTicket | null {
    if (this.inFlight >= this.limits.concurrency) return null;
    this.inFlight += 1;
    let owner: string | undefined;
    let entry: Watched | undefined;
    let released = false;
    return {
      claimFor: (who) => {
        const held = this.perOwner.get(who) ?? 0;
        if (held >= this.limits.concurrencyPerClient) return false;
        this.perOwner.set(who, held + 1);
        owner = who;
        return true;
      },
      watch: (socket, size, deadlineAt, stop) => {
        const now = Date.now();
        entry = { socket, size, startBytes: socket.bytesRead, windowBytes: socket.bytesRead, windowStart: now, deadlineAt, stop };
        this.watched.add(entry);
        this.ticker ??= setInterval(() => this.tick(), TICK_MS).unref();
      },
      release: () => {
        if (released) return;
        released = true;
        this.inFlight -= 1;
        if (owner !== undefined) {
          const held = (this.perOwner.get(owner) ?? 1) - 1;
          if (held > 0) this.perOwner.set(owner, held);
          else this.perOwner.delete(owner);
        }
        if (entry) this.unwatch(entry);
      },
    };
  }

  private unwatch(entry: Watched): void {
    this.watched.delete(entry);
    if (this.watched.size === 0 && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  private tick(): void {
    const now = Date.now();
    const { minBytesPerSecond, rateWindowMs } = this.limits;
    for (const entry of [...this.watched]) {
      const read = entry.socket.bytesRead;
      if (now >= entry.deadlineAt) {
        this.unwatch(entry);
        entry.stop({ reason: 'deadline' });
        continue;
      }
      if (now - entry.windowStart < rateWindowMs) continue;
      const arrived = read - entry.windowBytes;
      // The last window of an upload need only bring what was left of it.
      const left = entry.size - (entry.windowBytes - entry.startBytes);
      const needed = Math.min((minBytesPerSecond * (now - entry.windowStart)) / 1000, left);
      if (arrived < needed) {
        this.unwatch(entry);
        entry.stop({ reason: 'too-slow', bytesPerSecond: Math.floor((arrived * 1000) / (now - entry.windowStart)) });
        continue;
      }
      entry.windowStart = now;
      entry.windowBytes = read;
    }
  }
}
