/**
 * The gateway's rate-limit windows are aligned to the clock (the database store's fixed windows): a test that counts
 * to a limit starts well inside one, or its count is cut in two by the window's end and the last request is served.
 */
export async function awayFromWindowEdge(windowMs: number): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}
