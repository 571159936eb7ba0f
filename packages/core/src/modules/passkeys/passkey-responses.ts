import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { z } from "zod";
import { KithError } from "../../domain/errors.js";

/**
 * The spec's finish-auth and finish-register bodies: an array of
 * `{ key, value }` entries, which together are the fields of the browser's
 * PublicKeyCredential as JSON (`id`, `rawId`, `type`, `response`,
 * `clientExtensionResults`, `authenticatorAttachment`).
 */
export interface KeyValueEntry {
  readonly key: string;
  readonly value?: unknown;
}

const base64url = z.string().regex(/^[A-Za-z0-9_-]*={0,2}$/).max(16_384);

const common = {
  id: base64url.min(1).max(1_024),
  rawId: base64url.min(1).max(1_024),
  type: z.literal("public-key"),
  clientExtensionResults: z.record(z.string(), z.unknown()).nullish(),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).nullish(),
};

const RegistrationResponse = z.object({
  ...common,
  response: z.object({
    clientDataJSON: base64url,
    attestationObject: base64url,
    transports: z.array(z.string().max(32)).max(10).nullish(),
  }),
});

const AuthenticationResponse = z.object({
  ...common,
  response: z.object({
    clientDataJSON: base64url,
    authenticatorData: base64url,
    signature: base64url,
    userHandle: base64url.nullish(),
  }),
});

function entriesToObject(entries: readonly KeyValueEntry[]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const entry of entries) object[entry.key] = entry.value ?? null;
  return object;
}

function malformed(error: z.ZodError): KithError {
  return new KithError("passkey.invalid_response", {
    details: error.issues.map((issue) => ({ field: issue.path.join("."), message: issue.message })),
  });
}

export function registrationResponseOf(entries: readonly KeyValueEntry[]): RegistrationResponseJSON {
  const parsed = RegistrationResponse.safeParse(entriesToObject(entries));
  if (!parsed.success) throw malformed(parsed.error);
  const { response, clientExtensionResults, authenticatorAttachment, ...rest } = parsed.data;
  return {
    ...rest,
    response: {
      clientDataJSON: response.clientDataJSON,
      attestationObject: response.attestationObject,
      ...(response.transports && { transports: response.transports as RegistrationResponseJSON["response"]["transports"] }),
    },
    clientExtensionResults: clientExtensionResults ?? {},
    ...(authenticatorAttachment && { authenticatorAttachment }),
  };
}

export function authenticationResponseOf(entries: readonly KeyValueEntry[]): AuthenticationResponseJSON {
  const parsed = AuthenticationResponse.safeParse(entriesToObject(entries));
  if (!parsed.success) throw malformed(parsed.error);
  const { response, clientExtensionResults, authenticatorAttachment, ...rest } = parsed.data;
  return {
    ...rest,
    response: {
      clientDataJSON: response.clientDataJSON,
      authenticatorData: response.authenticatorData,
      signature: response.signature,
      ...(response.userHandle && { userHandle: response.userHandle }),
    },
    clientExtensionResults: clientExtensionResults ?? {},
    ...(authenticatorAttachment && { authenticatorAttachment }),
  };
}

/** The challenge the client data says was signed, to find the stored one; verification still checks it. */
export function challengeOf(clientDataJSON: string): string {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, "base64url").toString("utf8")) as { challenge?: unknown };
    if (typeof data.challenge === "string" && data.challenge.length > 0 && data.challenge.length <= 512) return data.challenge;
  } catch {
    // Falls through to the refusal below.
  }
  throw new KithError("passkey.invalid_response", { message: "The client data carries no challenge" });
}
