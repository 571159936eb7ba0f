import { z } from "zod";
import { KithError } from "../../domain/errors.js";
import { publicAccess } from "../../platform/http/access.js";
import { route } from "../core-route.js";

export const healthRoutes = [
  route({
    method: "GET",
    path: "/health",
    summary: "Liveness and database check; 503 when the database does not answer",
    tags: ["health"],
    access: publicAccess,
    response: z.object({ status: z.literal("ok"), database: z.literal("ok") }),
    handler: async ({ services }) => {
      try {
        const checks = await services.instance.checkHealth();
        return { status: "ok" as const, ...checks };
      } catch (error) {
        throw new KithError("server.unavailable", { message: "The database does not answer", cause: error });
      }
    },
  }),
];
