import type { Clock } from '../../src/platform/tasks/clock';

/**
 * A clock moved in jumps of hours and days: every timer due by the new time fires once (a periodic task then runs once,
 * at the new time), where ManualClock (manual-clock.ts) would replay every period between. `jump` returns when each
 * task it started has planned its next run, that is, finished this one.
 */
export class JumpingClock implements Clock {
  private readonly timers = new Set<{ due: number; fire: () => void }>();
  private planned = 0;
  constructor(private at: number) {}

  now(): Date {
    return new Date(this.at);
  }

  after(ms: number, fire: () => void): () => void {
    const timer = { due: this.at + ms, fire };
    this.timers.add(timer);
    this.planned += 1;
    return () => this.timers.delete(timer);
  }

  async jump(ms: number): Promise<void> {
    this.at += ms;
    const due = [...this.timers].filter((timer) => timer.due <= this.at).sort((a, b) => a.due - b.due);
    const planned = this.planned;
    for (const timer of due) {
      this.timers.delete(timer);
      timer.fire();
    }
    // The tasks' database work runs in real time: wait (polling) until each has planned its next run.
    const deadline = Date.now() + 20_000;
    while (this.planned < planned + due.length) {
      if (Date.now() > deadline) throw new Error('timed out waiting for the tasks to plan their next run');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
