import type { InboxListenerSetters } from "@fedify/fedify";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";
import type { ModuleVocabulary } from "../module.js";
import type { RelayService } from "./relay-service.js";

/**
 * A relay's answer to the Follow that subscribed to it: Accept or Reject
 * naming that Follow by its id, from the relay (see `RelayService.answered`).
 * Answers to other Follows are the core's, and ignored here.
 */
export function listenForRelayAnswers(
  relays: RelayService,
  inbox: InboxListenerSetters<FederationContextData>,
  vocab: ModuleVocabulary,
): void {
  inbox
    .on(vocab.Accept, (_ctx, accept) => relays.answered({ actor: accept.actorId, follow: accept.objectId }, "accepted"))
    .on(vocab.Reject, (_ctx, reject) => relays.answered({ actor: reject.actorId, follow: reject.objectId }, "rejected"));
}
