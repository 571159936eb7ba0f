import { localAccountUrls } from "../../mastodon/serializers/account.js";
import { KithError, isKithError } from "../../domain/errors.js";
import { findPasswordHash } from "../credentials/credential-accounts-store.js";
import { findAccountById } from "../accounts/accounts-store.js";
import { localFollowerIds, setAlsoKnownAs, setMovedTo } from "./remote-graph-store.js";
import type { AccountRow } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";
import type { DomainEvents } from "../../platform/events/domain-events.js";
import type { FollowService } from "../relationships/follow-service.js";
import type { RemoteAccountService } from "./remote-account-service.js";

function urisOf(json: string): string[] {
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? parsed.filter((value): value is string => typeof value === "string") : [];
  } catch {
    return [];
  }
}

/**
 * Account migration as Mastodon does it in its settings: the new account
 * first names the old one as an alias (`alsoKnownAs`), then the old account
 * moves to it, which tells its followers' servers (Move) to follow the new
 * one. Moving needs the password, as in Mastodon.
 */
export class AccountMigrationService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "config" | "passwords">,
    private readonly events: DomainEvents,
    private readonly remote: RemoteAccountService,
    private readonly follows: FollowService,
  ) {}

  /** The actor URIs the account says it also is. */
  async aliases(accountId: string): Promise<string[]> {
    return urisOf((await this.#local(accountId)).also_known_as);
  }

  /** Names another account (handle or URL, here or elsewhere) as one this account also is. */
  async addAlias(accountId: string, identifier: string): Promise<string[]> {
    const account = await this.#local(accountId);
    const other = await this.#target(identifier);
    if (other.id === account.id) throw new KithError("relationship.self");
    const uri = this.#uriOf(other);
    const current = urisOf(account.also_known_as);
    if (current.includes(uri)) return current;
    const next = [...current, uri];
    await setAlsoKnownAs(this.deps.storage.db, accountId, next);
    await this.events.emit({ type: "account.updated", accountId });
    return next;
  }

  async removeAlias(accountId: string, identifier: string): Promise<string[]> {
    const account = await this.#local(accountId);
    const other = await this.#target(identifier);
    const next = urisOf(account.also_known_as).filter((uri) => uri !== this.#uriOf(other));
    await setAlsoKnownAs(this.deps.storage.db, accountId, next);
    await this.events.emit({ type: "account.updated", accountId });
    return next;
  }

  /**
   * Moves the account to another one, which must name it as an alias (read
   * from its server now, not from a cached copy); its followers are told.
   */
  async moveTo(accountId: string, identifier: string, password: string): Promise<AccountRow> {
    const account = await this.#local(accountId);
    const stored = await findPasswordHash(this.deps.storage.db, accountId);
    if (!(await this.deps.passwords.verify(password, stored))) throw new KithError("credentials.wrong_password");
    let target = await this.#target(identifier);
    if (target.id === account.id) throw new KithError("relationship.self");
    if (target.domain !== null && target.uri) {
      const refreshed = await this.remote.directory.resolveAccount(target.uri);
      target = (refreshed ? await findAccountById(this.deps.storage.db, refreshed) : null) ?? target;
    }
    if (target.moved_to_account_id !== null) throw new KithError("migration.target_moved");
    if (!urisOf(target.also_known_as).includes(this.#uriOf(account))) throw new KithError("migration.alias_missing");
    await setMovedTo(this.deps.storage.db, accountId, target.id, this.deps.clock.now().toISOString());
    await this.events.emit({ type: "account.moved", accountId, targetAccountId: target.id });
    await this.moveLocalFollowers(accountId, target.id);
    return target;
  }

  /**
   * Local followers of a moved account follow its new one instead (a request
   * where the new one asks first); one that may not follow it (a block)
   * keeps following nobody there rather than failing the rest.
   */
  async moveLocalFollowers(fromId: string, toId: string): Promise<void> {
    for (const followerId of await localFollowerIds(this.deps.storage.db, fromId)) {
      if (followerId === toId) continue;
      try {
        await this.follows.follow(followerId, toId);
        await this.follows.unfollow(followerId, fromId);
      } catch (error) {
        if (!isKithError(error)) throw error;
      }
    }
  }

  #uriOf(account: AccountRow): string {
    return account.domain === null ? localAccountUrls(this.deps.config.origin, account.username).uri : (account.uri ?? "");
  }

  async #local(accountId: string): Promise<AccountRow> {
    const account = await findAccountById(this.deps.storage.db, accountId);
    if (!account || account.domain !== null) throw new KithError("account.not_found");
    return account;
  }

  async #target(identifier: string): Promise<AccountRow> {
    const id = await this.remote.resolve(identifier);
    const row = id ? await findAccountById(this.deps.storage.db, id) : null;
    if (!row) throw new KithError("account.not_found");
    return row;
  }
}
