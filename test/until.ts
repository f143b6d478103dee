/**
 * Waits until `check` holds, polling: for what a test cannot be told of by an event (a page's state
 * read by evaluation, a server's socket closing). The bound only stops a test that would hang; a
 * loaded machine may take long to get there, so it is generous.
 */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
