import { KithError } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import { adjustFollowCounters, domainBlockPage } from "./relationships-store.js";
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
    const rows = await this.deps.storage.db
      .selectFrom("account_domain_blocks")
      .select("domain")
      .where("account_id", "=", accountId)
      .orderBy("domain")
      .execute();
    return rows.map((row) => row.domain);
  }

  /** Blocks a domain; blocking it again changes nothing. */
  async block(accountId: string, input: string): Promise<string> {
    const domain = this.#domain(input);
    const now = this.deps.clock.now().toISOString();
    const created = await this.deps.storage.transaction(async (trx) => {
      const inserted = await trx
        .insertInto("account_domain_blocks")
        .values({ id: this.deps.ids.next("userDomainBlock"), account_id: accountId, domain, created_at: now })
        .onConflict((oc) => oc.columns(["account_id", "domain"]).doNothing())
        .executeTakeFirst();
      // The domain's accounts on any port of it.
      const ofDomain = trx
        .selectFrom("accounts")
        .select("id")
        .where((eb) => eb.or([eb("domain", "=", domain), eb("domain", "like", `${domain}:%`)]));
      const followers = await trx
        .selectFrom("follows")
        .select(["follows.account_id", "follows.uri"])
        .where("follows.target_account_id", "=", accountId)
        .where("follows.account_id", "in", ofDomain)
        .execute();
      for (const { account_id } of followers) {
        await trx.deleteFrom("follows").where("account_id", "=", account_id).where("target_account_id", "=", accountId).execute();
        await adjustFollowCounters(trx, account_id, accountId, -1);
        await deleteFollowNotifications(trx, account_id, accountId);
      }
      await trx
        .deleteFrom("follow_requests")
        .where("target_account_id", "=", accountId)
        .where("account_id", "in", ofDomain)
        .execute();
      return { inserted: Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0, removedFollowers: followers };
    });
    // With the Follow's id, the follower's server is told (a Reject of it) that the follow is gone.
    for (const follower of created.removedFollowers) {
      await this.events.emit({ type: "follow.removed", accountId: follower.account_id, targetAccountId: accountId, followUri: follower.uri });
    }
    if (created.inserted) await this.events.emit({ type: "domain_block.created", accountId, domain });
    return domain;
  }

  /** Unblocks a domain; `strict` (the spec's endpoint) refuses with 409 when it was not blocked. */
  async unblock(accountId: string, input: string, options: { strict: boolean }): Promise<void> {
    const domain = normalizeDomain(input);
    if (domain === null) throw new KithError("user_domain_block.invalid");
    const result = await this.deps.storage.db
      .deleteFrom("account_domain_blocks")
      .where("account_id", "=", accountId)
      .where("domain", "=", domain)
      .executeTakeFirst();
    if (options.strict && Number(result.numDeletedRows) === 0) throw new KithError("user_domain_block.not_blocked");
  }

  #domain(input: string): string {
    const domain = normalizeDomain(input);
    const own = hostWithoutPort(new URL(this.deps.config.origin).host);
    if (domain === null || domain === own || !domain.includes(".")) throw new KithError("user_domain_block.invalid");
    return domain;
  }
}
