import { z } from "zod";
import type { Caller, UserCaller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import type { AccountPage } from "../relationships/relationship-service.js";
import type { KithServices } from "../core-services.js";
import type { AccountEntity } from "../../mastodon/entities/account.js";
import { idPageLinks } from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";

/** Shared pieces of the profile and relationship routes. */

export const AccountParams = z.object({ id: z.string().min(1).max(64) });

export function userOf(caller: Caller): UserCaller {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller;
}

/** Renders accounts in the order given, leaving out ids that no longer exist. */
export async function renderInOrder(services: KithServices, ids: readonly string[]): Promise<AccountEntity[]> {
  const rendered = await services.accountViews.render(ids);
  return ids.flatMap((id) => {
    const account = rendered.get(id);
    return account ? [account] : [];
  });
}

/**
 * A list of accounts paged by the ids of the rows that list them (follows,
 * blocks, mutes), as Mastodon pages them, with the `Link` header clients follow.
 */
export async function accountPageReply(
  services: KithServices,
  url: URL,
  page: AccountPage,
  limit: number,
  decorate: (account: AccountEntity, index: number) => unknown = (account) => account,
): Promise<Reply> {
  const rendered = await services.accountViews.render(page.entries.map((entry) => entry.accountId));
  const body = page.entries.flatMap((entry, index) => {
    const account = rendered.get(entry.accountId);
    return account ? [decorate(account, index)] : [];
  });
  const link = idPageLinks(
    url,
    page.entries.map((entry) => entry.id),
    limit,
  );
  return Reply.json(body, link ? { headers: { link } } : {});
}
