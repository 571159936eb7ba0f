import type { InboxContext, InboxListenerSetters } from "@fedify/fedify";
import { Activity } from "@fedify/fedify/vocab";
import { getLogger } from "../../logging.js";
import { passRefused, runRequestPass } from "./inbox-request-pass.js";
import type { FederationContextData } from "./federation-context-data.js";

const logger = getLogger(["federation", "inbox"]);

type Listener = (ctx: InboxContext<FederationContextData>, activity: Activity) => unknown;

export interface SharedListenerOptions {
  /** Runs first for every activity of every type; its failure is logged and keeps no listener from running. */
  readonly before?: Listener;
  /**
   * Queues an activity for a worker, which runs the listeners again with
   * fetching allowed. Given: activities are handled in their request (see
   * `runRequestPass`), and those that need another server's documents, or
   * fail there, are passed to it. Its failure fails the request (500), so
   * the sender tries again. Not given: the listeners run as they are called.
   */
  readonly queue?: (ctx: InboxContext<FederationContextData>, activity: Activity) => Promise<void>;
}

/** Runs the listeners outside Fedify's inbox handler (the inbox front), as the handler would have. */
export interface InboxDispatcher {
  /**
   * The listeners an activity goes to, found as Fedify finds its listener
   * (its class, else the nearest superclass up to Activity), or null when
   * there are none.
   */
  listenersFor(activity: Activity): InboxListeners | null;
  /** Runs `listeners` for the activity as the listener set for its type with Fedify runs them; throws when that fails. */
  dispatch(listeners: InboxListeners, ctx: InboxContext<FederationContextData>, activity: Activity): Promise<void>;
}

/** The listeners given for one activity type, in order. */
export type InboxListeners = readonly Listener[];

/** The setters of `withSharedListeners` and the dispatch they set up, for the inbox front. */
export interface SharedListeners {
  readonly inbox: InboxListenerSetters<FederationContextData>;
  readonly dispatcher: InboxDispatcher;
}

/**
 * Fedify takes one listener per activity type, and several parts of Kith
 * listen to the same types (Undo of a follow, a like, a boost or a block;
 * Delete and Update of a status or of an actor): the returned setters run
 * every listener given for a type, in order, each ignoring what is not its
 * own. One listener failing does not keep the others from their part; the
 * first error is raised afterwards, so Fedify still sees the activity fail.
 */
export function withSharedListeners(
  inbox: InboxListenerSetters<FederationContextData>,
  options: SharedListenerOptions = {},
): InboxListenerSetters<FederationContextData> {
  return sharedListeners(inbox, options).inbox;
}

/** `withSharedListeners`, with the dispatch it sets up exposed for the inbox front. */
export function sharedListeners(inbox: InboxListenerSetters<FederationContextData>, options: SharedListenerOptions = {}): SharedListeners {
  const byType = new Map<unknown, Listener[]>();
  const on = inbox.on.bind(inbox) as (type: unknown, listener: Listener) => unknown;

  async function runAll(list: readonly Listener[], ctx: InboxContext<FederationContextData>, activity: Activity): Promise<void> {
    try {
      await options.before?.(ctx, activity);
    } catch (error) {
      logger.warn("A step before the inbox listeners failed: {error}", { error });
    }
    const errors: unknown[] = [];
    for (const each of list) {
      try {
        await each(ctx, activity);
      } catch (error) {
        errors.push(error);
      }
      // A worker runs them all again with fetching allowed; those left would only meet refused fetches.
      if (passRefused(ctx)) break;
    }
    if (errors.length > 0) throw errors[0];
  }

  async function dispatch(list: readonly Listener[], ctx: InboxContext<FederationContextData>, activity: Activity): Promise<void> {
    const queue = options.queue;
    if (!queue || !ctx.data.serving) return runAll(list, ctx, activity);
    const outcome = await runRequestPass(ctx, (passCtx) => runAll(list, passCtx, activity));
    if (outcome.kind === "done") return;
    if (outcome.kind === "needs-network")
      logger.debug("Queued {activity}: handling it fetches {url}", { activity: activity.id?.href, url: outcome.url });
    else
      logger.warn("Handling {activity} in its request failed; queued to be tried again: {error}", {
        activity: activity.id?.href,
        error: outcome.error,
      });
    await queue(ctx, activity);
  }

  const shared: InboxListenerSetters<FederationContextData> = new Proxy(inbox, {
    get(target, property, receiver) {
      if (property !== "on") return Reflect.get(target, property, receiver);
      return (type: unknown, listener: Listener) => {
        const listeners = byType.get(type);
        if (listeners) listeners.push(listener);
        else {
          const list = [listener];
          byType.set(type, list);
          on(type, (ctx, activity) => dispatch(list, ctx, activity));
        }
        return shared;
      };
    },
  });
  function listenersFor(activity: Activity): InboxListeners | null {
    let type: unknown = activity.constructor;
    while (typeof type === "function") {
      const listeners = byType.get(type);
      if (listeners) return listeners;
      if (type === Activity) return null;
      type = Object.getPrototypeOf(type);
    }
    return null;
  }

  return { inbox: shared, dispatcher: { listenersFor, dispatch } };
}
