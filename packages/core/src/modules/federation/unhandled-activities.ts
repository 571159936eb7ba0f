import type { InboxListenerSetters } from "@fedify/fedify";
import { Activity } from "@fedify/fedify/vocab";
import { getLogger } from "../../logging.js";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";

const logger = getLogger(["federation", "inbox"]);

/**
 * Activities of a type no part of Kith handles (a `Read`, a `View`, a type
 * of another project): accepted and passed over, logged for debugging. An
 * activity Kith does not act on is no failure, and Fedify would log it as
 * an error ("Unsupported activity type").
 */
export function passOverUnhandledActivities(inbox: InboxListenerSetters<FederationContextData>): void {
  inbox.on(Activity, (_ctx, activity) => {
    logger.debug("Passed over {activity}, of a type Kith does not handle", { activity: activity.id?.href });
  });
}
