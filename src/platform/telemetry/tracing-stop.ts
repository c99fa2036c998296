let stop: () => Promise<void> = async () => undefined;

/** The tracing SDK, when it starts, hands over how it is stopped. */
export function whenTracingStops(flushAndStop: () => Promise<void>): void {
  stop = flushAndStop;
}

/** What the shutdown awaits: the spans still buffered, exported (nothing when tracing is off). */
export const stopTracing = (): Promise<void> => stop();
