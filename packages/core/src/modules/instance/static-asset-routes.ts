import { publicAccess } from "../../platform/http/access.js";
import { Reply } from "../../platform/http/reply.js";
import { route } from "../core-route.js";

/** A 1x1 grey PNG: the picture of an account without avatar or header, so clients never load a 404. */
const PLACEHOLDER_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mN8/x8AAuMB8DtXNJsAAAAASUVORK5CYII=",
  "base64",
);

const placeholder = (path: string, summary: string) =>
  route({
    method: "GET",
    path,
    summary,
    tags: ["assets"],
    access: publicAccess,
    produces: "image/png",
    handler: () => Reply.text(PLACEHOLDER_PNG, "image/png", { headers: { "cache-control": "public, max-age=86400" } }),
  });

export const staticAssetRoutes = [
  placeholder("/avatars/original/missing.png", "The avatar of accounts that have none"),
  placeholder("/headers/original/missing.png", "The header of accounts that have none"),
  placeholder("/instance/thumbnail.png", "The server's thumbnail"),
];
