import { type DocumentLoader, type InboxContext, preloadedContexts } from "@fedify/fedify";

/**
 * Incoming activities are handled while their request waits (one parse, no
 * job to write, claim and finish), but a request must not wait on other
 * servers: the request's pass gets a context whose document loader refuses
 * every fetch, and an activity whose handling wanted one is queued instead
 * and handled again by a worker, where fetching is allowed.
 */

/** Thrown by a fetch refused in a request's pass. */
export class RemoteWorkNeeded extends Error {
  constructor(readonly url: string) {
    super(`${url} would be fetched while answering an inbox request`);
    this.name = "RemoteWorkNeeded";
  }
}

interface Pass {
  /** The first URL refused in this pass, if any. */
  refused: string | null;
}

/** The pass of each context made for one (see `runRequestPass`). */
const passes = new WeakMap<object, Pass>();

/** How a request's pass ended. */
export type PassOutcome =
  | { readonly kind: "done" }
  /** A fetch was refused: the activity needs remote work. */
  | { readonly kind: "needs-network"; readonly url: string }
  | { readonly kind: "failed"; readonly error: unknown };

/**
 * Runs `work` as a request's pass, on a copy of `ctx` whose document loader
 * refuses. A refused fetch counts even when the code that asked for it
 * swallowed the error (Fedify's `suppressError`), since what it did next was
 * decided without the document.
 */
export async function runRequestPass<TContextData>(
  ctx: InboxContext<TContextData>,
  work: (ctx: InboxContext<TContextData>) => Promise<void>,
): Promise<PassOutcome> {
  const pass: Pass = { refused: null };
  const refusing: DocumentLoader = async (url) => {
    // JSON-LD contexts Fedify ships are not fetched.
    const preloaded = preloadedContexts[url];
    if (preloaded !== undefined) return { contextUrl: null, documentUrl: url, document: preloaded };
    pass.refused ??= url;
    throw new RemoteWorkNeeded(url);
  };
  const passCtx = ctx.clone(ctx.data);
  // Every fetch Fedify's context and vocabulary make for a listener goes through the context's loader.
  Object.defineProperty(passCtx, "documentLoader", { value: refusing, enumerable: true });
  passes.set(passCtx, pass);
  try {
    await work(passCtx);
  } catch (error) {
    if (pass.refused === null && !(error instanceof RemoteWorkNeeded)) return { kind: "failed", error };
  }
  return pass.refused === null ? { kind: "done" } : { kind: "needs-network", url: pass.refused };
}

/**
 * Throws when `ctx` is a request pass's and one of its fetches was refused:
 * code that goes on after a failed fetch (keeping what it could read) calls
 * this before writing, so nothing half-read is stored before a worker handles
 * the activity in full. Does nothing for other contexts.
 */
export function assertNothingRefused(ctx: object): void {
  const refused = passes.get(ctx)?.refused;
  if (refused) throw new RemoteWorkNeeded(refused);
}

/** Whether `ctx` is a request pass's and one of its fetches was refused: the activity goes to a worker. */
export function passRefused(ctx: object): boolean {
  return (passes.get(ctx)?.refused ?? null) !== null;
}

/** The options Fedify's property getters take, as Kith's listeners give them. */
export interface PropertyReadOptions {
  readonly documentLoader: DocumentLoader;
  readonly suppressError: boolean;
}

/**
 * Reads a property that may have to be fetched (an activity's object, a
 * status's tags or attachments), forgiving a failed fetch as Fedify's
 * `suppressError` does. In a request's pass the read is first made without
 * `suppressError`, so a refused fetch throws (and the activity goes to a
 * worker) rather than being logged by Fedify as a failed fetch.
 */
export async function readProperty<T>(
  ctx: { readonly documentLoader: DocumentLoader },
  read: (options: PropertyReadOptions) => Promise<T>,
): Promise<T> {
  const pass = passes.get(ctx);
  if (pass === undefined) return read({ documentLoader: ctx.documentLoader, suppressError: true });
  if (pass.refused !== null) throw new RemoteWorkNeeded(pass.refused);
  try {
    return await read({ documentLoader: ctx.documentLoader, suppressError: false });
  } catch {
    if (pass.refused !== null) throw new RemoteWorkNeeded(pass.refused);
    // Not a fetch: a document that does not parse, which is read again as before.
    return read({ documentLoader: ctx.documentLoader, suppressError: true });
  }
}

/**
 * For remote work that does not go through the context's loader (a lookup
 * on a context of its own): throws (and records) when `ctx` is a request
 * pass's, so the activity goes to a worker.
 */
export function requireNetwork(ctx: object, url: string): void {
  const pass = passes.get(ctx);
  if (pass === undefined) return;
  pass.refused ??= url;
  throw new RemoteWorkNeeded(url);
}
