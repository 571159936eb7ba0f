import { z } from "zod";

/** The spec's "Passkey credential", camelCase as the spec writes it. */
export const PasskeyCredentialJson = z.object({
  credentialId: z.string(),
  accountId: z.string(),
  userId: z.string(),
  publicKeyCose: z.string(),
  publicKeyAlg: z.number().int(),
  aaguid: z.string(),
  signCount: z.number().int(),
});

const CredentialDescriptorJson = z.object({
  id: z.string(),
  type: z.literal("public-key"),
  transports: z.array(z.string()).optional(),
});

/** Response of begin-auth. */
export const AuthenticationOptionsJson = z.object({
  challenge: z.string(),
  timeout: z.number().int(),
  rpId: z.string(),
  allowCredentials: z.array(CredentialDescriptorJson),
  userVerification: z.string(),
  extensions: z.record(z.string(), z.unknown()),
});

/** Response of begin-register. */
export const RegistrationOptionsJson = z.object({
  challenge: z.string(),
  rp: z.object({ id: z.string(), name: z.string() }),
  user: z.object({ id: z.string(), name: z.string(), displayName: z.string() }),
  pubKeyCredParams: z.array(z.object({ type: z.literal("public-key"), alg: z.number().int() })),
  timeout: z.number().int(),
  attestation: z.string(),
  authenticatorSelection: z.object({
    authenticatorAttachment: z.string(),
    requireResidentKey: z.boolean(),
    residentKey: z.string(),
    userVerification: z.string(),
  }),
  excludeCredentials: z.array(CredentialDescriptorJson),
  extensions: z.record(z.string(), z.unknown()),
});

/** The body of finish-auth and finish-register: the credential's JSON fields as key/value entries. */
export const KeyValueEntriesJson = z
  .array(z.object({ key: z.string().min(1).max(64), value: z.unknown().nullable().optional() }))
  .min(1)
  .max(32);
