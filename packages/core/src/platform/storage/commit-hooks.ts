/**
 * Work to do once a transaction has committed, kept by its handle. A port
 * that keeps its state outside the database (the in-memory queue) cannot
 * write in the transaction; it waits for the commit instead, so that what it
 * holds exists exactly when the change does: nothing before the commit,
 * nothing at all after a rollback.
 */
const hooks = new WeakMap<object, (() => void)[]>();

/** Runs `fn` once the transaction of `handle` commits; false when `handle` is no transaction that tells its commit. */
export function afterCommit(handle: object, fn: () => void): boolean {
  const waiting = hooks.get(handle);
  if (!waiting) return false;
  waiting.push(fn);
  return true;
}

/**
 * Runs a transaction whose handle tells its commit: `open` begins it and
 * gives `work` the handle, registered for `afterCommit`; the work waiting on
 * it runs after `open` resolves (the commit), and is dropped when it throws
 * (the rollback).
 */
export async function transactionWithCommitHooks<H extends object, T>(
  open: (work: (handle: H) => Promise<T>) => Promise<T>,
  work: (handle: H) => Promise<T>,
): Promise<T> {
  const waiting: (() => void)[] = [];
  let opened: H | undefined;
  let result: T;
  try {
    result = await open((handle) => {
      opened = handle;
      hooks.set(handle, waiting);
      return work(handle);
    });
  } finally {
    // A handle kept past its transaction tells no commit any more: work given it then is done at once.
    if (opened !== undefined) hooks.delete(opened);
  }
  for (const fn of waiting) fn();
  return result;
}
