import { defineErrorCodes } from "../../domain/error-catalog.js";
import { defineIdKinds } from "../../domain/ids.js";

/** Relays are `rl_…`, time-ordered like every Kith id. */
export const relayIds = defineIdKinds({ relay: "rl" });

/** The relays module's error codes, answered with the error body every route uses. */
export const relayErrors = defineErrorCodes({
  "relay.not_found": { status: 404, message: "Relay not found" },
  "relay.already_added": { status: 409, message: "A relay with that inbox is already added" },
  "relay.already_enabled": { status: 409, message: "The relay is already subscribed to, or its answer is awaited" },
  "relay.not_enabled": { status: 409, message: "The relay is not subscribed to" },
  "relay.private_address": { status: 422, message: "The relay's address is not a public one" },
  "relay.actor_unavailable": { status: 422, message: "No relay actor with an inbox could be fetched from that URL" },
});
