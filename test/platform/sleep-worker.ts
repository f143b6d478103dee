/** A worker for the worker-pool tests: waits the given milliseconds, then answers them. */
export default async function sleep(ms: number): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, ms));
  return ms;
}
