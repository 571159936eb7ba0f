import type { AccountEntity } from "../../mastodon/entities/account.js";
import { hiddenAuthorIds } from "../streaming/index.js";
import type { ServiceDeps } from "../service-deps.js";
import type { AccountRenderer } from "../statuses/index.js";
import { friendsOfFriends, recentlyActiveLocalAccounts } from "./suggestions-store.js";

export type SuggestionSource = "friends_of_friends" | "global";

export interface Suggestion {
  readonly source: SuggestionSource;
  readonly account: AccountEntity;
}

/**
 * Whom to follow: accounts followed by those the viewer follows (most shared
 * first), then this server's recently active accounts; never the viewer, an
 * account they follow, block or mute, or one that did not opt into discovery.
 */
export class SuggestionService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock">,
    private readonly accounts: AccountRenderer,
  ) {}

  async suggest(viewerId: string, limit: number): Promise<Suggestion[]> {
    const db = this.deps.storage.db;
    // Asked for more than needed: some drop out as hidden.
    const friends = await friendsOfFriends(db, viewerId, limit * 2);
    const active = await recentlyActiveLocalAccounts(db, viewerId, limit * 2);
    const bySource = new Map<string, SuggestionSource>();
    for (const { accountId } of friends) bySource.set(accountId, "friends_of_friends");
    for (const id of active) if (!bySource.has(id)) bySource.set(id, "global");
    const candidates = [...bySource].map(([id, source]) => ({ id, source }));
    const hidden = await hiddenAuthorIds(
      db,
      viewerId,
      candidates.map((c) => c.id),
      this.deps.clock.now().toISOString(),
    );
    const kept = candidates.filter((c) => !hidden.has(c.id)).slice(0, limit);
    const rendered = await this.accounts.render(kept.map((c) => c.id));
    return kept.flatMap((c) => {
      const account = rendered.get(c.id);
      return account ? [{ source: c.source, account }] : [];
    });
  }
}
