import { KithError } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import type { EndorsementSource } from "../accounts/index.js";
import type { ServiceDeps } from "../service-deps.js";
import { endorsementErrors, endorsementIds } from "./endorsement-ids.js";
import type { EndorsementEntry, EndorsementsStore } from "./endorsements-store.js";

/**
 * Endorsements: the accounts an account features on its profile, as
 * Mastodon's. Only a followed account may be endorsed, and ending the
 * follow ends the endorsement.
 */
export class EndorsementService implements EndorsementSource {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly store: EndorsementsStore,
  ) {}

  async endorse(accountId: string, targetId: string): Promise<void> {
    if (!(await this.store.activeAccount(targetId))) throw new KithError("account.not_found");
    if (!(await this.store.follows(accountId, targetId))) throw new KithError(endorsementErrors["endorsement.not_followed"]);
    await this.store.insert({
      id: this.deps.ids.next(endorsementIds.accountEndorsement),
      account_id: accountId,
      target_account_id: targetId,
      created_at: this.deps.clock.now().toISOString(),
    });
  }

  /** Ends an endorsement; one that does not exist is already ended. */
  async unendorse(accountId: string, targetId: string): Promise<void> {
    if (!(await this.store.activeAccount(targetId))) throw new KithError("account.not_found");
    await this.store.delete(accountId, targetId);
  }

  /** Called when `accountId` stops following `targetId`, whichever way the follow ended. */
  async followEnded(accountId: string, targetId: string): Promise<void> {
    await this.store.delete(accountId, targetId);
  }

  /** The caller's own endorsements. */
  async mine(accountId: string, page: PageRequest): Promise<EndorsementEntry[]> {
    return this.store.page(accountId, page);
  }

  /**
   * The accounts shown as endorsed on a profile: none when its owner blocks
   * the viewer, or hides whom they follow from others (the endorsed are
   * among those).
   */
  async ofAccount(viewerId: string | null, accountId: string, page: PageRequest): Promise<EndorsementEntry[]> {
    const account = await this.store.activeAccount(accountId);
    if (!account) throw new KithError("account.not_found");
    if (viewerId === accountId) return this.store.page(accountId, page);
    const hidden = account.hide_collections === true || account.hide_collections === 1;
    if (hidden || (viewerId !== null && (await this.store.blocks(accountId, viewerId)))) return [];
    return this.store.page(accountId, page);
  }

  endorsedAmong(accountId: string, targetIds: readonly string[]): Promise<ReadonlySet<string>> {
    return this.store.endorsedAmong(accountId, targetIds);
  }

  endorsedIds(accountId: string): Promise<readonly string[]> {
    return this.store.endorsedIds(accountId);
  }
}
