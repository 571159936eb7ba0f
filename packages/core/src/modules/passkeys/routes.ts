import { z } from "zod";
import type { Caller, UserCaller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { authenticated, publicAccess } from "../../platform/http/access.js";
import {
  AuthenticationOptionsJson,
  KeyValueEntriesJson,
  PasskeyCredentialJson,
  RegistrationOptionsJson,
} from "../../mastodon/entities/passkey.js";
import { PASSKEY_SCRIPT } from "./passkey-script.js";
import { Reply } from "../../platform/http/reply.js";
import { route } from "../core-route.js";

/**
 * The spec's passkey endpoints, with its paths and shapes. begin-auth and
 * finish-auth are called without credentials; finish-auth answers a
 * `sessionKey`, an access token for the `Authorization: Bearer` header.
 * Registration and management need a signed-in user.
 */
const TAGS = ["passkeys"];
const BASE = "/api/v1/passkeys";

function userOf(caller: Caller): UserCaller {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller;
}

export const passkeyRoutes = [
  route({
    method: "GET",
    path: BASE,
    summary: "The caller's passkey credentials",
    tags: TAGS,
    access: authenticated,
    scopes: ["read", "read:accounts"],
    response: z.array(PasskeyCredentialJson),
    handler: async ({ caller, services }) => services.passkeys.list(userOf(caller).accountId),
  }),
  route({
    method: "GET",
    path: `${BASE}/begin-auth`,
    summary: "Authentication options (a single-use challenge) for signing in as a user with a passkey",
    tags: TAGS,
    access: publicAccess,
    query: z.object({ username: z.string().trim().min(1).max(64) }),
    response: AuthenticationOptionsJson,
    handler: async ({ query, services }) => services.passkeys.beginAuth(query.username),
  }),
  route({
    method: "GET",
    path: `${BASE}/begin-register`,
    summary: "Registration options (a single-use challenge) for adding a passkey to the caller's account",
    tags: TAGS,
    access: authenticated,
    scopes: ["write", "write:accounts"],
    response: RegistrationOptionsJson,
    handler: async ({ caller, services }) => services.passkeys.beginRegister(userOf(caller).accountId),
  }),
  route({
    method: "POST",
    path: `${BASE}/finish-auth`,
    summary: "Verifies a passkey assertion (key/value entries of the credential's JSON) and answers a sessionKey (an access token)",
    tags: TAGS,
    access: publicAccess,
    body: KeyValueEntriesJson,
    response: z.object({ sessionKey: z.string() }),
    handler: async ({ body, services, request, clientIp }) =>
      services.passkeys.finishAuth(body, { userAgent: request.headers.get("user-agent"), ip: clientIp }),
  }),
  route({
    method: "POST",
    path: `${BASE}/finish-register`,
    summary: "Verifies an attestation (key/value entries of the credential's JSON) against the stored challenge and keeps the passkey",
    tags: TAGS,
    access: authenticated,
    scopes: ["write", "write:accounts"],
    body: KeyValueEntriesJson,
    response: PasskeyCredentialJson,
    handler: async ({ caller, body, services, clientIp }) => services.passkeys.finishRegister(userOf(caller).accountId, body, clientIp),
  }),
  route({
    method: "DELETE",
    path: `${BASE}/{credentialId}`,
    summary: "Deletes one of the caller's passkeys; another user's is not found",
    tags: TAGS,
    access: authenticated,
    scopes: ["write", "write:accounts"],
    params: z.object({ credentialId: z.string().min(1).max(1_024) }),
    status: 204,
    handler: async ({ caller, params, services, clientIp }) => {
      await services.passkeys.delete(userOf(caller).accountId, params.credentialId, clientIp);
      return Reply.empty(204);
    },
  }),
  route({
    method: "GET",
    path: "/oauth/passkey.js",
    summary: "The script of the authorize page's passkey button",
    tags: ["oauth"],
    access: publicAccess,
    produces: "text/javascript; charset=utf-8",
    handler: () =>
      Reply.text(PASSKEY_SCRIPT, "text/javascript; charset=utf-8", {
        headers: { "cache-control": "no-cache", "x-content-type-options": "nosniff" },
      }),
  }),
];
