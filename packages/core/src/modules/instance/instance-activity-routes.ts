import { z } from "zod";
import { publicAccess } from "../../platform/http/access.js";
import { route } from "../core-route.js";

/** Mastodon's public instance statistics: the servers this one knows, and twelve weeks of activity. */
export const instanceActivityRoutes = [
  route({
    method: "GET",
    path: "/api/v1/instance/peers",
    summary: "Domains of the other servers this one has seen accounts of",
    tags: ["instance"],
    access: publicAccess,
    response: z.array(z.string()),
    handler: ({ services }) => services.instanceActivity.peers(),
  }),
  route({
    method: "GET",
    path: "/api/v1/instance/activity",
    summary: "Local posts, active users and sign-ups per week over the last twelve weeks, this week first",
    tags: ["instance"],
    access: publicAccess,
    response: z.array(z.object({ week: z.string(), statuses: z.string(), logins: z.string(), registrations: z.string() })),
    handler: async ({ services }) =>
      (await services.instanceActivity.weekly()).map((week) => ({
        week: String(week.weekStart / 1000),
        statuses: String(week.statuses),
        logins: String(week.logins),
        registrations: String(week.registrations),
      })),
  }),
];
