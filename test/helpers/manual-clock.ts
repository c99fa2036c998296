import type { Clock } from '../../src/platform/tasks/clock';

/** A clock a test moves: `advance` fires the timers that come due, in order, without sleeping. */
export class ManualClock implements Clock {
  private at: number;
  private readonly timers = new Set<{ due: number; fire: () => void }>();

  constructor(start = Date.parse('2026-01-01T00:00:00.000Z')) {
    this.at = start;
  }

  now(): Date {
    return new Date(this.at);
  }

  after(ms: number, fire: () => void): () => void {
    const timer = { due: this.at + ms, fire };
    this.timers.add(timer);
    return () => this.timers.delete(timer);
  }

  /** Moves the time on by `ms`, firing each timer as its time comes (and letting the work it starts proceed). */
  async advance(ms: number): Promise<void> {
    const until = this.at + ms;
    for (;;) {
      await settle();
      const next = [...this.timers].filter((timer) => timer.due <= until).sort((a, b) => a.due - b.due)[0];
      if (!next) break;
      this.timers.delete(next);
      this.at = next.due;
      next.fire();
    }
    this.at = until;
    await settle();
  }
}

/** Lets promise callbacks queued so far (a run's awaits) proceed. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
