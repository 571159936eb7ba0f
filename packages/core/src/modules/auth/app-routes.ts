import { z } from "zod";
import { KithError } from "../../domain/errors.js";
import type { AppView } from "./oauth-service.js";
import { anyToken, publicAccess } from "../../platform/http/access.js";
import { route } from "../core-route.js";

/** Mastodon's Application entity, as `GET /api/v1/apps/verify_credentials` answers it. */
const ApplicationJson = z.object({
  id: z.string(),
  name: z.string(),
  website: z.string().nullable(),
  scopes: z.array(z.string()),
  redirect_uri: z.string(),
  redirect_uris: z.array(z.string()),
  vapid_key: z.string(),
});

/** Mastodon's CredentialApplication: the Application plus its client credentials, answered once, at registration. */
const CredentialApplicationJson = ApplicationJson.extend({
  client_id: z.string(),
  client_secret: z.string(),
  client_secret_expires_at: z.number().int(),
});

function serializeApplication(app: AppView, vapidKey: string): z.infer<typeof ApplicationJson> {
  return {
    id: app.id,
    name: app.name,
    website: app.website,
    scopes: [...app.scopes],
    // Deprecated by Mastodon for redirect_uris, still read by older clients: the URIs joined by newlines.
    redirect_uri: app.redirectUris.join("\n"),
    redirect_uris: [...app.redirectUris],
    // Empty without Web Push rather than missing, which clients would trip on.
    vapid_key: vapidKey,
  };
}

/** A redirect URI's longest form, as Mastodon bounds it. */
const MAX_REDIRECT_URI_LENGTH = 2_000;
/** Redirect URIs of one client: a client needs one, perhaps one per platform it runs on. */
const MAX_REDIRECT_URIS = 16;
/** Registration needs no token: its body is small, whatever the instance's JSON limit. */
const MAX_REGISTRATION_BODY_BYTES = 64 * 1024;

const RegisterAppBody = z.object({
  client_name: z.string().trim().max(255).optional(),
  /** One string (URIs separated by newlines or whitespace) or an array, as clients send either. */
  /** Their number and length are checked once split (422), however they came. */
  redirect_uris: z.union([z.string(), z.array(z.string())]).optional(),
  scopes: z.string().max(4096).optional(),
  website: z.string().trim().max(2048).optional().nullable(),
});

export const appRoutes = [
  route({
    method: "POST",
    path: "/api/v1/apps",
    summary: "Registers a client application (Mastodon's CredentialApplication)",
    tags: ["apps"],
    access: publicAccess,
    body: RegisterAppBody,
    maxBodyBytes: MAX_REGISTRATION_BODY_BYTES,
    response: CredentialApplicationJson,
    handler: async ({ body, services, clientIp }) => {
      if (!body.client_name) {
        throw new KithError("request.validation_failed", { details: [{ field: "client_name", message: "Required" }] });
      }
      const uris = typeof body.redirect_uris === "string" ? body.redirect_uris.split(/\s+/) : (body.redirect_uris ?? []);
      const tooLong = uris.filter((uri) => uri.length > MAX_REDIRECT_URI_LENGTH);
      if (uris.length > MAX_REDIRECT_URIS || tooLong.length > 0) {
        throw new KithError("request.validation_failed", {
          details: [
            { field: "redirect_uris", message: `At most ${MAX_REDIRECT_URIS} URIs of at most ${MAX_REDIRECT_URI_LENGTH} characters` },
          ],
        });
      }
      const { app, clientSecret } = await services.oauth.registerApp({
        name: body.client_name,
        redirectUris: uris,
        scopes: body.scopes ?? null,
        website: body.website ?? null,
        ip: clientIp,
      });
      return {
        ...serializeApplication(app, await services.instance.vapidPublicKey()),
        client_id: app.clientId,
        client_secret: clientSecret,
        client_secret_expires_at: 0,
      };
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/apps/verify_credentials",
    summary: "The application of the token used, confirming that it works",
    tags: ["apps"],
    access: anyToken,
    response: ApplicationJson,
    handler: async ({ caller, services }) => {
      if (caller.kind === "guest") throw new KithError("auth.unauthenticated");
      const appId = caller.kind === "app" ? caller.appId : await services.sessions.appIdOf(caller.sessionId);
      // Tokens made without an app (tests, the CLI) have no application to show.
      if (!appId) throw new KithError("oauth.app_not_found", { message: "This token was not issued to an application" });
      return serializeApplication(await services.oauth.findAppById(appId), await services.instance.vapidPublicKey());
    },
  }),
];
