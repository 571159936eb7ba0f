import { getLogger } from "../../logging.js";
import { deleteFollow } from "../federation/federation-writes-store.js";
import { deleteFollowRequestsWithDomain, listFollowsWithDomain } from "./limited-domains-store.js";
import type { ServiceDeps } from "../service-deps.js";

const logger = getLogger(["domain-policy"]);

/**
 * A SUSPEND cuts a domain off: follows and follow requests between local
 * accounts and its accounts (and its subdomains') go, counts kept right.
 * No Undo or Reject is sent: nothing is delivered to a suspended domain.
 */
export async function severDomain(deps: Pick<ServiceDeps, "storage">, domain: string): Promise<number> {
  const severed = await deps.storage.transaction(async (trx) => {
    const follows = await listFollowsWithDomain(trx, domain);
    for (const follow of follows) await deleteFollow(trx, follow.accountId, follow.targetAccountId);
    return follows.length + (await deleteFollowRequestsWithDomain(trx, domain));
  });
  if (severed > 0) logger.info("Suspending {domain} severed {count} follows and follow requests", { domain, count: severed });
  return severed;
}
