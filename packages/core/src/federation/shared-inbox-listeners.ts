import type { InboxContext, InboxListenerSetters } from "@fedify/fedify";
import type { Activity } from "@fedify/fedify/vocab";
import { getLogger } from "../logging.js";
import type { FederationContextData } from "./kith-federation.js";

const logger = getLogger(["federation", "inbox"]);

type Listener = (ctx: InboxContext<FederationContextData>, activity: Activity) => unknown;

/**
 * Fedify takes one listener per activity type, and several parts of Kith
 * listen to the same types (Undo of a follow, a like, a boost or a block;
 * Delete and Update of a post or of an actor): the returned setters run
 * every listener given for a type, in order, each ignoring what is not its
 * own. One listener failing does not keep the others from their part; the
 * first error is raised afterwards, so Fedify still sees the activity fail.
 * `before` runs first for every activity of every type; its failure is
 * logged and keeps no listener from running.
 */
export function withSharedListeners(
  inbox: InboxListenerSetters<FederationContextData>,
  before?: Listener,
): InboxListenerSetters<FederationContextData> {
  const byType = new Map<unknown, Listener[]>();
  const on = inbox.on.bind(inbox) as (type: unknown, listener: Listener) => unknown;
  const shared: InboxListenerSetters<FederationContextData> = new Proxy(inbox, {
    get(target, property, receiver) {
      if (property !== "on") return Reflect.get(target, property, receiver);
      return (type: unknown, listener: Listener) => {
        const listeners = byType.get(type);
        if (listeners) listeners.push(listener);
        else {
          const list = [listener];
          byType.set(type, list);
          on(type, async (ctx, activity) => {
            try {
              await before?.(ctx, activity);
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
            }
            if (errors.length > 0) throw errors[0];
          });
        }
        return shared;
      };
    },
  });
  return shared;
}
