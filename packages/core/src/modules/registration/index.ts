/** What other modules use of registration: the access blocks they answer, and email domains as registration reads them. */
export type { AccessBlocks, SignUpAttempt, SignUpVerdict } from "./access-blocks.js";
export { domainAndParents, normalizeDomain } from "./email-address.js";
