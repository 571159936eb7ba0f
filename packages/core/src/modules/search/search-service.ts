import type { GroupAccounts } from "../accounts/group-accounts.js";
import type { AccountEntity } from "../../mastodon/entities/account.js";
import type { StatusEntity } from "../../mastodon/entities/status.js";
import type { FullTagEntity } from "../../mastodon/entities/tag.js";
import { KithError } from "../../domain/errors.js";
import { SEARCH_WINDOWS, searchAccountIds, searchStatusIds, searchTags, searchTerms } from "./search-store.js";
import type { ServiceDeps } from "../service-deps.js";
import type { RemoteAccountService } from "../federation/remote-account-service.js";
import type { AccountRenderer, StatusViews } from "../statuses/status-views.js";
import type { TagService } from "../tags/tag-service.js";
import { normalizeTagName } from "../tags/tag-names.js";
import { CommonTermsMemo } from "./common-terms-memo.js";
import type { DeferredSearchEntries } from "./deferred-search-entries.js";

export type SearchType = "accounts" | "hashtags" | "statuses";

export interface SearchInput {
  readonly q: string;
  readonly type?: SearchType;
  /** Signed in, the query is looked up on other servers: a handle (`@user@host`) or an actor URL finds an account, a status URL a status; either is stored. */
  readonly resolve?: boolean;
  readonly following?: boolean;
  readonly accountId?: string;
  readonly excludeUnreviewed?: boolean;
  readonly maxId?: string;
  readonly minId?: string;
  readonly limit: number;
  readonly offset: number;
}

/** Finds a status of another server by its URL and stores it (the federation provides it); the status's id or null. */
export interface RemoteStatusResolver {
  resolveStatus(url: string, viewerId: string): Promise<string | null>;
}

export interface SearchResults {
  readonly accounts: AccountEntity[];
  readonly statuses: StatusEntity[];
  readonly hashtags: FullTagEntity[];
}

export interface AccountSearchInput {
  readonly q: string;
  readonly following?: boolean;
  readonly resolve?: boolean;
  readonly limit: number;
  readonly offset: number;
}

/**
 * Search of accounts, hashtags and statuses with the full-text index of the
 * storage engine (FTS5 on SQLite, tsvector on PostgreSQL).
 *
 * As Mastodon: guests find accounts and hashtags but not statuses, and may not
 * page with `offset` or ask to `resolve`; statuses found are only those the
 * viewer may see, and of others' public statuses only those whose author opted
 * into discovery; blocked and muted accounts are never found.
 */
export class SearchService {
  readonly #commonTerms: CommonTermsMemo;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly statusViews: StatusViews,
    private readonly accounts: AccountRenderer,
    private readonly tags: TagService,
    private readonly deferredEntries: DeferredSearchEntries,
    /** Groups' accounts of secret groups are found by their members only. */
    private readonly groupAccounts: Pick<GroupAccounts, "hidden">,
    private readonly remote?: RemoteAccountService,
  ) {
    this.#commonTerms = new CommonTermsMemo(deps.clock);
  }

  async search(viewerId: string | null, input: SearchInput): Promise<SearchResults> {
    if (viewerId === null && (input.offset > 0 || input.resolve)) throw new KithError("search.sign_in_required");
    const wants = (type: SearchType) => input.type === undefined || input.type === type;
    const [accounts, statuses, hashtags] = await Promise.all([
      wants("accounts") && !input.q.trim().startsWith("#")
        ? this.findAccounts(viewerId, {
            q: input.q,
            following: input.following ?? false,
            limit: input.limit,
            offset: input.offset,
            resolve: input.resolve ?? false,
          })
        : Promise.resolve([]),
      wants("statuses") && viewerId !== null ? this.findStatuses(viewerId, input) : Promise.resolve([]),
      wants("hashtags") ? this.findHashtags(viewerId, input) : Promise.resolve([]),
    ]);
    return { accounts, statuses, hashtags };
  }

  /** `GET /api/v1/accounts/search`: accounts only, by name prefix and full text. */
  accountSearch(viewerId: string | null, input: AccountSearchInput): Promise<AccountEntity[]> {
    return this.findAccounts(viewerId, {
      q: input.q,
      following: input.following ?? false,
      limit: input.limit,
      offset: input.offset,
      resolve: input.resolve ?? false,
    });
  }

  private async findAccounts(
    viewerId: string | null,
    input: { q: string; following: boolean; limit: number; offset: number; resolve: boolean },
  ): Promise<AccountEntity[]> {
    // As Mastodon: a handle or URL of another server, looked up for a signed-in user, is the one answer.
    if (input.resolve && viewerId !== null && this.remote?.isRemoteIdentifier(input.q)) {
      const id = input.offset === 0 ? await this.remote.resolve(input.q) : null;
      const rendered = id ? await this.accounts.render([id]) : new Map<string, AccountEntity>();
      return id && rendered.get(id) ? [rendered.get(id) as AccountEntity] : [];
    }
    const query = localAcct(input.q, this.deps.config.origin);
    const terms = searchTerms(query);
    if (terms.length === 0 && query.length === 0) return [];
    const ids = await searchAccountIds(this.deps.storage.db, this.deps.storage.capabilities.fullTextSearch, {
      viewerId,
      query,
      terms,
      following: input.following && viewerId !== null,
      limit: input.limit,
      offset: input.offset,
      now: this.deps.clock.now().toISOString(),
    });
    const hidden = await this.groupAccounts.hidden(viewerId, ids);
    const shown = hidden.size > 0 ? ids.filter((id) => !hidden.has(id)) : ids;
    const rendered = await this.accounts.render(shown);
    return shown.flatMap((id) => rendered.get(id) ?? []);
  }

  #statusResolver: RemoteStatusResolver | null = null;

  /** Lets `resolve=true` look status URLs up on other servers. */
  useStatusResolver(resolver: RemoteStatusResolver): void {
    this.#statusResolver = resolver;
  }

  private async findStatuses(viewerId: string, input: SearchInput): Promise<StatusEntity[]> {
    const url = input.q.trim();
    if (input.resolve && this.#statusResolver && /^https?:\/\/\S+$/.test(url)) {
      const id = await this.#statusResolver.resolveStatus(url, viewerId);
      if (id !== null) return this.statusViews.renderList([id], viewerId);
    }
    // Statuses whose entries wait (SQLite) are found like the others.
    await this.deferredEntries.beforeSearch();
    const ids = await searchStatusIds(
      this.deps.storage.db,
      this.deps.storage.capabilities.fullTextSearch,
      {
        viewerId,
        terms: searchTerms(input.q),
        ...(input.accountId !== undefined && { accountId: input.accountId }),
        ...(input.maxId !== undefined && { maxId: input.maxId }),
        ...(input.minId !== undefined && { minId: input.minId }),
        limit: input.limit,
        offset: input.offset,
        now: this.deps.clock.now().toISOString(),
      },
      SEARCH_WINDOWS,
      this.#commonTerms,
    );
    return this.statusViews.renderList(ids, viewerId);
  }

  private async findHashtags(viewerId: string | null, input: SearchInput): Promise<FullTagEntity[]> {
    const name = normalizeTagName(input.q);
    if (!name) return [];
    const rows = await searchTags(this.deps.storage.db, {
      name,
      reviewedOnly: input.excludeUnreviewed ?? false,
      limit: input.limit,
      offset: input.offset,
    });
    return this.tags.render(
      rows.map((row) => ({ ...row, usable: true, trendable: true })),
      viewerId,
    );
  }
}

/** `@alice@this.host` and `alice@this.host` name a local account, whose key is the bare username. */
function localAcct(q: string, origin: string): string {
  const trimmed = q.trim().replace(/^@/, "");
  const host = new URL(origin).host.toLowerCase();
  const at = trimmed.lastIndexOf("@");
  if (at > 0 && trimmed.slice(at + 1).toLowerCase() === host) return trimmed.slice(0, at);
  return trimmed;
}
