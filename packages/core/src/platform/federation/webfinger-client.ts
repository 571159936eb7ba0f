import type { SafeFetch } from "./safe-fetch.js";

export interface WebFingerLink {
  readonly rel: string;
  readonly type?: string;
  readonly href?: string;
  readonly template?: string;
}

export interface WebFingerDocument {
  readonly subject: string;
  readonly aliases: readonly string[];
  readonly links: readonly WebFingerLink[];
  /** The `self` link of an ActivityPub type: the actor's URI. */
  readonly selfActivityPubUrl: string | null;
}

const ACTIVITY_TYPES = /^application\/(activity\+json|ld\+json;\s*profile="https:\/\/www\.w3\.org\/ns\/activitystreams")$/;

/** `@user@host`, `user@host` or `acct:user@host` (host may carry a port); null when it is none of these. */
export function parseHandle(input: string): { username: string; host: string } | null {
  const match = /^(?:acct:)?@?([^@\s/]+)@([^@\s/?#]+)$/.exec(input.trim());
  if (!match?.[1] || !match[2]) return null;
  return { username: match[1], host: match[2].toLowerCase() };
}

function parseDocument(json: unknown): WebFingerDocument | null {
  if (typeof json !== "object" || json === null) return null;
  const record = json as Record<string, unknown>;
  if (typeof record.subject !== "string") return null;
  const links = Array.isArray(record.links)
    ? record.links.filter(
        (link): link is WebFingerLink => typeof link === "object" && link !== null && typeof (link as { rel?: unknown }).rel === "string",
      )
    : [];
  const aliases = Array.isArray(record.aliases) ? record.aliases.filter((alias): alias is string => typeof alias === "string") : [];
  const self = links.find((link) => link.rel === "self" && typeof link.href === "string" && ACTIVITY_TYPES.test(link.type ?? ""));
  return { subject: record.subject, aliases, links, selfActivityPubUrl: self?.href ?? null };
}

/**
 * Looks up a WebFinger resource (RFC 7033) at its host, over https unless
 * told otherwise, through the safe fetch (so private addresses are refused
 * unless allowed). Null when the host does not know it or answers something
 * unreadable.
 */
export async function lookupWebFinger(
  resource: string,
  options: { readonly fetch: SafeFetch; readonly userAgent: string; readonly scheme?: "http" | "https" },
): Promise<WebFingerDocument | null> {
  let host: string;
  const handle = parseHandle(resource);
  if (handle) host = handle.host;
  else if (URL.canParse(resource)) host = new URL(resource).host;
  else return null;
  const url = new URL(`${options.scheme ?? "https"}://${host}/.well-known/webfinger`);
  url.searchParams.set("resource", handle ? `acct:${handle.username}@${handle.host}` : resource);
  let response: Response;
  try {
    response = await options.fetch(url, { headers: { accept: "application/jrd+json, application/json", "user-agent": options.userAgent } });
  } catch {
    return null;
  }
  if (!response.ok) return null;
  try {
    return parseDocument(await response.json());
  } catch {
    return null;
  }
}
