/**
 * robots.txt: the API and sign-in pages are not for crawlers, nor are the
 * pages of an account that chose not to be indexed (Mastodon's `indexable`,
 * `noindex` in its Account) or that is suspended. Each such page also says
 * noindex itself; the list is for the crawlers that read only this file.
 */
export function robotsTxt(unindexedUsernames: readonly string[]): string {
  const accounts = unindexedUsernames.flatMap((username) => {
    const path = `/@${encodeURIComponent(username)}`;
    return [`Disallow: ${path}$`, `Disallow: ${path}/`, `Disallow: ${path}.`];
  });
  return ["User-agent: *", "Disallow: /api/", "Disallow: /oauth/", "Disallow: /auth/", ...accounts, ""].join("\n");
}
