import type { KithConfig } from "../../config.js";

/** The User-Agent of every request Kith makes to other servers. */
export function userAgentOf(config: Pick<KithConfig, "version" | "origin">): string {
  return `Kith/${config.version} (+${config.origin}/)`;
}
