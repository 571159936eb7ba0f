import type { KithConfig } from "../../config.js";

/** Who the server is to WebAuthn: its origin, and the RP ID (the origin's host name) credentials are scoped to. */
export interface RelyingParty {
  readonly id: string;
  readonly name: string;
  readonly origin: string;
}

export function relyingPartyOf(config: KithConfig): RelyingParty {
  const url = new URL(config.origin);
  return { id: url.hostname, name: url.host, origin: url.origin };
}
