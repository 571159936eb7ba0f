/** What other modules use of the social core's federation: the instance actor's identifier, and the relays hook. */
export { INSTANCE_ACTOR_IDENTIFIER } from "./actors.js";
export type { RelaySubscriptions } from "./relay-directory.js";
