import { KithError } from "../../domain/errors.js";
import { findAccountById } from "../accounts/accounts-store.js";
import type { ServiceDeps } from "../service-deps.js";
import type { RemoteAccountService } from "./remote-account-service.js";
import type { FlagInput } from "./remote-directory.js";

/**
 * Forwards a report to the reported account's home server as a Flag
 * activity, signed by the instance actor (so the reporter stays anonymous
 * there, as with Mastodon). Reports call it when the reporter asks to
 * forward; delivery is queued and retried.
 */
export class FlagSender {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage">,
    private readonly remote: RemoteAccountService,
  ) {}

  async send(flag: FlagInput): Promise<void> {
    const db = this.deps.storage.db;
    const [reporter, target] = await Promise.all([findAccountById(db, flag.reporterId), findAccountById(db, flag.targetAccountId)]);
    if (!reporter || !target) throw new KithError("account.not_found");
    if (target.domain === null || !target.uri) throw new KithError("flag.local_target");
    await this.remote.directory.sendFlag(flag);
  }
}
