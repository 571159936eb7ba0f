/** What other modules use of the domain policy: the SQL condition that leaves out accounts of limited domains. */
export { notFromLimitedDomain } from "./limited-domains-store.js";
