/**
 * OAuth scopes as Mastodon defines them: top-level scopes (`read`, `write`,
 * `follow`, `push`, `profile`, `admin:read`, `admin:write`) cover their
 * granular children (`read:accounts`, `admin:write:reports`, ...). A token
 * is granted scopes; a route names the scopes that let a token call it.
 */

export const TOP_LEVEL_SCOPES = ["read", "write", "follow", "push", "profile", "admin:read", "admin:write"] as const;

export const GRANULAR_SCOPES = [
  "read:accounts",
  "read:blocks",
  "read:bookmarks",
  "read:favourites",
  "read:filters",
  "read:follows",
  "read:lists",
  "read:mutes",
  "read:notifications",
  "read:search",
  "read:statuses",
  "write:accounts",
  "write:blocks",
  "write:bookmarks",
  "write:conversations",
  "write:favourites",
  "write:filters",
  "write:follows",
  "write:lists",
  "write:media",
  "write:mutes",
  "write:notifications",
  "write:reports",
  "write:statuses",
  "admin:read:accounts",
  "admin:read:reports",
  "admin:read:domain_allows",
  "admin:read:domain_blocks",
  "admin:read:ip_blocks",
  "admin:read:email_domain_blocks",
  "admin:read:canonical_email_blocks",
  "admin:write:accounts",
  "admin:write:reports",
  "admin:write:domain_allows",
  "admin:write:domain_blocks",
  "admin:write:ip_blocks",
  "admin:write:email_domain_blocks",
  "admin:write:canonical_email_blocks",
] as const;

export const ALL_SCOPES: readonly string[] = [...TOP_LEVEL_SCOPES, ...GRANULAR_SCOPES];

/** The legacy `follow` scope stands for these. */
const FOLLOW_COVERS = new Set(["read:blocks", "write:blocks", "read:follows", "write:follows", "read:mutes", "write:mutes"]);

export function isKnownScope(scope: string): boolean {
  return ALL_SCOPES.includes(scope);
}

/** Splits a space-separated scope string, dropping empties and duplicates. */
export function parseScopes(value: string | null | undefined): string[] {
  return [...new Set((value ?? "").split(/[\s+]+/).filter(Boolean))];
}

/** Whether one granted scope covers a required one. */
function covers(granted: string, required: string): boolean {
  if (granted === required) return true;
  if (granted === "follow") return FOLLOW_COVERS.has(required);
  // `read` covers `read:x`; `admin:read` covers `admin:read:x`; `profile` is covered by `read:accounts`' parent `read`.
  if (required === "profile") return granted === "read" || granted === "read:accounts";
  // Only a real top-level scope covers children: a stored `admin` must not open every `admin:*` route.
  return (TOP_LEVEL_SCOPES as readonly string[]).includes(granted) && required.startsWith(`${granted}:`);
}

/** Whether the granted scopes allow at least one of the required ones (no requirement: allowed). */
export function scopesAllow(granted: readonly string[], required: readonly string[]): boolean {
  if (required.length === 0) return true;
  return required.some((need) => granted.some((have) => covers(have, need)));
}
