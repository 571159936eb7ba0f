import type { AccountEntity } from "../../mastodon/entities/account.js";
import type { AccountViews } from "../accounts/index.js";
import type { ServiceDeps } from "../service-deps.js";
import { type DirectoryQuery, directoryPage } from "./directory-store.js";

/** Mastodon's profile directory: accounts that asked to be found, listed for anyone. */
export class DirectoryService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly accountViews: AccountViews,
  ) {}

  async list(query: DirectoryQuery): Promise<AccountEntity[]> {
    const ids = await directoryPage(this.deps.storage.db, query);
    const rendered = await this.accountViews.render(ids);
    return ids.flatMap((id) => {
      const account = rendered.get(id);
      return account ? [account] : [];
    });
  }
}
