// Waits for a state a test looks at from outside (a task's status, a store's rows): looks again every
// `everyMs` until `look` gives something, and fails, naming what it waited for, past `ms`.
export async function untilSeen<T>(what: string, look: () => Promise<T | null>, ms = 30_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const seen = await look();
    if (seen !== null) return seen;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
