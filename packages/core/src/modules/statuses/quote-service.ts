import { KithError } from "../../domain/errors.js";
import type { DomainEvents } from "../../platform/events/domain-events.js";
import type { PageRequest } from "../../platform/http/pagination.js";
import type { ServiceDeps } from "../service-deps.js";
import type { StatusService } from "./status-service.js";
import { type ChosenQuotePolicy, policyOfNewStatus, storedQuoteState } from "./quote-policy.js";
import { bumpQuotesCount, findQuoteOf, listAcceptedQuoteIds, moveQuoteState, setQuotePolicy } from "./quotes-store.js";

/**
 * What the author of a quoted status does about its quotes (Mastodon 4.5): list them, revoke one, and change who may
 * quote the status. Making a quote is part of posting (`StatusService.post`); answering other servers' quote requests
 * is the federation's (quote-inbox.ts).
 */
export class QuoteService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage">,
    private readonly events: DomainEvents,
    private readonly statuses: Pick<StatusService, "findOwn">,
  ) {}

  /** The ids of a page of the accepted quotes of one of the caller's statuses, newest first. */
  async quoteIds(accountId: string, statusId: string, page: PageRequest): Promise<string[]> {
    const status = await this.statuses.findOwn(statusId, accountId);
    return listAcceptedQuoteIds(this.deps.storage.db, status.id, page);
  }

  /**
   * Takes back a quote of one of the caller's statuses: the quote reads as revoked and no longer shows the status, and
   * the quoting status's server hears of it (its stamp is deleted). 404 when `quotingId` does not quote the status.
   */
  async revoke(accountId: string, statusId: string, quotingId: string): Promise<void> {
    const status = await this.statuses.findOwn(statusId, accountId);
    const quoting = await findQuoteOf(this.deps.storage.db, status.id, quotingId);
    if (!quoting) throw new KithError("status.not_found");
    const state = storedQuoteState(quoting.quote_state);
    if (state !== "accepted" && state !== "pending") return;
    const revoked = await this.deps.storage.transaction(async (trx) => {
      const moved = await moveQuoteState(trx, { quotingId, quotedId: status.id }, [state], "revoked");
      if (moved && state === "accepted") await bumpQuotesCount(trx, status.id, -1);
      return moved;
    });
    if (!revoked) return;
    await this.events.emit({
      type: "quote.revoked",
      statusId: quotingId,
      accountId: quoting.account_id,
      quotedStatusId: status.id,
      quotedAccountId: accountId,
      authorization: quoting.quote_authorization,
    });
  }

  /** Mastodon's interaction policy: who may quote one of the caller's statuses from now on (private and direct: nobody). */
  async setPolicy(accountId: string, statusId: string, policy: ChosenQuotePolicy): Promise<void> {
    const status = await this.statuses.findOwn(statusId, accountId);
    await setQuotePolicy(this.deps.storage.db, status.id, policyOfNewStatus(policy, status.visibility));
  }
}
