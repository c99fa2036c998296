import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { PeriodicTasks, type PeriodicTask } from '../src/platform/tasks/periodic-task';
import { ManualClock } from './helpers/manual-clock';

const task = (run: PeriodicTask['run'], more: Partial<PeriodicTask> = {}): PeriodicTask => ({
  name: 'test task',
  everyMs: 1000,
  allInstances: true,
  run,
  ...more,
});

function logged() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

/** A task whose runs last until the test ends them (`finish`). */
function hanging() {
  const clock = new ManualClock();
  const ends: (() => void)[] = [];
  const tasks = new PeriodicTasks([task(() => new Promise<void>((resolve) => ends.push(resolve)))], { logger: logged().logger, clock });
  return {
    clock,
    tasks,
    runs: () => ends.length,
    finish: () => ends[ends.length - 1](),
  };
}

describe('PeriodicTasks', () => {
  it('runs a task when the clock is moved past its period, with the clock’s time, never before', async () => {
    const clock = new ManualClock();
    const times: Date[] = [];
    const tasks = new PeriodicTasks([task(async (now) => void times.push(now))], { logger: logged().logger, clock });
    tasks.start();
    await clock.advance(999);
    expect(times).toEqual([]);
    await clock.advance(1);
    expect(times).toEqual([new Date(Date.parse('2026-01-01T00:00:00.000Z') + 1000)]);
    await clock.advance(3000);
    expect(times).toHaveLength(4);
    await tasks.stop();
    await clock.advance(10_000);
    expect(times).toHaveLength(4);
  });

  it('runs a task marked atStart at once, then every period', async () => {
    const clock = new ManualClock();
    const run = vi.fn(async () => undefined);
    const tasks = new PeriodicTasks([task(run, { atStart: true })], { logger: logged().logger, clock });
    tasks.start();
    await clock.advance(0);
    expect(run).toHaveBeenCalledTimes(1);
    await clock.advance(1000);
    expect(run).toHaveBeenCalledTimes(2);
    await tasks.stop();
  });

  it('logs and counts a failing run, and the next run comes as planned', async () => {
    const clock = new ManualClock();
    const { logger, lines } = logged();
    let calls = 0;
    const tasks = new PeriodicTasks(
      [
        task(async () => {
          calls += 1;
          if (calls === 1) throw new Error('database away');
        }),
      ],
      { logger, clock },
    );
    tasks.start();
    await clock.advance(1000);
    expect(lines).toEqual([expect.objectContaining({ msg: 'test task failed; it runs again', task: 'test task' })]);
    expect((lines[0].err as { message: string }).message).toBe('database away');
    expect(tasks.counts('test task')).toEqual({ runs: 0, failures: 1 });
    await clock.advance(1000);
    expect(calls).toBe(2);
    expect(tasks.counts('test task')).toEqual({ runs: 1, failures: 1 });
    await tasks.stop();
  });

  it('stop waits for a run in progress, and no run follows it', async () => {
    const { clock, tasks, finish, runs } = hanging();
    tasks.start();
    await clock.advance(1000);
    expect(runs()).toBe(1);
    let stopped = false;
    const stopping = tasks.stop().then(() => (stopped = true));
    await clock.advance(0);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(stopped).toBe(true);
    await clock.advance(5000);
    expect(runs()).toBe(1);
  });

  it('never overlaps runs of one task: the next period starts when a run ends', async () => {
    const { clock, tasks, finish, runs } = hanging();
    tasks.start();
    await clock.advance(5000);
    expect(runs()).toBe(1);
    finish();
    await clock.advance(999);
    expect(runs()).toBe(1);
    await clock.advance(1);
    expect(runs()).toBe(2);
    finish();
    await tasks.stop();
  });

  it('refuses a task meant to run once across instances: nothing coordinates that yet', () => {
    expect(() => new PeriodicTasks([task(async () => undefined, { allInstances: false })], { logger: logged().logger })).toThrow(
      /once across instances/,
    );
  });
});
