import type { AccountEntity } from "../../mastodon/entities/account.js";
import type { StatusEntity } from "../../mastodon/entities/status.js";
import { type SafeHtml, html, trustedHtml } from "./html-template.js";

/**
 * A status and an account as HTML with microformats2 (h-entry, h-card), from
 * the entities the API renders for a guest: a page shows what the API would
 * show the same reader, and nothing else.
 */

const DATE = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });

/** A date as readers see it, in UTC (the page is the same for everyone). */
export function shownDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${DATE.format(date)} UTC`;
}

/** The local page of an account: `/@user` here, `/@user@domain` for a remote one, as Mastodon links them. */
export function profilePath(account: Pick<AccountEntity, "acct">): string {
  return `/@${encodeURIComponent(account.acct).replaceAll("%40", "@")}`;
}

/** The local page of a status and its thread. */
export function statusPath(status: Pick<StatusEntity, "id" | "account">): string {
  return `${profilePath(status.account)}/${encodeURIComponent(status.id)}`;
}

/** The name an account shows, or its username when it set none. */
export function displayName(account: Pick<AccountEntity, "display_name" | "username">): string {
  return account.display_name.trim() || account.username;
}

/** The avatar, decorative beside the name it stands with (so no text of its own for screen readers to repeat). */
function avatar(account: AccountEntity, size: number, mf2 = "u-photo"): SafeHtml {
  return html`<img class="${mf2} avatar" src="${account.avatar_static || account.avatar}" alt="" width="${size}" height="${size}" loading="lazy">`;
}

/** The author of a status as an embedded h-card. */
function author(account: AccountEntity): SafeHtml {
  return html`<div class="entry-head p-author h-card">${avatar(account, 44)}
<div class="names"><a class="p-name u-url" href="${profilePath(account)}">${displayName(account)}</a>
<span class="acct p-nickname">@${account.acct}</span></div></div>`;
}

function attachments(status: StatusEntity): SafeHtml {
  if (status.media_attachments.length === 0) return html``;
  return html`<div class="media">${status.media_attachments.map((media) => {
    const description = media.description ?? "";
    if (media.url === null) return "";
    if (media.type === "image" || media.type === "gifv") {
      const preview = media.preview_url ?? media.url;
      return html`<a href="${media.url}"><img class="u-photo" src="${preview}" alt="${description}" loading="lazy"></a>`;
    }
    const label = description || `${media.type} attachment`;
    return html`<a class="u-${media.type === "video" ? "video" : media.type === "audio" ? "audio" : "url"}" href="${media.url}">${label}</a>`;
  })}</div>`;
}

function poll(status: StatusEntity): SafeHtml {
  if (!status.poll) return html``;
  const { poll } = status;
  return html`<ul class="poll">${poll.options.map(
    (option) =>
      html`<li>${option.title}${option.votes_count === null ? "" : html` (${option.votes_count} ${option.votes_count === 1 ? "vote" : "votes"})`}</li>`,
  )}</ul><p class="meta">${poll.votes_count} ${poll.votes_count === 1 ? "vote" : "votes"}${poll.expired ? " · closed" : ""}</p>`;
}

function counts(status: StatusEntity): SafeHtml {
  const part = (count: number, one: string, many: string) => html`<span>${count} ${count === 1 ? one : many}</span>`;
  return html`${part(status.replies_count, "reply", "replies")}${part(status.reblogs_count, "boost", "boosts")}${part(status.favourites_count, "favourite", "favourites")}`;
}

export interface EntryOptions {
  /** The status the page is about (a thread's focus): marked, and its heading level is the page's. */
  readonly focus?: boolean;
  /** The page of the status it answers, for `u-in-reply-to`. */
  readonly inReplyTo?: string;
}

/** One status as an h-entry; its warning, when it has one, folds its content away without a script. */
export function statusEntry(status: StatusEntity, options: EntryOptions = {}): SafeHtml {
  const content = html`<div class="e-content"${status.language ? html` lang="${status.language}"` : ""}>${trustedHtml(status.content)}</div>
${attachments(status)}${poll(status)}`;
  const folded =
    status.spoiler_text !== ""
      ? html`<details><summary class="p-summary">${status.spoiler_text}</summary>${content}</details>`
      : status.sensitive && status.media_attachments.length > 0
        ? html`<div class="e-content-text">${trustedHtml(status.content)}</div><details><summary>Sensitive media</summary>${attachments(status)}</details>${poll(status)}`
        : content;
  // A remote status links to where it was posted as well.
  const permalink = status.url ?? status.uri;
  return html`<article class="h-entry${options.focus ? " focus" : ""}" id="status-${status.id}">
${author(status.account)}
${options.inReplyTo ? html`<a class="u-in-reply-to" href="${options.inReplyTo}" hidden>In reply to</a>` : ""}
${folded}
<p class="meta"><a class="u-url u-uid" href="${statusPath(status)}"><time class="dt-published" datetime="${status.created_at}">${shownDate(status.created_at)}</time></a>
${status.edited_at ? html`<span>edited <time class="dt-updated" datetime="${status.edited_at}">${shownDate(status.edited_at)}</time></span>` : ""}
${status.visibility === "unlisted" ? html`<span>unlisted</span>` : ""}
${counts(status)}
${status.account.acct.includes("@") ? html`<a href="${permalink}">original</a>` : ""}</p>
</article>`;
}

/** A list of statuses as an h-feed. */
export function statusFeed(statuses: readonly StatusEntity[], label: string): SafeHtml {
  if (statuses.length === 0) return html`<p class="notice">No posts to show.</p>`;
  return html`<section class="h-feed" aria-label="${label}">${statuses.map((status) => statusEntry(status))}</section>`;
}

/** Profile fields, a verified link (rel="me" confirmed) marked as such. */
function fields(account: AccountEntity): SafeHtml {
  if (account.fields.length === 0) return html``;
  return html`<dl class="fields">${account.fields.map(
    (field) =>
      html`<dt>${field.name}</dt><dd${field.verified_at ? html` class="verified" title="Ownership of this link was checked on ${shownDate(field.verified_at)}"` : ""}>${trustedHtml(field.value)}</dd>`,
  )}</dl>`;
}

/** An account's header as an h-card: picture, name, handle, note, fields and counts. */
export function profileCard(account: AccountEntity, handle: string): SafeHtml {
  const kind = account.group ? "Group" : account.bot ? "Automated account" : "";
  return html`<section class="h-card" aria-labelledby="profile-name">
<div class="profile-header">${avatar(account, 96)}
<div><h1 id="profile-name" class="p-name">${displayName(account)}</h1>
<p class="acct"><a class="u-url u-uid" href="${account.url}">@${handle}</a>${kind ? html` · <span>${kind}</span>` : ""}${account.locked ? html` · <span>approves followers</span>` : ""}</p></div></div>
<div class="p-note">${trustedHtml(account.note)}</div>
${fields(account)}
<ul class="counts"><li><strong>${account.statuses_count}</strong> posts</li><li><strong>${account.followers_count}</strong> ${account.group ? "members" : "followers"}</li>${account.group ? "" : html`<li><strong>${account.following_count}</strong> following</li>`}</ul>
</section>`;
}

/** The links of fields whose ownership was verified: what `rel="me"` in the head points at. */
export function verifiedLinks(account: AccountEntity): string[] {
  return account.fields.flatMap((field) => {
    if (!field.verified_at) return [];
    const href = /href="([^"]+)"/.exec(field.value)?.[1];
    return href ? [href.replaceAll("&amp;", "&")] : [];
  });
}
