/**
 * What only the federation layer can do for services: reach other servers.
 * Services are built before Fedify is (Fedify's listeners call services), so
 * the federation binds its implementation once it exists; until then every
 * call fails as if the remote server were unreachable.
 */
export interface RemoteDirectory {
  /**
   * Fetches a remote actor by `user@host` handle or actor URL and stores (or
   * refreshes) it as an account; its id, or null when nothing is found there.
   */
  resolveAccount(identifier: string): Promise<string | null>;
  /**
   * One page of a remote actor's followers or following collection: the
   * actors in it, each stored as an account, in the collection's order.
   * Null when the collection cannot be fetched or is hidden.
   */
  collectionPage(actorUri: string, which: RemoteCollection, range: { readonly offset: number; readonly limit: number }): Promise<string[] | null>;
  /** Sends a Flag to the home server of a remote account, signed by the instance actor (queued). */
  sendFlag(flag: FlagInput): Promise<void>;
}

export type RemoteCollection = "followers" | "following";

/** A report forwarded to the reported account's server. */
export interface FlagInput {
  /** The local account that reported (not named in the Flag: Mastodon sends reports as the instance). */
  readonly reporterId: string;
  /** The reported remote account. */
  readonly targetAccountId: string;
  /** URIs of the reported statuses (of that account). */
  readonly statusUris: readonly string[];
  readonly comment: string;
}

/** Until the federation is bound: no server is reachable. */
export const unboundDirectory: RemoteDirectory = {
  resolveAccount: async () => null,
  collectionPage: async () => null,
  sendFlag: async () => {
    throw new Error("Federation is not set up");
  },
};
