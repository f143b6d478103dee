/** A worker for the worker-pool tests: how many immediates its event loop ran since the last task (each task queues one). */
let ran = 0;

export default function immediatesSinceLastTask(): number {
  const since = ran;
  ran = 0;
  setImmediate(() => ran++);
  return since;
}
