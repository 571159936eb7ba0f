import { z } from "zod";
import { any } from "../../domain/permissions.js";
import { permission } from "../../platform/http/access.js";
import { DEFAULT_PAGE, idPageQuery, pageRequest, pagedReply } from "../../platform/http/pagination.js";
import { zBool } from "../../platform/http/schemas.js";
import { moduleRoute } from "../module.js";
import { AdminCustomEmojiJson } from "./admin-custom-emoji.js";
import { EMOJI_MAX_BYTES } from "./custom-emoji-images.js";
import type { CustomEmojiService } from "./custom-emoji-service.js";

/**
 * Administrators' custom emojis at `/api/v1/admin/custom_emojis`. Mastodon
 * manages emojis in its web admin only; these routes take its actions (add
 * with an image, change the category and the picker's choice, enable,
 * disable, delete) in the shape of Mastodon's other admin APIs and of
 * GoToSocial's admin emoji API. Reads need CustomEmojis.Read or .Manage;
 * changes CustomEmojis.Manage.
 */
const route = moduleRoute<CustomEmojiService>();
const read = permission(any("CustomEmojis.Read", "CustomEmojis.Manage"));
const manage = permission(any("CustomEmojis.Manage"));
const TAGS = ["admin/custom-emojis"];
const READ_SCOPES = ["admin:read"];
const WRITE_SCOPES = ["admin:write"];
const BASE = "/api/v1/admin/custom_emojis";

const IdParams = z.object({ id: z.string().min(1).max(64) });
const Category = z.string().max(128);
const FileField = z.instanceof(File).meta({ type: "string", format: "binary" });

const ListQuery = idPageQuery.extend({
  /** `local` for this server's, `remote` for other servers'. */
  filter: z.enum(["local", "remote"]).optional(),
  by_domain: z.string().min(1).max(300).optional(),
  shortcode: z.string().min(1).max(128).optional(),
});

const CreateBody = z.object({
  shortcode: z.string().min(1).max(200),
  image: FileField,
  category: Category.optional(),
  visible_in_picker: zBool.optional(),
});

const UpdateBody = z.object({
  category: Category.nullable().optional(),
  visible_in_picker: zBool.optional(),
});

/** The image and the form fields around it. */
const MULTIPART_BYTES = 4 * EMOJI_MAX_BYTES;

export const adminCustomEmojiRoutes = [
  route({
    method: "GET",
    path: BASE,
    summary: "Custom emojis of this server and of others, newest first",
    description:
      "`filter` (`local` or `remote`), `by_domain`, `shortcode`; `limit` (at most 80), `max_id`, `min_id`, `since_id`, the neighbouring pages in the `Link` header.",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    query: ListQuery,
    response: z.array(AdminCustomEmojiJson),
    handler: async ({ module, query, url }) => {
      const page = pageRequest(query, DEFAULT_PAGE);
      const emojis = await module.page(
        {
          ...(query.filter !== undefined && { local: query.filter === "local" }),
          ...(query.by_domain !== undefined && { domain: query.by_domain.toLowerCase() }),
          ...(query.shortcode !== undefined && { shortcode: query.shortcode }),
        },
        page,
      );
      return pagedReply(url, emojis, page.limit);
    },
  }),
  route({
    method: "GET",
    path: `${BASE}/{id}`,
    summary: "One custom emoji",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    params: IdParams,
    response: AdminCustomEmojiJson,
    handler: async ({ module, params }) => module.get(params.id),
  }),
  route({
    method: "POST",
    path: BASE,
    summary: "Adds a custom emoji of this server from an image (multipart)",
    description: `\`shortcode\` (2 to 128 letters, digits or underscores, not taken), \`image\` (PNG, GIF or WebP, at most ${EMOJI_MAX_BYTES} bytes: 413 above), \`category\`, \`visible_in_picker\` (default true). 409 when the shortcode is taken, 415 for a file of another type or one that does not decode, 422 for a bad shortcode.`,
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    body: CreateBody,
    maxBodyBytes: MULTIPART_BYTES,
    response: AdminCustomEmojiJson,
    handler: async ({ module, body }) =>
      module.create({
        shortcode: body.shortcode,
        image: new Uint8Array(await body.image.arrayBuffer()),
        ...(body.category !== undefined && { category: body.category }),
        ...(body.visible_in_picker !== undefined && { visibleInPicker: body.visible_in_picker }),
      }),
  }),
  route({
    method: "PATCH",
    path: `${BASE}/{id}`,
    summary: "Changes the category of one of this server's emojis, or whether the picker shows it",
    description: "An empty or null `category` takes it out of its category. 422 for another server's emoji.",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: IdParams,
    body: UpdateBody,
    response: AdminCustomEmojiJson,
    handler: async ({ module, params, body }) =>
      module.update(params.id, {
        ...(body.category !== undefined && { category: body.category }),
        ...(body.visible_in_picker !== undefined && { visibleInPicker: body.visible_in_picker }),
      }),
  }),
  route({
    method: "DELETE",
    path: `${BASE}/{id}`,
    summary: "Deletes a custom emoji and its image",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: IdParams,
    response: AdminCustomEmojiJson,
    handler: async ({ module, params }) => module.remove(params.id),
  }),
  route({
    method: "POST",
    path: `${BASE}/{id}/enable`,
    summary: "Enables a custom emoji, of this server or another",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: IdParams,
    response: AdminCustomEmojiJson,
    handler: async ({ module, params }) => module.setDisabled(params.id, false),
  }),
  route({
    method: "POST",
    path: `${BASE}/{id}/disable`,
    summary: "Disables a custom emoji: it is shown nowhere, in posts, profiles, reactions or the picker",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: IdParams,
    response: AdminCustomEmojiJson,
    handler: async ({ module, params }) => module.setDisabled(params.id, true),
  }),
];
