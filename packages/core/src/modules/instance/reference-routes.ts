import { publicAccess } from "../../platform/http/access.js";
import { buildOpenApiDocument } from "../../platform/http/openapi.js";
import { renderReferencePage } from "./reference-page.js";
import { Reply } from "../../platform/http/reply.js";
import type { AnyRoute } from "../../platform/http/route.js";
import { route } from "../core-route.js";

/** The API's own description, built from the route table it is part of. */
export function referenceRoutes(table: () => readonly AnyRoute[]): AnyRoute[] {
  let cached: { origin: string; document: Record<string, unknown> } | undefined;
  const documentFor = (origin: string, version: string) => {
    if (cached?.origin !== origin) cached = { origin, document: buildOpenApiDocument(table(), { origin, version }) };
    return cached.document;
  };
  return [
    route({
      method: "GET",
      path: "/api/v1/openapi.json",
      summary: "The OpenAPI 3.1 document of every route",
      tags: ["reference"],
      access: publicAccess,
      handler: ({ config }) => documentFor(config.origin, config.version),
    }),
    route({
      method: "GET",
      path: "/api/v1/docs",
      summary: "A readable reference page of the API",
      tags: ["reference"],
      access: publicAccess,
      produces: "text/html",
      handler: ({ config }) => Reply.text(renderReferencePage(documentFor(config.origin, config.version)), "text/html; charset=utf-8"),
    }),
  ];
}
