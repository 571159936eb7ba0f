import { KithError } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import { blockedDomains, deleteDomainBlock, domainBlockPage, insertDomainBlock, removeFollowersOnDomain } from "./relationships-store.js";
import { deleteFollowNotifications } from "../notifications/notifications-store.js";
import type { ServiceDeps } from "../service-deps.js";
import { hostWithoutPort, normalizeDomain } from "../domain-policy/domain-names.js";
import type { DomainEvents } from "../../platform/events/domain-events.js";

/**
 * A user's own domain blocks (the spec's user domain blocks and Mastodon's
 * `/api/v1/domain_blocks`, over the same rows). A block hides the domain's
 * statuses and notifications from the user (readers apply `notHiddenFrom`),
 * removes the user's followers from that domain and refuses new follows of
 * its accounts; the user's existing follows there stay.
 */
export class UserDomainBlockService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly events: DomainEvents,
  ) {}

  async list(accountId: string, page: PageRequest): Promise<{ id: string; domain: string }[]> {
    return domainBlockPage(this.deps.storage.db, accountId, page);
  }

  /** Every domain the user blocks, for the spec's unpaginated list. */
  async all(accountId: string): Promise<string[]> {
    return blockedDomains(this.deps.storage.db, accountId);
  }

  /** Blocks a domain; blocking it again changes nothing. */
  async block(accountId: string, input: string): Promise<string> {
    const domain = this.#domain(input);
    const now = this.deps.clock.now().toISOString();
    const created = await this.deps.storage.transaction(async (trx) => {
      const inserted = await insertDomainBlock(trx, { id: this.deps.ids.next("userDomainBlock"), accountId, domain, now });
      const followers = await removeFollowersOnDomain(trx, accountId, domain);
      for (const follower of followers) await deleteFollowNotifications(trx, follower.account_id, accountId);
      return { inserted, removedFollowers: followers };
    });
    // With the Follow's id, the follower's server is told (a Reject of it) that the follow is gone.
    for (const follower of created.removedFollowers) {
      await this.events.emit({
        type: "follow.removed",
        accountId: follower.account_id,
        targetAccountId: accountId,
        followUri: follower.uri,
      });
    }
    if (created.inserted) await this.events.emit({ type: "domain_block.created", accountId, domain });
    return domain;
  }

  /** Unblocks a domain; `strict` (the spec's endpoint) refuses with 409 when it was not blocked. */
  async unblock(accountId: string, input: string, options: { strict: boolean }): Promise<void> {
    const domain = normalizeDomain(input);
    if (domain === null) throw new KithError("user_domain_block.invalid");
    const removed = await deleteDomainBlock(this.deps.storage.db, accountId, domain);
    if (options.strict && !removed) throw new KithError("user_domain_block.not_blocked");
  }

  #domain(input: string): string {
    const domain = normalizeDomain(input);
    const own = hostWithoutPort(new URL(this.deps.config.origin).host);
    if (domain === null || domain === own || !domain.includes(".")) throw new KithError("user_domain_block.invalid");
    return domain;
  }
}
