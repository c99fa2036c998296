/**
 * The gateway's one clock: what time it is, and a timer on it. The system clock in production; tests give one they
 * move (test/helpers/manual-clock.ts), so a periodic task runs without a test sleeping for it.
 */
export interface Clock {
  now(): Date;
  /** Calls `fire` once after `ms`; answers how to cancel it. A pending timer never keeps the process alive. */
  after(ms: number, fire: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => new Date(),
  after(ms, fire) {
    const timer = setTimeout(fire, ms).unref();
    return () => clearTimeout(timer);
  },
};
