/** What other modules use of the social core's federation: the instance actor's identifier, for activities it sends. */
export { INSTANCE_ACTOR_IDENTIFIER } from "./actors.js";
