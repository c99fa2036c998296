import { raw, type Dictionary, type Platform } from '@mikro-orm/core';
import type { Logger } from 'pino';

/**
 * No worker holds the outbox row: never leased, or its lease has run out. The one definition of a free lease, as
 * SQL for the outboxes' own statements: `alias` qualifies the column, and the one parameter is now, as the engine
 * stores a date (`platform.processDateProperty`).
 */
export function leaseIsFree(alias?: string): string {
  const leaseUntil = alias ? `${alias}.lease_until` : 'lease_until';
  return `(${leaseUntil} is null or ${leaseUntil} < ?)`;
}

/**
 * The same condition as a filter of the ORM's queries of one table, no joins (an update names no alias); a new one
 * each time, as the ORM takes a raw key only once.
 */
export function leaseIsFreeFilter(platform: Platform, now: Date): Dictionary {
  return { [raw(leaseIsFree(), [platform.processDateProperty(now)])]: [] };
}

/** An item of an outbox claimed for this worker (a lease in the database), and the partner it goes to. */
export interface Claimed {
  id: string;
  partner: string;
  /**
   * Whose the partner is, when several partners share one owner (a webhook client's endpoints): the owner's
   * items share `perGroup` slots. Without it, each partner is its own group.
   */
  group?: string;
}

/**
 * What an outbox table offers its worker: its due items, a lease on one, working one, and when the next is due.
 * `Leased` is what the lease hands to the work: as much of the item as the outbox reads while taking it.
 */
export interface Outbox<Leased> {
  /**
   * Up to `limit` due items that no worker holds, of partners not in `busy` and groups not in `busyGroups`;
   * an outbox with groups takes each group's first item before any group's second (the worker picks among them).
   */
  due(limit: number, busy: readonly string[], busyGroups: readonly string[]): Promise<Claimed[]>;
  /** Takes the lease on an item if it is still free, so several workers never take the same one; undefined if taken. */
  lease(id: string): Promise<Leased | undefined>;
  /** Works one leased item; failures are the outbox's to record. */
  process(item: Leased): Promise<void>;
  /** When the next item of a partner not in `busy` (nor of a group in `busyGroups`) falls due (undefined: none). */
  nextDue(busy: readonly string[], busyGroups: readonly string[]): Promise<Date | undefined>;
}

interface OutboxWorkerLimits {
  /** Items in hand at once. */
  concurrency: number;
  /** Items in hand for one partner: a slow partner holds some slots, never all of them. */
  perPartner: number;
  /** Items in hand for one group (its partners together): one owner's many slow partners hold some slots, never all. */
  perGroup?: number;
  /** The longest sleep without being woken. */
  pollIntervalMs: number;
}

/**
 * Keeps up to `concurrency` items of an outbox in hand, at most `perPartner` of one partner and `perGroup` of one
 * group; claims more as slots come free, and otherwise sleeps until woken (new work committed, a slot freed) or
 * until the next item falls due. Free slots go round-robin: first to the group with the fewest items in hand, so
 * a group with a backlog cannot keep another's first item waiting. Stopping finishes the work in hand; nothing is
 * lost, unfinished rows stay in the outbox.
 */
export class OutboxWorker<Leased> {
  private running = false;
  private loop?: Promise<void>;
  private woken = false;
  private wakeSleeper?: () => void;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly perPartner = new Map<string, number>();
  private readonly perGroup = new Map<string, number>();

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
      let claimed: (Claimed & { group: string; leased: Leased })[] = [];
      if (free > 0) {
        try {
          claimed = await this.claim(free);
        } catch (error) {
          this.logger.error({ err: error }, `${this.name} could not claim work`);
        }
      }
      for (const { id, partner, group, leased } of claimed) {
        count(this.perPartner, partner, +1);
        count(this.perGroup, group, +1);
        const task: Promise<void> = this.outbox
          .process(leased)
          .catch((error: unknown) => this.logger.error({ err: error, id }, `${this.name} could not work an item`))
          .finally(() => {
            this.inFlight.delete(task);
            count(this.perPartner, partner, -1);
            count(this.perGroup, group, -1);
            this.wake();
          });
        this.inFlight.add(task);
      }
      // Woken meanwhile (new work, a slot freed): claim again at once, without asking when the next item is due.
      if (claimed.length === 0 && !this.woken) await this.sleep(free > 0 ? await this.idleTime() : this.limits.pollIntervalMs);
    }
    await Promise.all(this.inFlight);
  }

  private get perGroupLimit(): number {
    return this.limits.perGroup ?? Infinity;
  }

  private busy(): string[] {
    return [...this.perPartner].filter(([, count]) => count >= this.limits.perPartner).map(([partner]) => partner);
  }

  private busyGroups(): string[] {
    return [...this.perGroup].filter(([, count]) => count >= this.perGroupLimit).map(([group]) => group);
  }

  /**
   * Up to `limit` items, no partner or group beyond its share; more candidates than slots, as some share may fill
   * up. With groups, each slot goes to the group with the fewest items in hand (ties: the one whose next item the
   * outbox listed first), which takes its next candidate; without, the candidates go in the outbox's order.
   */
  private async claim(limit: number): Promise<(Claimed & { group: string; leased: Leased })[]> {
    const candidates = await this.outbox.due(limit * 4, this.busy(), this.busyGroups());
    const queues = new Map<string, { at: number; candidate: Claimed }[]>();
    candidates.forEach((candidate, at) => {
      const group = candidate.group ?? candidate.partner;
      const queue = queues.get(group);
      if (queue) queue.push({ at, candidate });
      else queues.set(group, [{ at, candidate }]);
    });
    const partnerShares = new Map(this.perPartner);
    const groupShares = new Map(this.perGroup);
    const fairShare = this.limits.perGroup !== undefined;
    const before = (a: string, b: string) => {
      const byShare = fairShare ? (groupShares.get(a) ?? 0) - (groupShares.get(b) ?? 0) : 0;
      return byShare < 0 || (byShare === 0 && queues.get(a)![0].at < queues.get(b)![0].at);
    };
    const claimed: (Claimed & { group: string; leased: Leased })[] = [];
    while (claimed.length < limit && queues.size > 0) {
      let group: string | undefined;
      for (const [candidate] of queues) if (group === undefined || before(candidate, group)) group = candidate;
      const queue = queues.get(group!)!;
      const { candidate } = queue.shift()!;
      if (queue.length === 0) queues.delete(group!);
      const share = partnerShares.get(candidate.partner) ?? 0;
      if (share >= this.limits.perPartner) continue;
      const leased = await this.outbox.lease(candidate.id);
      if (leased === undefined) continue;
      claimed.push({ ...candidate, group: group!, leased });
      partnerShares.set(candidate.partner, share + 1);
      const groupShare = (groupShares.get(group!) ?? 0) + 1;
      groupShares.set(group!, groupShare);
      if (groupShare >= this.perGroupLimit) queues.delete(group!);
    }
    return claimed;
  }

  /** Until the next item of a partner with a free share falls due, at most one poll interval. */
  private async idleTime(): Promise<number> {
    try {
      const next = await this.outbox.nextDue(this.busy(), this.busyGroups());
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

function count(counts: Map<string, number>, key: string, change: 1 | -1): void {
  const now = (counts.get(key) ?? 0) + change;
  if (now > 0) counts.set(key, now);
  else counts.delete(key);
}
