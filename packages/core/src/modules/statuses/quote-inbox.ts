import type { InboxContext, InboxListenerSetters } from "@fedify/fedify";
import { Accept, type Activity, Delete, QuoteRequest, type Recipient, Reject, isActor } from "@fedify/fedify/vocab";
import type { AccountRow } from "../../ports/storage-schema.js";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";
import { readProperty, requireNetwork } from "../../platform/federation/inbox-request-pass.js";
import { findAccountById } from "../accounts/accounts-store.js";
import { findAccountByUri } from "../federation/federation-writes-store.js";
import { followBarrier } from "../relationships/relationships-store.js";
import { quoteDecision, storedQuoteState } from "./quote-policy.js";
import { stampUriOf } from "./quote-objects.js";
import { bumpQuotesCount, findQuoteByAuthorization, followedAmong, moveQuoteState } from "./quotes-store.js";
import { isIncomingStatusObject, localStatusAt, sameOrigin, storeRemoteStatus } from "./remote-statuses.js";
import type { StatusInboxDeps } from "./status-inbox.js";
import { findStatus } from "./statuses-store.js";

type Ctx = InboxContext<FederationContextData>;

/** Where a remote account is sent to: its inbox. */
export function recipientOfAccount(account: Pick<AccountRow, "uri" | "inbox_url" | "shared_inbox_url">): Recipient | null {
  if (account.uri === null || account.inbox_url === null) return null;
  return {
    id: new URL(account.uri),
    inboxId: new URL(account.inbox_url),
    endpoints: { sharedInbox: account.shared_inbox_url ? new URL(account.shared_inbox_url) : null },
  };
}

/**
 * Quote posts between servers (FEP-044f), the receiving side: a QuoteRequest for a local status is answered with an
 * Accept carrying a QuoteAuthorization stamp when the status's policy lets the requester quote it, else a Reject; the
 * Accept or Reject of a local status's QuoteRequest settles its quote; a Delete of a stamp revokes the quote it
 * authorized. Each is idempotent: a quote moves only from the states the activity answers.
 */
export function listenForQuotes(inbox: InboxListenerSetters<FederationContextData>, env: StatusInboxDeps): void {
  const db = env.deps.storage.db;
  const origin = env.deps.config.origin;

  /** The remote account that sent an activity of its own server, or null. */
  async function remoteSender(ctx: Ctx, activity: Activity): Promise<AccountRow | null> {
    const actorId = activity.actorId;
    if (!actorId || ctx.parseUri(actorId)?.type === "actor") return null;
    if (activity.id && !sameOrigin(activity.id, actorId)) return null;
    if ((await env.services.domainPolicy.policyFor(actorId.host)).blocked) return null;
    const known = await findAccountByUri(db, actorId.href);
    if (known) return known.suspended_at === null ? known : null;
    requireNetwork(ctx, actorId.href);
    const actor = await activity.getActor({ documentLoader: ctx.documentLoader, suppressError: true });
    if (!actor || !isActor(actor) || actor.id?.href !== actorId.href) return null;
    const account = await env.actors.remember(actor);
    return account && account.suspended_at === null ? account : null;
  }

  async function onQuoteRequest(ctx: Ctx, request: QuoteRequest): Promise<void> {
    const requester = await remoteSender(ctx, request);
    const recipient = requester && recipientOfAccount(requester);
    if (!requester?.uri || !recipient || !request.id) return;
    const quoted = await localStatusAt(ctx, db, request.objectId);
    const quotedAuthor = quoted && (await findAccountById(db, quoted.account_id));
    if (!quoted || !quotedAuthor) return;
    // The quoting status, as the request carries it (or fetched): the requester's own, stored like any other.
    const instrument = await readProperty(ctx, (options) => request.getInstrument(options));
    if (!isIncomingStatusObject(instrument) || !instrument.id) return;
    if (!sameOrigin(instrument.id, request.actorId) || instrument.attributionId?.href !== requester.uri) return;
    const quotingId = await storeRemoteStatus(ctx, env, instrument, requester);
    const quoting = quotingId ? await findStatus(db, quotingId) : null;
    const actor = ctx.getActorUri(quotedAuthor.username);
    const follows = quoted.quote_policy === "followers" && (await followedAmong(db, requester.id, [quoted.account_id])).size > 0;
    // A block either way, or the quoted author's block of the requester's domain, refuses whatever the policy says.
    const barred = (await followBarrier(db, requester.id, quoted.account_id)) !== null;
    const decision = barred ? "denied" : quoteDecision({ ...quoted, local: true }, { accountId: requester.id, follows });
    if (!quoting || quoting.quote_id !== quoted.id || decision !== "automatic") {
      if (quoting?.quote_id === quoted.id)
        await moveQuoteState(db, { quotingId: quoting.id, quotedId: quoted.id }, ["pending"], "rejected");
      const id = new URL(`${actor.href}#quote-rejects/${encodeURIComponent(request.id.href)}`);
      await ctx.sendActivity({ identifier: quotedAuthor.username }, recipient, new Reject({ id, actor, object: request }));
      return;
    }
    const stamp = new URL(stampUriOf(origin, quotedAuthor.username, quoting.id));
    const accepted = await env.deps.storage.transaction(async (trx) => {
      const moved = await moveQuoteState(trx, { quotingId: quoting.id, quotedId: quoted.id }, ["pending", "rejected"], "accepted");
      if (moved) await bumpQuotesCount(trx, quoted.id, 1);
      return moved;
    });
    // Answered again when asked again: the first answer may have been lost.
    await ctx.sendActivity(
      { identifier: quotedAuthor.username },
      recipient,
      new Accept({ id: new URL(`${stamp.href}#accept`), actor, object: request, result: stamp }),
    );
    if (!accepted) return;
    await env.services.events.emit({
      type: "quote.created",
      statusId: quoting.id,
      accountId: requester.id,
      quotedStatusId: quoted.id,
      quotedAccountId: quoted.account_id,
      state: "accepted",
    });
  }

  /** The Accept or Reject of the QuoteRequest a local status's quote sent, by the quoted status's author only. */
  async function onAnswer(ctx: Ctx, answer: Accept | Reject): Promise<void> {
    const asked = answer.objectId;
    if (asked?.hash !== "#quote-request" || !answer.actorId) return;
    const note = new URL(asked.href);
    note.hash = "";
    const quoting = await localStatusAt(ctx, db, note);
    const quoted = quoting?.quote_id ? await findStatus(db, quoting.quote_id) : null;
    const quotedAuthor = quoted && (await findAccountById(db, quoted.account_id));
    if (!quoting || !quoted || quotedAuthor?.uri !== answer.actorId.href) return;
    const quote = { quotingId: quoting.id, quotedId: quoted.id };
    if (answer instanceof Accept) {
      const stamp = answer.resultId;
      if (!stamp || !sameOrigin(stamp, answer.actorId)) return;
      await env.deps.storage.transaction(async (trx) => {
        if (await moveQuoteState(trx, quote, ["pending", "rejected"], "accepted", stamp.href)) await bumpQuotesCount(trx, quoted.id, 1);
      });
      return;
    }
    const was = storedQuoteState(quoting.quote_state);
    await env.deps.storage.transaction(async (trx) => {
      const moved = await moveQuoteState(trx, quote, ["pending", "accepted"], "rejected");
      if (moved && was === "accepted") await bumpQuotesCount(trx, quoted.id, -1);
    });
  }

  /** A stamp deleted by the server that gave it: the quote it authorized is revoked. */
  async function onDelete(_ctx: Ctx, del: Delete): Promise<void> {
    const stamp = del.objectId;
    if (!stamp || !sameOrigin(stamp, del.actorId)) return;
    const quoting = await findQuoteByAuthorization(db, stamp.href);
    const quotedId = quoting?.quote_id;
    if (!quoting || !quotedId) return;
    await env.deps.storage.transaction(async (trx) => {
      const moved = await moveQuoteState(trx, { quotingId: quoting.id, quotedId }, ["accepted"], "revoked");
      if (moved) await bumpQuotesCount(trx, quotedId, -1);
    });
  }

  inbox
    .on(QuoteRequest, (ctx, request) => onQuoteRequest(ctx, request))
    .on(Accept, (ctx, accept) => onAnswer(ctx, accept))
    .on(Reject, (ctx, reject) => onAnswer(ctx, reject))
    .on(Delete, (ctx, del) => onDelete(ctx, del));
}
