import type { Context, Federation } from "@fedify/fedify";
import { Delete, QuoteAuthorization, QuoteRequest } from "@fedify/fedify/vocab";
import type { AccountRow } from "../../ports/storage-schema.js";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";
import type { KithServices } from "../core-services.js";
import type { ServiceDeps } from "../service-deps.js";
import type { MediaUrls } from "../federation/actors.js";
import { findAccountById } from "../accounts/accounts-store.js";
import { flag } from "./notes.js";
import { STAMP_PATH, quoteAuthorizationOf, quoteRequestUriOf, stampUriOf } from "./quote-objects.js";
import { recipientOfAccount } from "./quote-inbox.js";
import { storedQuoteState } from "./quote-policy.js";
import { statusObjectOf } from "./status-objects.js";
import { findStatus } from "./statuses-store.js";

export interface QuoteOutboxOptions {
  readonly deps: Pick<ServiceDeps, "storage" | "config">;
  readonly services: Pick<KithServices, "events" | "domainPolicy">;
  readonly media: MediaUrls | null;
  /** A context for work outside a request. */
  readonly context: () => Context<FederationContextData>;
}

/**
 * Quote posts between servers (FEP-044f), the sending side: a local status quoting another server's status asks its
 * author with a QuoteRequest carrying the quoting Note; a revoked quote of a local status by another server's status
 * has its stamp deleted, so that server stops showing the quote.
 */
export function federateQuotes(options: QuoteOutboxOptions): void {
  const { deps, services } = options;
  const db = deps.storage.db;
  const origin = deps.config.origin;

  async function sendTo(sender: AccountRow, account: AccountRow, activity: QuoteRequest | Delete): Promise<void> {
    const recipient = recipientOfAccount(account);
    if (!recipient?.id || (await services.domainPolicy.policyFor(recipient.id.host)).blocked) return;
    await options.context().sendActivity({ identifier: sender.username }, recipient, activity);
  }

  services.events.on("quote.created", async (event) => {
    if (event.state !== "pending") return;
    const [quoting, quoted, author, quotedAuthor] = await Promise.all([
      findStatus(db, event.statusId),
      findStatus(db, event.quotedStatusId),
      findAccountById(db, event.accountId),
      findAccountById(db, event.quotedAccountId),
    ]);
    if (!quoting || !flag(quoting.local) || !quoted || flag(quoted.local) || !quoted.uri) return;
    if (!author || author.domain !== null || !quotedAuthor || quotedAuthor.domain === null) return;
    const note = await statusObjectOf({ db, origin, media: options.media }, quoting);
    if (!note?.id) return;
    const request = new QuoteRequest({
      id: new URL(quoteRequestUriOf(note.id.href)),
      actor: options.context().getActorUri(author.username),
      object: new URL(quoted.uri),
      instrument: note,
    });
    await sendTo(author, quotedAuthor, request);
  });

  services.events.on("quote.revoked", async (event) => {
    const [quoting, quotedAuthor, author] = await Promise.all([
      findStatus(db, event.statusId),
      findAccountById(db, event.quotedAccountId),
      findAccountById(db, event.accountId),
    ]);
    if (!quoting || flag(quoting.local) || !quotedAuthor || quotedAuthor.domain !== null || !author?.uri) return;
    const stamp = stampUriOf(origin, quotedAuthor.username, quoting.id);
    const actor = options.context().getActorUri(quotedAuthor.username);
    await sendTo(
      quotedAuthor,
      author,
      new Delete({ id: new URL(`${stamp}#delete`), actor, object: new URL(stamp), tos: [new URL(author.uri)] }),
    );
  });
}

/** Serves the stamps of accepted quotes of local statuses at their ids, as FEP-044f asks them to be dereferenceable. */
export function dispatchQuoteAuthorizations(
  federation: Federation<FederationContextData>,
  env: { readonly deps: Pick<ServiceDeps, "storage" | "config">; readonly accountFor: (identifier: string) => Promise<AccountRow | null> },
): void {
  const db = env.deps.storage.db;
  federation.setObjectDispatcher(QuoteAuthorization, STAMP_PATH, async (_ctx, values) => {
    const author = await env.accountFor(values.identifier);
    const quoting = author ? await findStatus(db, values.id) : null;
    if (!author || !quoting?.quote_id || storedQuoteState(quoting.quote_state) !== "accepted") return null;
    const quoted = await findStatus(db, quoting.quote_id);
    const quotingAuthor = await findAccountById(db, quoting.account_id);
    if (!quoted || quoted.account_id !== author.id || !quotingAuthor) return null;
    return quoteAuthorizationOf(env.deps.config.origin, { status: quoted, author }, { status: quoting, author: quotingAuthor });
  });
}
