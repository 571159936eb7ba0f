import type { StatusEntity } from "../../mastodon/entities/status.js";
import { displayName, profileCard, profilePath, statusEntry, statusFeed, statusPath, verifiedLinks } from "./entry-html.js";
import { type HtmlValue, html, plainText, trustedHtml, truncated } from "./html-template.js";
import { type AlternateLink, type PageMeta, type SiteInfo, pageDocument } from "./page-layout.js";
import type { AboutPage, ProfilePage, TagPage, ThreadPage } from "./public-pages.js";

/** The HTML of each public page, from what `PublicPages` read for a guest. */

const DESCRIPTION_LENGTH = 200;

const REGISTRATION_TEXT = {
  open: "Anyone may sign up.",
  approval: "Sign-ups are reviewed: you give a reason, and a moderator approves the account.",
  closed: "Sign-ups are closed.",
} as const;

function olderLink(path: string, statuses: readonly StatusEntity[], full: boolean): HtmlValue {
  const last = statuses.at(-1);
  if (!full || !last) return "";
  return html`<nav class="pager" aria-label="Pages"><span></span><a href="${path}?max_id=${last.id}" rel="next">Older posts</a></nav>`;
}

/** The landing and about page: what the server is, its rules, whom to contact, whether one may join, and how. */
export function aboutView(site: SiteInfo, about: AboutPage): string {
  const { settings } = about;
  const meta: PageMeta = {
    title: settings.title,
    description: truncated(settings.description, DESCRIPTION_LENGTH),
    canonical: `${site.origin}/about`,
    ogType: "website",
  };
  const body = html`<h1>${settings.title}</h1>
<p class="p-summary">${settings.description}</p>
<ul class="counts"><li><strong>${about.userCount}</strong> ${about.userCount === 1 ? "person" : "people"}</li><li>${about.domain}</li></ul>
${about.extendedDescription ? html`<section aria-labelledby="about-more"><h2 id="about-more">About this server</h2>${trustedHtml(about.extendedDescription)}</section>` : ""}
<section aria-labelledby="rules"><h2 id="rules">Rules</h2>
${settings.rules.length === 0 ? html`<p>This server has published no rules.</p>` : html`<ol class="rules">${settings.rules.map((rule) => html`<li>${rule.text}${rule.hint ? html`<span class="hint">${rule.hint}</span>` : ""}</li>`)}</ol>`}
</section>
<section aria-labelledby="join"><h2 id="join">Joining</h2><p id="registrations" data-mode="${settings.registrationsMode}">${REGISTRATION_TEXT[settings.registrationsMode]}</p>
${settings.registrationsMode === "closed" ? "" : html`<p><a href="/auth/sign_up" id="sign-up">Create an account</a></p>`}
<p>Use Kith with any app that speaks the Mastodon API: see <a href="https://joinmastodon.org/apps">the list of apps</a>, and sign in with this server's address, <strong>${about.domain}</strong>.</p></section>
<section aria-labelledby="contact"><h2 id="contact">Contact</h2>
${settings.contactEmail ? html`<p><a href="mailto:${settings.contactEmail}">${settings.contactEmail}</a></p>` : html`<p>No contact address is published.</p>`}</section>`;
  return pageDocument(site, meta, body);
}

/** The first picture of a status, for a link preview. */
function previewImage(status: StatusEntity): PageMeta["image"] {
  const image = status.media_attachments.find((media) => media.type === "image" && media.url !== null);
  if (image?.url && !status.sensitive) return { url: image.url, alt: image.description ?? "", large: true };
  return { url: status.account.avatar_static || status.account.avatar, alt: "" };
}

export function profileView(site: SiteInfo, page: ProfilePage): string {
  const { account } = page;
  const path = profilePath(account);
  const name = displayName(account);
  const links: AlternateLink[] = [
    { rel: "alternate", type: "application/activity+json", href: account.uri },
    ...verifiedLinks(account).map((href) => ({ rel: "me", type: "text/html", href })),
  ];
  if (page.local) {
    links.push(
      { rel: "alternate", type: "application/rss+xml", href: `${site.origin}${path}.rss`, title: `${name}'s posts (RSS)` },
      { rel: "alternate", type: "application/atom+xml", href: `${site.origin}${path}.atom`, title: `${name}'s posts (Atom)` },
    );
  }
  const meta: PageMeta = {
    title: `${name} (@${page.handle})`,
    description: truncated(plainText(account.note), DESCRIPTION_LENGTH) || `Posts by ${name}`,
    canonical: `${site.origin}${path}`,
    ogType: "profile",
    image: { url: account.avatar_static || account.avatar, alt: `${name}'s picture` },
    noindex: account.noindex === true || !account.indexable,
    links,
    extraMeta: [{ property: "profile:username", content: page.handle }],
  };
  const remote = page.local
    ? ""
    : html`<p class="notice">This profile is on another server; what is shown here is what ${site.name} knows of it. <a href="${account.url}">See the full profile on its server</a>.</p>`;
  const body = html`${profileCard(account, page.handle)}${remote}
${page.pinned.length ? html`<h2>Pinned</h2>${statusFeed(page.pinned, "Pinned posts")}` : ""}
<h2>Posts</h2>${statusFeed(page.statuses, `Posts by ${name}`)}
${olderLink(path, page.statuses, page.statuses.length >= 20)}`;
  return pageDocument(site, meta, body);
}

export function threadView(site: SiteInfo, page: ThreadPage): string {
  const { status } = page;
  const name = displayName(status.account);
  const path = statusPath(status);
  const parent = page.ancestors.at(-1);
  const text = plainText(status.spoiler_text || status.content);
  const meta: PageMeta = {
    title: `${name}: "${truncated(text, 60)}"`,
    description: status.spoiler_text ? `Content warning: ${status.spoiler_text}` : truncated(text, DESCRIPTION_LENGTH),
    canonical: `${site.origin}${path}`,
    ogType: "article",
    image: previewImage(status),
    noindex: status.account.noindex === true || !status.account.indexable,
    links: [
      { rel: "alternate", type: "application/activity+json", href: status.uri },
      {
        rel: "alternate",
        type: "application/json+oembed",
        href: `${site.origin}/api/oembed?${new URLSearchParams({ url: `${site.origin}${path}`, format: "json" })}`,
      },
    ],
    extraMeta: [
      { property: "article:published_time", content: status.created_at },
      { property: "article:author", content: `${site.origin}${profilePath(status.account)}` },
    ],
  };
  const body = html`<h1 class="visually-plain">Post by ${name}</h1>
${page.ancestors.length ? html`<section aria-label="Earlier in the thread">${page.ancestors.map((ancestor) => statusEntry(ancestor))}</section>` : ""}
${statusEntry(status, { focus: true, ...(parent && { inReplyTo: statusPath(parent) }) })}
${page.descendants.length ? html`<section aria-labelledby="replies"><h2 id="replies">Replies</h2>${page.descendants.map((reply) => statusEntry(reply))}</section>` : ""}`;
  return pageDocument(site, meta, body, status.language ?? "en");
}

export function tagView(site: SiteInfo, page: TagPage): string {
  const path = `/tags/${encodeURIComponent(page.name)}`;
  const meta: PageMeta = {
    title: `#${page.name}`,
    description: `Public posts tagged #${page.name} on ${site.name}`,
    canonical: `${site.origin}${path}`,
    ogType: "website",
    links: [
      { rel: "alternate", type: "application/rss+xml", href: `${site.origin}${path}.rss`, title: `#${page.name} (RSS)` },
      { rel: "alternate", type: "application/atom+xml", href: `${site.origin}${path}.atom`, title: `#${page.name} (Atom)` },
    ],
  };
  const body = html`<h1>#${page.name}</h1>${statusFeed(page.statuses, `Posts tagged #${page.name}`)}
${olderLink(path, page.statuses, page.statuses.length >= 20)}`;
  return pageDocument(site, meta, body);
}

/** The page of something that is not there, or not for a guest to see: the same words either way. */
export function notFoundView(site: SiteInfo, canonical: string): string {
  const meta: PageMeta = {
    title: "Not found",
    description: "This page does not exist, or is not public.",
    canonical,
    ogType: "website",
    noindex: true,
  };
  return pageDocument(
    site,
    meta,
    html`<h1>Not found</h1><p>This page does not exist, or is not public.</p><p><a href="/">Go to the home page</a></p>`,
  );
}
