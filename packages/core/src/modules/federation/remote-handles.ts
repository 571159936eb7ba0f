import { BoundedMap } from "../../bounded-map.js";
import type { WebFingerDocument } from "../../platform/federation/webfinger-client.js";

/** Looks up `acct:username@host` over the scheme given (the actor's own). */
export type HandleLookup = (resource: string, scheme: "http" | "https") => Promise<WebFingerDocument | null>;

/** Refusals remembered at most; the oldest go first. */
const REFUSALS_MAX = 10_000;
/** How long a refusal stands before the actor's host is asked again. */
const REFUSAL_MS = 10 * 60_000;

/**
 * Whether the handle an actor gives itself is its own: the actor's host,
 * asked by WebFinger for `acct:username@host`, names this very actor as the
 * account's `self` link.
 *
 * Why: a handle is `username@host`, and both parts come from the actor's
 * document, which its server writes as it likes. Without the check, an
 * actor could take the username of another account on its host (a second
 * `admin@host`) and be shown and mentioned as that account. Mastodon makes
 * the same check before it keeps an account.
 *
 * Refusals are remembered for ten minutes, so that an actor whose host
 * refuses it does not cost a lookup for each activity it sends.
 */
export class RemoteHandles {
  readonly #lookup: HandleLookup;
  readonly #now: () => number;
  readonly #refused = new BoundedMap<string, number>(REFUSALS_MAX);

  constructor(lookup: HandleLookup, now: () => number) {
    this.#lookup = lookup;
    this.#now = now;
  }

  async pointsBack(actorUri: URL, username: string): Promise<boolean> {
    const refusedAt = this.#refused.get(actorUri.href);
    if (refusedAt !== undefined && this.#now() - refusedAt < REFUSAL_MS) return false;
    const scheme = actorUri.protocol === "http:" ? "http" : "https";
    const jrd = await this.#lookup(`acct:${username}@${actorUri.host}`, scheme);
    if (jrd?.selfActivityPubUrl === actorUri.href) {
      this.#refused.delete(actorUri.href);
      return true;
    }
    this.#refused.set(actorUri.href, this.#now());
    return false;
  }
}
