/**
 * What the federation asks of the relays this server subscribes to: the
 * inboxes its public statuses also go to, and which actors pass on other
 * servers' statuses (a relay's Announce is no boost of the relay's). The
 * relays module answers; without it there are none.
 */
export interface RelaySubscriptions {
  /** The inboxes of the relays that accepted this server's subscription. */
  acceptedInboxes(): Promise<readonly URL[]>;
  /** Whether `actor` is a relay that accepted this server's subscription. */
  isRelayActor(actor: URL): Promise<boolean>;
}

/** The relays as the core sees them: none until a module binds its subscriptions. */
export class RelayDirectory implements RelaySubscriptions {
  #subscriptions: RelaySubscriptions | null = null;

  /** Answers the federation's questions from `subscriptions` from now on. */
  bind(subscriptions: RelaySubscriptions): void {
    this.#subscriptions = subscriptions;
  }

  async acceptedInboxes(): Promise<readonly URL[]> {
    return this.#subscriptions ? this.#subscriptions.acceptedInboxes() : [];
  }

  async isRelayActor(actor: URL): Promise<boolean> {
    return this.#subscriptions ? this.#subscriptions.isRelayActor(actor) : false;
  }
}
