import type { Logger } from 'pino';

/** An item of an outbox claimed for this worker (a lease in the database), and the partner it goes to. */
export interface Claimed {
  id: string;
  partner: string;
}

/**
 * What an outbox table offers its worker: its due items, a lease on one, working one, and when the next is due.
 * `Leased` is what the lease hands to the work: as much of the item as the outbox reads while taking it.
 */
export interface Outbox<Leased> {
  /** Up to `limit` due items that no worker holds, oldest first, of partners not in `busy`. */
  due(limit: number, busy: readonly string[]): Promise<Claimed[]>;
  /** Takes the lease on an item if it is still free, so several workers never take the same one; undefined if taken. */
  lease(id: string): Promise<Leased | undefined>;
  /** Works one leased item; failures are the outbox's to record. */
  process(item: Leased): Promise<void>;
  /** When the next item of a partner not in `busy` falls due (undefined: none). */
  nextDue(busy: readonly string[]): Promise<Date | undefined>;
}

export interface OutboxWorkerLimits {
  /** Items in hand at once. */
  concurrency: number;
  /** Items in hand for one partner: a slow partner holds some slots, never all of them. */
  perPartner: number;
  /** The longest sleep without being woken. */
  pollIntervalMs: number;
}

/**
 * Keeps up to `concurrency` items of an outbox in hand, at most `perPartner` of one partner; claims more as slots
 * come free, and otherwise sleeps until woken (new work committed, a slot freed) or until the next item falls due.
 * Stopping finishes the work in hand; nothing is lost, unfinished rows stay in the outbox.
 */
export class OutboxWorker<Leased> {
  private running = false;
  private loop?: Promise<void>;
  private woken = false;
  private wakeSleeper?: () => void;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly perPartner = new Map<string, number>();

  constructor(
    private readonly name: string,
    private readonly outbox: Outbox<Leased>,
    private readonly limits: OutboxWorkerLimits,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wakeSleeper?.();
    await this.loop;
  }

  /**
   * New work was recorded, or a slot came free: look now instead of at the next poll. New work of a partner at its
   * share waits for that partner's next free slot, whose wake-up claims it: asking the outbox before then finds
   * nothing of that partner (a burst of one insurer's callbacks otherwise cost a claim query each).
   */
  wake = (partner?: string): void => {
    if (partner !== undefined && (this.perPartner.get(partner) ?? 0) >= this.limits.perPartner) return;
    this.woken = true;
    this.wakeSleeper?.();
  };

  private async run(): Promise<void> {
    while (this.running) {
      this.woken = false;
      const free = this.limits.concurrency - this.inFlight.size;
      let claimed: (Claimed & { leased: Leased })[] = [];
      if (free > 0) {
        try {
          claimed = await this.claim(free);
        } catch (error) {
          this.logger.error({ err: error }, `${this.name} could not claim work`);
        }
      }
      for (const { id, partner, leased } of claimed) {
        this.perPartner.set(partner, (this.perPartner.get(partner) ?? 0) + 1);
        const task: Promise<void> = this.outbox
          .process(leased)
          .catch((error: unknown) => this.logger.error({ err: error, id }, `${this.name} could not work an item`))
          .finally(() => {
            this.inFlight.delete(task);
            const left = this.perPartner.get(partner)! - 1;
            if (left > 0) this.perPartner.set(partner, left);
            else this.perPartner.delete(partner);
            this.wake();
          });
        this.inFlight.add(task);
      }
      // Woken meanwhile (new work, a slot freed): claim again at once, without asking when the next item is due.
      if (claimed.length === 0 && !this.woken) await this.sleep(free > 0 ? await this.idleTime() : this.limits.pollIntervalMs);
    }
    await Promise.all(this.inFlight);
  }

  private busy(): string[] {
    return [...this.perPartner].filter(([, count]) => count >= this.limits.perPartner).map(([partner]) => partner);
  }

  /** Up to `limit` items, no partner beyond its share; more candidates than slots, as some partner's share may fill up. */
  private async claim(limit: number): Promise<(Claimed & { leased: Leased })[]> {
    const candidates = await this.outbox.due(limit * 4, this.busy());
    const shares = new Map(this.perPartner);
    const claimed: (Claimed & { leased: Leased })[] = [];
    for (const candidate of candidates) {
      if (claimed.length === limit) break;
      const share = shares.get(candidate.partner) ?? 0;
      if (share >= this.limits.perPartner) continue;
      const leased = await this.outbox.lease(candidate.id);
      if (leased === undefined) continue;
      claimed.push({ ...candidate, leased });
      shares.set(candidate.partner, share + 1);
    }
    return claimed;
  }

  /** Until the next item of a partner with a free share falls due, at most one poll interval. */
  private async idleTime(): Promise<number> {
    try {
      const next = await this.outbox.nextDue(this.busy());
      const due = next ? next.getTime() - Date.now() : Infinity;
      return Math.max(5, Math.min(this.limits.pollIntervalMs, due));
    } catch {
      return this.limits.pollIntervalMs;
    }
  }

  /** Returns at once when woken or stopped meanwhile, so no wake-up is lost. */
  private sleep(ms: number): Promise<void> {
    if (this.woken || !this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeSleeper = done;
    });
  }
}
