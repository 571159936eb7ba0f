import { z } from "zod";
import type { Caller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { authenticated } from "../../platform/http/access.js";
import { DEFAULT_PAGE, idPageQuery, pageRequest, pagedReply } from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";
import { moduleRoute } from "../module.js";
import { EXPORT_FILES, type ExportService } from "./export-service.js";
import { MAX_FILE_BYTES } from "./import-file.js";
import { ImportJobJson } from "./import-job-json.js";
import { IMPORT_KINDS, IMPORT_MODES } from "./import-kinds.js";
import type { ImportService } from "./import-service.js";

export interface ImportsModuleServices {
  readonly imports: ImportService;
  readonly exports: ExportService;
}

const route = moduleRoute<ImportsModuleServices>();
const TAGS = ["import"];
const IdParams = z.object({ importJobId: z.string().min(1).max(64) });

function actorOf(caller: Caller): string {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller.accountId;
}

const UploadBody = z.object({
  data: z
    .instanceof(File)
    .meta({ type: "string", format: "binary" })
    .describe("The CSV file, as Mastodon exports it (with or without its header row)"),
  type: z.enum(IMPORT_KINDS),
  mode: z.enum(IMPORT_MODES).default("merge"),
});

const KINDS_TEXT =
  "`type` is `followers` (the spec's kind: a list of accounts to follow, read as Mastodon's following_accounts.csv, " +
  "since no one can make others follow them), `following` (the same, by Mastodon's name), `blocks`, `mutes`, " +
  "`domain_blocking`, `bookmarks` or `lists`; `mode` is `merge` (add to what is there) or `overwrite` (also undo what " +
  "the file does not hold). Mastodon's header rows are read in any column order, and files without one in Mastodon's " +
  "column order. Refusals: a file not CSV of the chosen kind, empty, or of more than 20000 rows (422); larger than 20 MB " +
  "(413); three imports of the caller already waiting or running (409).";

export const importRoutes = [
  route({
    method: "POST",
    path: "/api/v1/import",
    summary: "Uploads a CSV file to import; the job waits in PENDING until started",
    description: `Multipart: the file as \`data\`, with \`type\` and \`mode\`. ${KINDS_TEXT}`,
    tags: TAGS,
    access: authenticated,
    scopes: ["write"],
    body: UploadBody,
    maxBodyBytes: MAX_FILE_BYTES + 100_000,
    response: ImportJobJson,
    handler: async ({ caller, body, module }) =>
      module.imports.create(actorOf(caller), { kind: body.type, mode: body.mode, file: body.data, fileName: body.data.name || null }),
  }),
  route({
    method: "GET",
    path: "/api/v1/import",
    summary: "The caller's import jobs, newest first, with state, progress, results and row errors; paged with `Link`",
    tags: TAGS,
    access: authenticated,
    scopes: ["read"],
    query: idPageQuery,
    response: z.array(ImportJobJson),
    handler: async ({ caller, query, module, url }) => {
      const page = pageRequest(query, DEFAULT_PAGE);
      return pagedReply(url, await module.imports.list(actorOf(caller), page), page.limit);
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/import/start/{importJobId}",
    summary: "Starts an import job in PENDING: its rows are applied on the queue (PROCESSING, then FINISHED)",
    description: "A job in any other state is refused (import.not_pending, 409).",
    tags: TAGS,
    access: authenticated,
    scopes: ["write"],
    params: IdParams,
    response: ImportJobJson,
    handler: async ({ caller, params, module }) => module.imports.start(actorOf(caller), params.importJobId),
  }),
  route({
    method: "GET",
    path: "/api/v1/import/{importJobId}",
    summary: "One of the caller's import jobs: state, progress (rows done of all), results and the rows not imported",
    tags: TAGS,
    access: authenticated,
    scopes: ["read"],
    params: IdParams,
    response: ImportJobJson,
    handler: async ({ caller, params, module }) => module.imports.get(actorOf(caller), params.importJobId),
  }),
  ...EXPORT_FILES.map((file) =>
    route({
      method: "GET",
      path: `/api/v1/exports/${file}`,
      summary: `The caller's ${file} as Mastodon writes it (its settings' /settings/exports/${file}), to import here or on Mastodon`,
      tags: ["export"],
      access: authenticated,
      scopes: ["read"],
      produces: "text/csv",
      response: z.string(),
      handler: async ({ caller, module }) =>
        Reply.text(await module.exports.file(actorOf(caller), file), "text/csv; charset=utf-8", {
          headers: { "content-disposition": `attachment; filename="${file}"` },
        }),
    }),
  ),
];
