import type { AccountEntity } from "../../mastodon/entities/account.js";
import { acctKey } from "../../domain/accounts.js";
import { KithError } from "../../domain/errors.js";
import { findAccountById } from "../accounts/accounts-store.js";
import { findAccountByAcctKey } from "./remote-graph-store.js";
import { findAccountByUri } from "./federation-writes-store.js";
import type { AccountRow } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";
import type { AccountViews } from "../accounts/account-views.js";
import { type RemoteCollection, type RemoteDirectory, unboundDirectory } from "./remote-directory.js";

/** A remote account fetched longer ago than this is fetched again when used (Mastodon refreshes after a day too). */
export const STALE_AFTER_MS = 24 * 60 * 60 * 1000;

/** The queue of background refreshes of stale remote accounts. */
export const ACCOUNT_REFRESH_QUEUE = "remote-account-refresh";

interface RefreshJob {
  readonly accountId: string;
}

function isRefreshJob(payload: unknown): payload is RefreshJob {
  return typeof payload === "object" && payload !== null && typeof (payload as { accountId?: unknown }).accountId === "string";
}

/** `@user@host`, `user@host` or `acct:user@host`; null when it is none of these. */
export function parseAcct(input: string): { readonly username: string; readonly host: string } | null {
  const match = /^(?:acct:)?@?([A-Za-z0-9_.-]{1,64})@([A-Za-z0-9.-]{1,253}(?::\d{1,5})?)$/.exec(input.trim());
  if (!match?.[1] || !match[2]) return null;
  return { username: match[1], host: match[2].toLowerCase() };
}

function isActorUrl(input: string): boolean {
  return /^https?:\/\//i.test(input.trim()) && URL.canParse(input.trim());
}

/**
 * Remote accounts as services see them: resolved by handle or URL (and
 * stored), refreshed when stale, their followers and following read from
 * their servers. The reaching out is the federation's, bound after it is
 * built ({@link RemoteDirectory}).
 */
export class RemoteAccountService {
  #directory: RemoteDirectory = unboundDirectory;

  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "config" | "queue">,
    private readonly views: AccountViews,
  ) {
    deps.queue.handle(
      ACCOUNT_REFRESH_QUEUE,
      async (payload) => {
        if (isRefreshJob(payload)) await this.refreshIfStale(payload.accountId);
      },
      { description: "Fetches a remote account again whose copy is older than a day" },
    );
  }

  /** Called once by the federation when it exists. */
  bind(directory: RemoteDirectory): void {
    this.#directory = directory;
  }

  get directory(): RemoteDirectory {
    return this.#directory;
  }

  #ownHost(): string {
    return new URL(this.deps.config.origin).host.toLowerCase();
  }

  /** Whether `input` names an account on another server (a handle with another host, or a URL of another origin). */
  isRemoteIdentifier(input: string): boolean {
    const handle = parseAcct(input);
    if (handle) return handle.host !== this.#ownHost();
    return isActorUrl(input) && new URL(input.trim()).host.toLowerCase() !== this.#ownHost();
  }

  /**
   * The account a handle or actor URL names: a local one by its username (bare or with this host), a
   * known remote one (refreshed when stale), or an unknown remote one
   * fetched and stored. Null when there is none.
   */
  async resolve(input: string): Promise<string | null> {
    const bare = /^@?([A-Za-z0-9_]{1,30})$/.exec(input.trim())?.[1];
    if (bare) return (await findAccountByAcctKey(this.deps.storage.db, acctKey(bare, null)))?.id ?? null;
    const handle = parseAcct(input);
    if (handle) {
      if (handle.host === this.#ownHost())
        return (await findAccountByAcctKey(this.deps.storage.db, acctKey(handle.username, null)))?.id ?? null;
      const known = await findAccountByAcctKey(this.deps.storage.db, acctKey(handle.username, handle.host));
      if (known) return this.#fresh(known);
      return this.#fetch(`${handle.username}@${handle.host}`);
    }
    if (!isActorUrl(input)) return null;
    const url = input.trim();
    const known = await findAccountByUri(this.deps.storage.db, url);
    if (known) return this.#fresh(known);
    if (new URL(url).host.toLowerCase() === this.#ownHost()) return null;
    return this.#fetch(url);
  }

  /** Fetches a remote account again when its copy is older than a day; its id either way. */
  async refreshIfStale(accountId: string): Promise<string> {
    const row = await findAccountById(this.deps.storage.db, accountId);
    return row ? this.#fresh(row) : accountId;
  }

  /**
   * Queues a fetch of a remote account whose copy is stale, for when it is
   * seen (its profile viewed, an activity of it received) and the caller
   * must not wait. One refresh per account waits or runs at a time: a
   * second one queued meanwhile joins the waiting one, and one that runs
   * after a refresh finds the copy fresh and fetches nothing.
   */
  async refreshLater(account: string | AccountRow): Promise<void> {
    const row = typeof account === "string" ? await findAccountById(this.deps.storage.db, account) : account;
    if (!row || row.suspended_at !== null || !this.#stale(row)) return;
    const key = `refresh:${row.id}`;
    await this.deps.queue.enqueue(ACCOUNT_REFRESH_QUEUE, { accountId: row.id } satisfies RefreshJob, {
      deduplicationKey: key,
      orderingKey: key,
      maxAttempts: 1,
    });
  }

  /**
   * `GET /api/v1/users/remote/{userNameFull}/{followers|following}`: the
   * collection read from the user's server, each actor as an Account entity.
   */
  async collection(userNameFull: string, which: RemoteCollection, range: { offset: number; limit: number }): Promise<AccountEntity[]> {
    const handle = parseAcct(userNameFull);
    if (!handle) throw new KithError("remote_account.invalid_name");
    if (handle.host === this.#ownHost()) throw new KithError("remote_account.local");
    const id = await this.resolve(`${handle.username}@${handle.host}`);
    const row = id ? await findAccountById(this.deps.storage.db, id) : null;
    if (!row?.uri || row.domain === null) throw new KithError("account.not_found");
    const ids = await this.#directory.collectionPage(row.uri, which, range);
    if (ids === null) throw new KithError("remote_account.unreachable");
    const rendered = await this.views.render(ids);
    return ids.flatMap((accountId) => rendered.get(accountId) ?? []);
  }

  #stale(row: AccountRow): boolean {
    if (row.domain === null || !row.uri) return false;
    return this.deps.clock.now().getTime() - new Date(row.updated_at).getTime() >= STALE_AFTER_MS;
  }

  async #fresh(row: AccountRow): Promise<string> {
    if (!this.#stale(row) || !row.uri) return row.id;
    // A server that does not answer now leaves the copy we have.
    return (await this.#directory.resolveAccount(row.uri)) ?? row.id;
  }

  async #fetch(identifier: string): Promise<string | null> {
    return this.#directory.resolveAccount(identifier);
  }
}
