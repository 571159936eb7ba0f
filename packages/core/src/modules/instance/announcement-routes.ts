import { z } from "zod";
import { authenticated } from "../../platform/http/access.js";
import { route } from "../core-route.js";

/** Mastodon's Announcement entity; Kith has no announcements yet, so the list is always empty. */
const AnnouncementJson = z.object({
  id: z.string(),
  content: z.string(),
  starts_at: z.string().nullable(),
  ends_at: z.string().nullable(),
  published: z.boolean(),
  all_day: z.boolean(),
  published_at: z.string(),
  updated_at: z.string(),
  read: z.boolean().optional(),
  mentions: z.array(z.unknown()),
  statuses: z.array(z.unknown()),
  tags: z.array(z.unknown()),
  emojis: z.array(z.unknown()),
  reactions: z.array(z.unknown()),
});

export const announcementRoutes = [
  route({
    method: "GET",
    path: "/api/v1/announcements",
    summary: "Announcements from the server's administrators (none exist yet: always an empty list)",
    tags: ["announcements"],
    access: authenticated,
    response: z.array(AnnouncementJson),
    handler: () => [],
  }),
];
