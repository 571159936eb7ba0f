import { publicAccess } from "../../platform/http/access.js";
import { InstanceV1Json, InstanceV2Json } from "../../mastodon/entities/instance.js";
import { route } from "../core-route.js";
import { serializeInstanceV1, serializeInstanceV2 } from "./instance-entity.js";

export const instanceRoutes = [
  route({
    method: "GET",
    path: "/api/v2/instance",
    summary: "The server's description, limits and registration policy (Mastodon's Instance)",
    tags: ["instance"],
    access: publicAccess,
    response: InstanceV2Json,
    handler: async ({ services, config }) =>
      serializeInstanceV2(await services.instance.overview(), config.limits, {
        translationEnabled: services.instancePublications.translationOffered,
      }),
  }),
  route({
    method: "GET",
    path: "/api/v1/instance",
    summary: "The server's description in Mastodon's older V1::Instance shape",
    tags: ["instance"],
    access: publicAccess,
    response: InstanceV1Json,
    handler: async ({ services, config }) => serializeInstanceV1(await services.instance.overview(), config.limits),
  }),
];
