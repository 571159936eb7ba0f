import { z } from "zod";
import { any } from "../../domain/permissions.js";
import { permission } from "../../platform/http/access.js";
import { moduleRoute } from "../module.js";
import type { RelayService, RelayTarget } from "./relay-service.js";

const route = moduleRoute<RelayService>();

/**
 * Relays at `/api/v1/admin/relays`: Mastodon manages them in its admin web
 * pages only (add by inbox URL, enable, disable, delete), so these routes
 * follow its admin API's style. Reads need Federation.Read or
 * Federation.Manage; changes Federation.Manage.
 */
const read = permission(any("Federation.Read", "Federation.Manage"));
const manage = permission(any("Federation.Manage"));
const TAGS = ["admin/relays"];
const READ_SCOPES = ["admin:read"];
const WRITE_SCOPES = ["admin:write"];
const BASE = "/api/v1/admin/relays";

const RelayJson = z.object({
  id: z.string(),
  inbox_url: z.string(),
  kind: z.enum(["mastodon", "litepub"]),
  actor_url: z.string().nullable(),
  state: z.enum(["idle", "pending", "accepted", "rejected"]),
  created_at: z.string(),
  updated_at: z.string(),
});

/** An absolute http or https URL without credentials; its fragment is dropped. */
const RelayUrl = z
  .string()
  .trim()
  .max(2_048)
  .refine((value) => {
    if (!URL.canParse(value)) return false;
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== "" && !url.username && !url.password;
  }, "Expected an http or https URL")
  .transform((value) => {
    const url = new URL(value);
    url.hash = "";
    return url;
  });

const NewRelay = z
  .object({ inbox_url: RelayUrl.optional(), actor_url: RelayUrl.optional() })
  .refine((body) => (body.inbox_url === undefined) !== (body.actor_url === undefined), {
    message: "Give either inbox_url (a Mastodon relay's inbox) or actor_url (a LitePub relay's actor)",
    path: ["inbox_url"],
  });

function targetOf(body: z.infer<typeof NewRelay>): RelayTarget {
  return body.inbox_url ? { kind: "mastodon", inbox: body.inbox_url } : { kind: "litepub", actor: body.actor_url as URL };
}

const IdParams = z.object({ id: z.string().min(1).max(64) });

export const relayRoutes = [
  route({
    method: "GET",
    path: BASE,
    summary: "The relays this server subscribes to, oldest first",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    response: z.array(RelayJson),
    handler: async ({ module }) => module.list(),
  }),
  route({
    method: "GET",
    path: `${BASE}/{id}`,
    summary: "One relay",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    params: IdParams,
    response: RelayJson,
    handler: async ({ module, params }) => module.get(params.id),
  }),
  route({
    method: "POST",
    path: BASE,
    summary: "Adds a relay and subscribes to it",
    description:
      "`inbox_url`: a relay of Mastodon's kind, sent a Follow of the public collection at that inbox. `actor_url`: a relay of " +
      "LitePub's kind, whose actor is fetched and followed. The relay is `pending` until it answers, then `accepted` or " +
      "`rejected`; once accepted it gets this server's public statuses. 409 when a relay of that inbox is already added; " +
      "422 for an address that is not public (outside test networks), or an actor that cannot be fetched.",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    body: NewRelay,
    response: RelayJson,
    handler: async ({ module, body }) => module.add(targetOf(body)),
  }),
  route({
    method: "POST",
    path: `${BASE}/{id}/enable`,
    summary: "Subscribes again to an idle or rejected relay",
    description: "409 when it is already subscribed to or its answer is awaited.",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: IdParams,
    response: RelayJson,
    handler: async ({ module, params }) => module.enable(params.id),
  }),
  route({
    method: "POST",
    path: `${BASE}/{id}/disable`,
    summary: "Unsubscribes from a relay (an Undo of the Follow), keeping it listed as idle",
    description: "409 when it is not subscribed to.",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: IdParams,
    response: RelayJson,
    handler: async ({ module, params }) => module.disable(params.id),
  }),
  route({
    method: "DELETE",
    path: `${BASE}/{id}`,
    summary: "Unsubscribes from a relay and removes it",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: IdParams,
    response: z.object({}),
    handler: async ({ module, params }) => {
      await module.remove(params.id);
      return {};
    },
  }),
];
