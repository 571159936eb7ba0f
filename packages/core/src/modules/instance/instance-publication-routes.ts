import { z } from "zod";
import { publicAccess } from "../../platform/http/access.js";
import { DomainBlockJson, ExtendedDescriptionJson, LanguageJson, RuleJson } from "../../mastodon/entities/instance.js";
import { route } from "../core-route.js";

/** Mastodon's `/api/v1/instance/*` beyond the instance document, peers and activity. */
export const instancePublicationRoutes = [
  route({
    method: "GET",
    path: "/api/v1/instance/languages",
    summary: "The languages a status may be written in: ISO 639 codes with their English names",
    tags: ["instance"],
    access: publicAccess,
    response: z.array(LanguageJson),
    handler: ({ services }) => services.instancePublications.languages(),
  }),
  route({
    method: "GET",
    path: "/api/v1/instance/translation_languages",
    summary:
      "Each language the server translates from (`und`: detected) with those it translates into; empty without a translation service",
    tags: ["instance"],
    access: publicAccess,
    response: z.record(z.string(), z.array(z.string())),
    handler: ({ services }) => services.instancePublications.translationLanguages(),
  }),
  route({
    method: "GET",
    path: "/api/v1/instance/extended_description",
    summary: "The about page's longer text, as HTML, with when it last changed (null while never set)",
    tags: ["instance"],
    access: publicAccess,
    response: ExtendedDescriptionJson,
    handler: async ({ services }) => {
      const description = await services.instancePublications.extendedDescription();
      return { updated_at: description.updatedAt, content: description.html };
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/instance/rules",
    summary: "The server's rules, as the instance document lists them",
    tags: ["instance"],
    access: publicAccess,
    response: z.array(RuleJson),
    handler: ({ services }) => services.instancePublications.rules(),
  }),
  route({
    method: "GET",
    path: "/api/v1/instance/domain_blocks",
    summary: "The domains this server limits or suspends, where an administrator publishes them",
    description:
      "The `showDomainBlocks` setting says who may read the list: no one (the default, as in Mastodon), signed-in users, or anyone; anyone else gets 404. `showDomainBlocksRationale` says the same of each block's public comment. Obfuscated blocks show their domain partly starred, with the SHA-256 digest of the whole domain.",
    tags: ["instance"],
    access: publicAccess,
    response: z.array(DomainBlockJson),
    handler: ({ caller, services }) => services.instancePublications.domainBlocks(caller),
  }),
];
