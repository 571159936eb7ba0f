import { z } from "zod";

/** Mastodon's Marker entity: a read position in one timeline. */
export const MarkerJson = z.object({
  last_read_id: z.string(),
  version: z.number().int(),
  updated_at: z.string(),
});

/** Markers by timeline name, as `GET /api/v1/markers` answers. */
export const MarkersJson = z.object({ home: MarkerJson.optional(), notifications: MarkerJson.optional() });

export type MarkerEntity = z.infer<typeof MarkerJson>;
