import { type NodeInfo, nodeInfoToJson } from "@fedify/fedify";
import { acceptedTypes } from "../../platform/http/accepted-types.js";

/**
 * The discovery documents beside WebFinger that Fedify does not serve:
 * host-meta (RFC 6415), in XML (XRD) and JSON (JRD), pointing at the
 * WebFinger template, as Mastodon serves it; and NodeInfo 2.0 beside
 * Fedify's 2.1, both listed at `/.well-known/nodeinfo`, for the crawlers and
 * servers that read only the older schema.
 */
export interface DiscoveryDocumentsDeps {
  readonly origin: string;
  /** The facts of the NodeInfo documents (node-info.ts). */
  readonly nodeInfo: () => Promise<NodeInfo>;
}

const NODEINFO_SCHEMA = "http://nodeinfo.diaspora.software/ns/schema";
const JSON_TYPES = new Set(["application/json", "application/jrd+json"]);
const XML_TYPES = new Set(["application/xrd+xml", "application/xml", "text/xml"]);

function json(body: unknown, contentType: string): Response {
  return new Response(JSON.stringify(body), {
    headers: { "content-type": contentType, "access-control-allow-origin": "*", vary: "Accept" },
  });
}

/** Whether a host-meta request wants JSON: a JSON type before any XML one in its Accept (XML otherwise, as RFC 6415 has it). */
function prefersJson(request: Request): boolean {
  const types = acceptedTypes(request.headers.get("accept") ?? "");
  const first = types.find((type) => JSON_TYPES.has(type) || XML_TYPES.has(type));
  return first !== undefined && JSON_TYPES.has(first);
}

function hostMeta(origin: string, asJson: boolean): Response {
  const template = `${origin}/.well-known/webfinger?resource={uri}`;
  if (asJson) return json({ links: [{ rel: "lrdd", template }] }, "application/json");
  const escaped = template.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">\n  <Link rel="lrdd" template="${escaped}"/>\n</XRD>\n`;
  return new Response(xml, { headers: { "content-type": "application/xrd+xml; charset=utf-8", "access-control-allow-origin": "*", vary: "Accept" } });
}

function nodeInfoLinks(origin: string): Response {
  // The newest first, as it was listed alone before: a reader that takes the first link keeps reading the same one.
  const links = ["2.1", "2.0"].map((version) => ({ rel: `${NODEINFO_SCHEMA}/${version}`, href: `${origin}/nodeinfo/${version}` }));
  return json({ links }, "application/jrd+json");
}

/** NodeInfo 2.0: the 2.1 document without what 2.1 added (the software's repository and homepage). */
function nodeInfo20(info: NodeInfo): Response {
  const document = nodeInfoToJson(info) as Record<string, unknown>;
  return json(
    { ...document, version: "2.0", software: { name: info.software.name, version: info.software.version } },
    `application/json; profile="${NODEINFO_SCHEMA}/2.0#"`,
  );
}

/** Answers a GET (or HEAD) of one of these documents; null for any other request. */
export function discoveryDocuments(deps: DiscoveryDocumentsDeps): (request: Request) => Promise<Response | null> {
  return async (request) => {
    if (request.method !== "GET" && request.method !== "HEAD") return null;
    switch (new URL(request.url).pathname) {
      case "/.well-known/host-meta":
        return hostMeta(deps.origin, prefersJson(request));
      case "/.well-known/host-meta.json":
        return hostMeta(deps.origin, true);
      case "/.well-known/nodeinfo":
        return nodeInfoLinks(deps.origin);
      case "/nodeinfo/2.0":
        return nodeInfo20(await deps.nodeInfo());
      default:
        return null;
    }
  };
}
