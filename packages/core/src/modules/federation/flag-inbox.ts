import type { InboxContext, InboxListenerSetters } from "@fedify/fedify";
import { Flag } from "@fedify/fedify/vocab";
import { getLogger } from "../../logging.js";
import type { ServiceDeps } from "../service-deps.js";
import { findLocalActorAccount } from "./federation-reads-store.js";
import type { KithServices } from "../core-services.js";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";
import { sanitizeHtml, textOfHtml } from "../../platform/federation/html-sanitizer.js";
import { type ActivitySenderDeps, activitySenderOf } from "./activity-senders.js";
import { localStatusAt } from "../statuses/remote-statuses.js";

const logger = getLogger(["federation", "inbox"]);

type Ctx = InboxContext<FederationContextData>;

export interface FlagInboxDeps extends ActivitySenderDeps {
  readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids">;
  readonly services: ActivitySenderDeps["services"] & Pick<KithServices, "flagReceipts">;
}

/** The most objects of a Flag read: the accounts and statuses one report names. */
const MAX_FLAG_OBJECTS = 100;
/** The most of a report's comment kept, as Mastodon's limit on a report's comment. */
const MAX_COMMENT_LENGTH = 1_000;

/**
 * Reports other servers send (`Flag`, as Mastodon forwards a report to the
 * reported account's server): for each local account it names, a report
 * with the account's statuses it names and the comment, filed where
 * moderators handle reports (`FlagReceipts`). Names of other servers' accounts and
 * statuses are passed over.
 */
export function listenForFlags(inbox: InboxListenerSetters<FederationContextData>, env: FlagInboxDeps): void {
  const db = env.deps.storage.db;

  async function onFlag(ctx: Ctx, flag: Flag): Promise<void> {
    const reporter = await activitySenderOf(ctx, env, flag);
    if (!reporter) return;
    const objects = flag.objectIds.slice(0, MAX_FLAG_OBJECTS);
    const targets = new Map<string, string[]>();
    for (const uri of objects) {
      const parsed = ctx.parseUri(uri);
      if (parsed?.type !== "actor") continue;
      const account = await findLocalActorAccount(db, parsed.identifier);
      if (account && !targets.has(account.id)) targets.set(account.id, []);
    }
    for (const uri of objects) {
      const status = await localStatusAt(ctx, db, uri);
      if (!status) continue;
      // A status names its author even where the Flag did not (Mastodon lists the statuses with the account).
      const posts = targets.get(status.account_id) ?? [];
      if (!posts.includes(status.id)) posts.push(status.id);
      targets.set(status.account_id, posts);
    }
    if (targets.size === 0) return;
    const comment = textOfHtml(sanitizeHtml(String(flag.content ?? ""))).slice(0, MAX_COMMENT_LENGTH);
    for (const [targetAccountId, statusIds] of targets) {
      const kept = await env.services.flagReceipts.received({
        reporterId: reporter.id,
        targetAccountId,
        statusIds,
        comment,
        uri: flag.id?.href ?? null,
      });
      if (kept) logger.info("{reporter} reported account {target}", { reporter: reporter.uri, target: targetAccountId });
    }
  }

  inbox.on(Flag, (ctx, flag) => onFlag(ctx, flag));
}
