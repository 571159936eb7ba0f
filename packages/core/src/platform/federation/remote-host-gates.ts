/**
 * What the inbox guard and the delivery gate ask of the features about a remote host. The platform declares only
 * the questions; the domain policy and federation monitoring services answer them, so the gates know neither.
 */

/** Whether anything may be exchanged with a host, and why not, for logs. */
export interface HostAdmission {
  /** Nothing is exchanged with the host (suspended, or not on the allowlist in allowlist mode). */
  readonly blocked: boolean;
  /** Why it is blocked, or null. */
  readonly reason: string | null;
}

/** The domain policy as the gates read it. */
export interface HostPolicies {
  policyFor(host: string): Promise<HostAdmission>;
}

/** Where incoming activities and deliveries are counted, and unreachable hosts remembered. */
export interface FederationTraffic {
  /** Records the outcome of one delivery attempt to an inbox. */
  recordDelivery(inbox: URL, outcome: "success" | "failure"): Promise<void>;
  /** Records deliveries that reached these inboxes. */
  recordSuccesses(inboxes: readonly URL[]): Promise<void>;
  /** Whether a delivery to this host should be skipped for now (it is marked unreachable and was tried lately). */
  skipsDeliveryTo(host: string): Promise<boolean>;
  /** Counts one accepted incoming activity from a host. */
  recordInbox(host: string): Promise<void>;
}
