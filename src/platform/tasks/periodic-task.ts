import type { Logger } from 'pino';
import { systemClock, type Clock } from './clock';

/** A piece of background work a feature does on a schedule (docs/architecture.md, "Periodic tasks"). */
export interface PeriodicTask {
  /** Names the task in the logs ("<name> failed; it runs again"). */
  name: string;
  /** The pause between the end of one run and the start of the next: runs of one task never overlap. */
  everyMs: number;
  /**
   * True: every instance runs it, so the run itself must be safe on several instances at once (every task today is:
   * each row it changes is claimed by one conditional statement). False, once across instances, needs a
   * coordination the runner does not have yet: it refuses such a task rather than run it everywhere.
   */
  allInstances: boolean;
  /** The first run at `start` (work left from before a restart is done at once); otherwise after `everyMs`. */
  atStart?: boolean;
  /** One run; `now` is the clock's time. A failure is logged and counted, and the next run comes as planned. */
  run(now: Date): Promise<unknown>;
}

interface Scheduled {
  task: PeriodicTask;
  cancel?: () => void;
  running?: Promise<void>;
  runs: number;
  failures: number;
}

/** Runs a list of periodic tasks on one clock: `start` schedules them all, `stop` cancels and awaits runs in progress. */
export class PeriodicTasks {
  private readonly scheduled: Scheduled[];
  private started = false;
  private readonly clock: Clock;

  constructor(
    tasks: readonly PeriodicTask[],
    private readonly options: { logger: Logger; clock?: Clock },
  ) {
    const once = tasks.find((task) => !task.allInstances);
    if (once)
      throw new Error(`periodic task ${once.name}: running once across instances is not supported; make its run safe on every instance`);
    this.scheduled = tasks.map((task) => ({ task, runs: 0, failures: 0 }));
    this.clock = options.clock ?? systemClock;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    // A task still finishing a run from before a stop is scheduled again when that run ends.
    for (const entry of this.scheduled) if (!entry.running) this.schedule(entry, entry.task.atStart ? 0 : entry.task.everyMs);
  }

  /** Cancels the next runs and waits for the runs in progress to end. */
  async stop(): Promise<void> {
    this.started = false;
    for (const entry of this.scheduled) {
      entry.cancel?.();
      entry.cancel = undefined;
    }
    await Promise.all(this.scheduled.map((entry) => entry.running ?? Promise.resolve()));
  }

  /** How often a task has run to its end and how often it failed (for tests and diagnostics). */
  counts(name: string): { runs: number; failures: number } | undefined {
    const entry = this.scheduled.find((candidate) => candidate.task.name === name);
    return entry && { runs: entry.runs, failures: entry.failures };
  }

  private schedule(entry: Scheduled, ms: number): void {
    entry.cancel = this.clock.after(ms, () => {
      entry.cancel = undefined;
      entry.running = this.runOnce(entry).finally(() => {
        entry.running = undefined;
        if (this.started && !entry.cancel) this.schedule(entry, entry.task.everyMs);
      });
    });
  }

  private async runOnce(entry: Scheduled): Promise<void> {
    try {
      await entry.task.run(this.clock.now());
      entry.runs += 1;
    } catch (error) {
      entry.failures += 1;
      this.options.logger.error({ err: error, task: entry.task.name }, `${entry.task.name} failed; it runs again`);
    }
  }
}
